"""What every game's match shares: the table of players, the log, the observer, and the
delivery of each new engine event to the seats that may see it.

A game's match (referee/games/<game>/match.py) adds its loop: deliver -> request ->
parse -> the engine judges and applies; and its fault policy. Every game delivers and
logs its moves through this class alone.
"""

from __future__ import annotations

from typing import Callable, Generic, Sequence, TypeVar

from referee.logs.writer import DecidedBy, GameLog
from referee.players.player import Player
from referee.settings import TimeLimits
from referee.matches.table import Table

E = TypeVar("E")
# Read once: on Python 3.11 every read of an enum class's attribute goes through
# EnumType.__getattr__, and log_move reads it at every decision.
_BY_BOT = DecidedBy.BOT


def route_by(private_to: Callable[[E], int | None], encode: Callable[[E], str | None]
             ) -> Callable[[E], tuple[int | None, str] | None]:
    """The route Match.deliver takes, from a game's view (`private_to`: the one seat that
    may see an event, None for every seat) and its codec (`encode`: the event's line,
    None for an event with no line)."""
    def route(event: E) -> tuple[int | None, str] | None:
        line = encode(event)
        return None if line is None else (private_to(event), line)
    return route


class Match(Generic[E]):
    """The shared half of a refereed game; E is what the game delivers: its engine's
    events (or raw records of them, as Rage's engine keeps them, unbuilt)."""

    def __init__(self, players: Sequence[Player], seats: int, times: TimeLimits,
                 log: GameLog | None, observer: Callable[[E], None] | None) -> None:
        if len(players) != seats:
            raise ValueError(f"{len(players)} players for a {seats}-player game")
        self.times = times
        self.table = Table(players, log)
        self.log = log
        self.observer = observer
        self.delivered = 0  # events of the engine already sent to the seats

    def limits_ms(self) -> tuple[int, int]:
        """The move time and the time bank in whole milliseconds, as GAME lines tell them."""
        return int(self.times.move * 1000), int(self.times.bank * 1000)

    def deliver(self, new: Sequence[E], route: Callable[[E], tuple[int | None, str] | None]
                ) -> None:
        """Send the seats the `new` events: `route` gives each event's line and the seat
        that alone may see it (Table.deliver), from the game's view and codec."""
        self.table.deliver(new, route)
        if self.observer is not None:
            for event in new:
                self.observer(event)
        self.delivered += len(new)

    def tell_end(self, end_line: Callable[[frozenset[int]], str]) -> frozenset[int]:
        """Tell every seat the game's END line, made from the seats faulted so far, send
        what is held and unhook the log; return the seats faulted now. A seat can fault
        as it is told END (a bot gone after its last reply): a result that places
        faulted seats last (Rage's R9) must place it last too, as replay does, though
        the END lines name the places as they stood before it."""
        self.table.tell_all(end_line(self.table.faulted))
        self.table.detach()
        return self.table.faulted

    def log_move(self, seat: int, kind: str, move: str,
                 by: DecidedBy = DecidedBy.BOT) -> None:
        """A decision applied to the game (`kind`: one of the game's move kinds). A bot's
        move is written only where the log wants it (GameLog.bot_moves): mostly, the log's
        reader derives it from the reply."""
        log = self.log
        if log is not None and (by is not _BY_BOT or log.bot_moves):
            log.move(seat, kind, move, by)
