"""A Player that passes everything to the bot's own and times each request it answers."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from referee.players.player import LineListener, Player


@dataclass(frozen=True)
class Reply:
    request: str  # the request line, as sent
    seconds: float  # from handing the request over until the reply was taken


class RecordingPlayer(Player):
    """Wraps the player of the bot under check. The match sees one Player, the bot's
    (its faults are the bot's); the wrapper only keeps the time of every reply."""

    def __init__(self, inner: Player, replies: list[Reply]) -> None:
        self.inner = inner
        self.name = inner.name
        self.replies = replies  # shared by the sessions of one check run

    @property
    def listener(self) -> LineListener | None:
        return self.inner.listener

    @listener.setter
    def listener(self, value: LineListener | None) -> None:
        self.inner.listener = value  # the table hangs its log here

    def new_game(self, line: str) -> None:
        self.inner.new_game(line)

    def tell(self, line: str) -> None:
        self.inner.tell(line)

    def tell_many(self, lines: Sequence[str]) -> None:
        self.inner.tell_many(lines)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        start = time.monotonic()
        reply = self.inner.ask(line, preamble)  # a fault propagates: no reply to time
        self.replies.append(Reply(line, time.monotonic() - start))
        return reply

    def say_bye(self) -> None:
        self.inner.say_bye()

    def close(self, grace: float | None = None) -> None:
        self.inner.close(grace)

    def stderr_tail(self) -> tuple[str, ...]:
        return self.inner.stderr_tail()
