"""What every game's terminal desk does alike: a human seat's view (referee/players/
human.py), fed only the lines that seat is sent. Each game's `terminal.py` decodes its own
lines into a board state, draws it and offers its requests; this folds the lines in and
lays out a screen: the board, what happened since the person last decided, the offer."""

from __future__ import annotations

from typing import Any

from protocols.wire import WireError
from referee.ansi import Paint

State = dict[str, Any]
NEWS_SHOWN = 8  # the last lines of news a screen shows


class SeatDesk:
    """A seat's board state and news, from its lines alone. A game's desk gives
    `decode` (its codec's), an `_on_<message>` method per message it folds in,
    `_board(actor)` and `_offer(request)`."""

    def __init__(self, paint: Paint) -> None:
        self.paint = paint
        self.seat = 0
        self.state: State = {}
        self.names: list[str] = []
        self.news: list[str] = []  # what happened since the person last decided

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

    def screen(self, request: str | None) -> list[str]:
        """The board, what happened since the last decision, and the request's offer."""
        lines = self._board(None if request is None else self.seat) if self.state else []
        news, self.news = self.news[-NEWS_SHOWN:], []
        if news:
            lines += ["", self.paint.dim("Since your last move:")] + [f"  {n}" for n in news]
        if request is not None:
            lines += [""] + self._offer(request)
        return lines

    def _board(self, actor: int | None) -> list[str]:
        raise NotImplementedError

    def _offer(self, request: str) -> list[str]:
        raise NotImplementedError
