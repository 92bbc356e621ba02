"""What every game's terminal desk does alike: a human seat's view (referee/players/
human.py), fed only the lines that seat is sent. Each game's `terminal.py` decodes its own
lines into a board state, draws it and offers its requests; this folds the lines in and
lays out a screen: the board, what happened since the person last decided, the offer.
On a terminal of a known size the screen is made to fit it (screen_fit.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocols.wire import WireError
from referee.ansi import Paint
from referee.games.screen_fit import NEWS, Block, blank, block, fit, lines_of, wrap

State = dict[str, Any]
Size = tuple[int, int]  # a terminal's columns and rows
NEWS_SHOWN = 8  # the last lines of news a screen of no known size shows


class SeatDesk:
    """A seat's board state and news, from its lines alone. A game's desk gives
    `decode` (its codec's), an `_on_<message>` method per message it folds in,
    `_board(actor, width)` and `_offer(request, width)`, as blocks (screen_fit.py) of
    lines no wider than `width` (None: any width)."""

    def __init__(self, paint: Paint) -> None:
        self.paint = paint
        self.seat = 0
        self.state: State = {}
        self.names: list[str] = []
        self.news: list[str] = []  # what happened since the person last decided
        self.shown: list[str] = []  # the news the last screen showed

    def decode(self, line: str) -> object:
        raise NotImplementedError

    def see(self, line: str) -> None:
        try:
            message = self.decode(line)
        except WireError:
            return  # ERROR, BYE and anything else: the player says those itself
        handler = getattr(self, "_on_" + type(message).__name__.lower(), None)
        if handler is not None:
            handler(message)

    def screen(self, request: str | None, size: Size | None = None,
               notes: Sequence[Block] = (), again: bool = False) -> list[str]:
        """The board, what happened since the last decision, the request's offer and the
        player's `notes`; fitted to a terminal of `size` (columns, rows) less a row for
        the prompt. `again`: the same screen redrawn (with other notes), the same news."""
        if not again:
            self.shown, self.news = self.news, []
        width = None if size is None else size[0]
        blocks = self._board(None if request is None else self.seat, width) \
            if self.state else []
        blocks += self._news(width)
        if request is not None:
            blocks += [blank(), *self._offer(request, width)]
        blocks += notes
        if size is None:
            return lines_of(blocks)
        return fit(blocks, size[0], size[1] - 1)

    def _news(self, width: int | None) -> list[Block]:
        """Each item on a line of its own where the size is not known; else packed on as
        few lines as the width allows, the oldest lines given up first."""
        if not self.shown:
            return []
        heading = [blank(), block([self.paint.dim("Since your last move:")], NEWS)]
        if width is None:
            return heading + [block([f"  {n}" for n in self.shown[-NEWS_SHOWN:]], NEWS)]
        lines = wrap(self.shown, width - 2, sep="  ")
        return heading + [block([f"  {line}"], NEWS + (len(lines) - age) / len(lines),
                                "earlier news") for age, line in enumerate(lines)]

    def _board(self, actor: int | None, width: int | None) -> list[Block]:
        raise NotImplementedError

    def _offer(self, request: str, width: int | None) -> list[Block]:
        raise NotImplementedError
