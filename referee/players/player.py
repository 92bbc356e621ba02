"""The Player interface the match runner talks to: lines in, lines out.

The match never sees processes or sockets. A remote bot (referee.players.remote_player), an
in-process test double and the fallback all look the same from here.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Callable, Protocol, Sequence

from referee.errors import ProtocolError


class LineListener(Protocol):
    """Told of every line a player sends and hears, and when (time.monotonic()): the
    single choke point the game log hangs on. What it keeps, and in what form, is the
    listener's business; a player only says what happened. Lines sent together come as
    one batch."""

    def sent(self, lines: Sequence[str], at: float) -> None:
        """A batch of lines sent to the bot at `at`."""

    def heard(self, line: str) -> None:
        """A LOG line heard while the bot's reply was awaited."""

    def replied(self, line: str, at: float) -> None:
        """The bot's reply to a request, taken at `at`."""

    def found(self, line: str) -> None:
        """A line heard while no reply was awaited (sent late, or unasked)."""


class Player(ABC):
    """One seat's bot, spoken to in protocol lines."""

    name: str
    listener: LineListener | None = None

    @abstractmethod
    def new_game(self, line: str) -> None:
        """Send the GAME line and reset per-game clocks (the time bank)."""

    @abstractmethod
    def tell(self, line: str) -> None:
        """Send a line that wants no reply. May raise BotFault."""

    def tell_many(self, lines: Sequence[str]) -> None:
        """Send several lines that want no reply, in order (a player may batch them)."""
        for line in lines:
            self.tell(line)

    @abstractmethod
    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        """Send `preamble` (lines that want no reply), then the request; return the one
        reply line, within the time limits. A player may send them all as one batch.

        Raises a BotFault subclass on timeout, crash, bad framing or flood.
        """

    def stderr_tail(self) -> tuple[str, ...]:
        """The last lines of the bot's stderr in this game, escaped, for its fault's
        record (referee.players.stderr_tail); () where there are none to tell."""
        return ()

    def say_bye(self) -> None:
        """Tell the bot its session is over, without waiting for it to go (close() does)."""

    def close(self, grace: float | None = None) -> None:
        """Release the bot (and kill its processes, for a remote one, after letting it
        exit on its own for `grace` seconds, or the player's default)."""

    def _sent(self, lines: Sequence[str]) -> None:
        if self.listener is not None:
            self.listener.sent(lines, time.monotonic())

    def _replied(self, line: str) -> None:
        if self.listener is not None:
            self.listener.replied(line, time.monotonic())

    def _found(self, line: str) -> None:
        if self.listener is not None:
            self.listener.found(line)


class FunctionPlayer(Player):
    """An in-process player: `handler(line)` returns the reply to requests, None otherwise.

    Used by tests and benchmarks to drive a match without processes.
    """

    def __init__(self, name: str, handler: Callable[[str], str | None]) -> None:
        self.name = name
        self._handler = handler

    def new_game(self, line: str) -> None:
        self.tell(line)

    def tell(self, line: str) -> None:
        self.tell_many((line,))

    def tell_many(self, lines: Sequence[str]) -> None:
        """The lines as one batch, as a remote player sends them (and the log counts)."""
        if lines:
            self._sent(lines)
            for line in lines:
                self._handler(line)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        self._sent((*preamble, line))
        for told in preamble:
            self._handler(told)
        reply = self._handler(line)
        if reply is None:
            raise ProtocolError("no reply to a request", None)
        self._replied(reply)
        return reply
