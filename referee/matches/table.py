"""The seats of one game: every exchange with a player, and faults turned into results.

A game's match loop asks the table for decisions; a bot fault never escapes as an
exception: it is recorded, the bot is told and released, and the ask returns None so
the loop can apply the game's fault policy.

Lines that want no reply are held per seat and sent with that seat's next request, as
one batch (or when the game ends): a bot needs them only when it must decide, and one
batch wakes one bot once per decision instead of every bot for every event. The order
of lines each seat receives is unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence, TypeVar

from protocols.wire import WireError, error_line
from referee.errors import BotFault, Fault, IllegalMove, ProtocolError, RuleError, Where
from referee.logs.writer import GameLog
from referee.players.player import Player

T = TypeVar("T")
E = TypeVar("E")
_AT_THE_START = Where("at the start")  # before the match says where (a start-up fault)


class Table:
    """Players by seat, the faults so far, and the game log's hook on every line."""

    def __init__(self, players: Sequence[Player], log: GameLog | None = None) -> None:
        self.players = list(players)
        self.log = log
        self.faults: dict[int, Fault] = {}
        # Where the game stands, for a fault's record ("round 3, trick 2", and round 3):
        # the game's match sets it; None until the first request (the GAME lines' start).
        self.where: Callable[[], Where] | None = None
        # Each seat's held lines: one list for the whole game, emptied as it is sent, so
        # that the lists of the seats still playing can be kept (_open_held) until a fault.
        self._held: list[list[str]] = [[] for _ in self.players]
        self._open_held = list(self._held)
        # Every line sent to a seat before its fault, in order: the log's digest of them
        # shows that the game its reader plays again (from the header) sends the same.
        self._sent = None if log is None else log.lines_sent
        for seat, player in enumerate(self.players):  # no log: nothing to hear lines
            player.listener = None if log is None else log.seat(seat)

    @property
    def faulted(self) -> frozenset[int]:
        return frozenset(self.faults)

    def start(self, lines: Sequence[str]) -> None:
        """Send each seat its GAME line (one per seat)."""
        for seat, line in enumerate(lines):
            self._guard(seat, lambda: self._new_game(seat, line))

    def _new_game(self, seat: int, line: str) -> None:
        if self._sent is not None:
            self._sent.append(line)
        self.players[seat].new_game(line)

    def tell(self, seat: int, line: str) -> None:
        """Queue a line for the seat; it goes out before the seat's next request."""
        if seat not in self.faults:
            self._held[seat].append(line)

    def flush(self, seat: int) -> None:
        """Send the seat's held lines now."""
        lines = self._take_held(seat)
        if lines:
            self._guard(seat, lambda: self._tell_many(seat, lines))

    def _tell_many(self, seat: int, lines: tuple[str, ...]) -> None:
        if self._sent is not None:
            self._sent += lines
        self.players[seat].tell_many(lines)

    def flush_all(self) -> None:
        for seat in range(len(self.players)):
            self.flush(seat)

    def tell_all(self, line: str) -> None:
        for seat in range(len(self.players)):
            self.tell(seat, line)

    def deliver(self, items: Sequence[E], route: Callable[[E], tuple[int | None, str] | None]
                ) -> None:
        """Queue for the seats the lines of the new `items` (a game's events), in order.

        `route(item)`: the item's line and the one seat that may see it (None: every
        seat), or None for an item with no line. The game makes it from its view module,
        the only judge of visibility, and its codec; each item is encoded once, whoever
        receives it.
        """
        faults, everyone, held = self.faults, self._open_held, self._held
        for item in items:
            routed = route(item)
            if routed is None:
                continue
            only, line = routed
            if only is None:
                for lines in everyone:
                    lines.append(line)
            elif only not in faults:
                held[only].append(line)

    def ask(self, seat: int, request: str, decode: Callable[[str], T]) -> T | None:
        """The decoded reply, or None if the seat has faulted (now or before)."""
        if seat in self.faults:
            return None
        held = self._held[seat]  # _take_held(), inline
        preamble = tuple(held)
        held.clear()
        sent = self._sent
        if sent is not None:
            sent += preamble
            sent.append(request)
        try:
            reply = self.players[seat].ask(request, preamble)
            try:  # syntax errors are protocol faults, rule breaks illegal moves
                return decode(reply)
            except WireError as error:
                raise ProtocolError(str(error), reply) from None
            except RuleError as error:
                raise IllegalMove(str(error), reply) from None
        except BotFault as error:
            self.fault(seat, error)
            return None

    def fault(self, seat: int, error: BotFault) -> None:
        """Record the fault, tell the bot why (best effort), and kill it."""
        player = self.players[seat]
        where = _AT_THE_START if self.where is None else self.where()
        fault = Fault.from_error(seat, player.name, error, where)
        self.faults[seat] = fault
        self._held[seat].clear()
        self._open_held = [held for seat, held in enumerate(self._held)
                           if seat not in self.faults]
        if self.log is not None:
            self.log.fault(fault)
        try:
            player.tell(error_line(fault.kind.value, fault.detail))
        except BotFault:
            pass
        player.close()  # its stderr drained: a crash's traceback is all there now
        tail = player.stderr_tail()
        if tail:
            self.faults[seat] = replace(fault, stderr=tail)
            if self.log is not None:  # a replay of the log says why it crashed too
                self.log.fault_stderr(seat, tail)

    def _take_held(self, seat: int) -> tuple[str, ...]:
        """The seat's held lines, no longer held."""
        held = self._held[seat]
        lines = tuple(held)
        held.clear()
        return lines

    def _guard(self, seat: int, action: Callable[[], None]) -> None:
        if seat in self.faults:
            return
        try:
            action()
        except BotFault as error:
            self.fault(seat, error)

    def detach(self) -> None:
        """Send what is held, then unhook the log (the players may outlive this game)."""
        self.flush_all()
        for player in self.players:
            player.listener = None

