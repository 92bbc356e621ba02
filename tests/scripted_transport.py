"""A scripted bot for RemotePlayer, without a process: python-chess's MockTransport, here.

The referee's side is real: a RemotePlayer is built on a `ScriptedChannel` and a
`ScriptedProcess`, and its clock is a `FakeClock` (`script(monkeypatch)` wires all three).
The bot's side is a script of what it answers to each line it is sent, and how long after:

    bot = script(monkeypatch)
    bot.expect("PLAY? r3 r9", "LOG thinking", "r3", after=0.4)  # 0.4 s after the request
    bot.expect("BID? 0 1", exit_code=1)                           # the bot exits instead
    bot.say("a line it sends unasked")
    player = bot.player()                                          # HELLO taken
    ...
    assert bot.sent == [...]                                       # what the referee sent

Time passes only as the script says: a reply `after` seconds comes exactly then, and
silence lasts until the referee's deadline, so the time bank and timeouts are exact and
nothing sleeps. The real-process tests (test_remote_player.py, test_faults.py) stay: this
covers the player's own logic, they cover the pipes and sockets.
"""

from __future__ import annotations

import types
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from referee.errors import BotCrashed, BotTimeout
from referee.players import remote_player
from referee.players.remote_player import RemotePlayer
from referee.processes.bot_command import parse_bot_command
from referee.settings import TimeLimits
from referee.transport.channel import Channel

TOKEN = "t" * 32
HELLO = f"HELLO 2 {TOKEN} scripted 1.0"


class FakeClock:
    """time.monotonic() for the player: it moves only when the script says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@dataclass
class _Said:
    due: float  # on the fake clock
    line: str | None  # None: the bot exits
    exit_code: int = 0


@dataclass
class _Expected:
    line: str
    replies: tuple[str, ...]
    after: float
    exit_code: int | None


class ScriptedChannel(Channel):
    """The bot's end: lines queued by the script, due at fake times; what was sent."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(busy_wait=0.0)
        self.clock = clock
        self.sent: list[str] = []
        self.expected: deque[_Expected] = deque()
        self.queue: deque[_Said] = deque()
        self.closed = False

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        for line in lines:
            self.sent.append(line)
            if self.expected and self.expected[0].line == line:
                self._answer(self.expected.popleft())

    def _answer(self, expected: _Expected) -> None:
        due = self.clock.now + expected.after
        self.queue.extend(_Said(due, line) for line in expected.replies)
        if expected.exit_code is not None:
            self.queue.append(_Said(due, None, expected.exit_code))

    def recv(self, deadline: float) -> str:
        return self._wait_line(deadline)

    def _wait_line(self, deadline: float) -> str:
        if not self.queue or self.queue[0].due > deadline:
            self.clock.now = max(self.clock.now, deadline)
            raise BotTimeout("no line before the deadline")
        said = self.queue.popleft()
        self.clock.now = max(self.clock.now, said.due)
        if said.line is None:
            raise BotCrashed(f"bot exited with code {said.exit_code}", said.exit_code)
        return said.line

    def pending(self) -> bool:
        return bool(self.queue) and self.queue[0].due <= self.clock.now

    def wake_items(self) -> list[tuple[int, int]]:
        return []

    @property
    def watches_exit(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True


@dataclass
class ScriptedProcess:
    """What RemotePlayer asks of its bot's process, with nothing to run."""

    sandboxed: bool = False
    limits_holder: str = "none"
    cgroup: None = None
    killed: bool = False
    exit_code: int | None = None

    def exited(self) -> bool:
        return self.killed

    def wait(self, timeout: float) -> bool:
        return True

    def kill(self) -> None:
        self.killed = True


@dataclass
class ScriptedBot:
    clock: FakeClock
    channel: ScriptedChannel
    process: ScriptedProcess = field(default_factory=ScriptedProcess)

    def expect(self, line: str, *replies: str, after: float = 0.0,
               exit_code: int | None = None) -> None:
        """When the referee sends `line`, the bot sends `replies` `after` seconds later
        (then exits with `exit_code`, if given). Expectations are met in order."""
        self.channel.expected.append(_Expected(line, replies, after, exit_code))

    def say(self, *lines: str) -> None:
        """Lines the bot has sent by now, unasked."""
        self.channel.queue.extend(_Said(self.clock.now, line) for line in lines)

    @property
    def sent(self) -> list[str]:
        return self.channel.sent

    def player(self, times: TimeLimits = TimeLimits(startup=5.0, move=1.0, bank=2.0,
                                                    tolerance=0.05),
               hello: str = HELLO) -> RemotePlayer:
        """A RemotePlayer on this script, greeted by `hello` (sent at once)."""
        self.say(hello)
        player = RemotePlayer("scripted", parse_bot_command("true"),
                              self.process, self.channel,  # type: ignore[arg-type]
                              times, token=TOKEN)
        player.greet()
        return player


def script(monkeypatch: pytest.MonkeyPatch) -> ScriptedBot:
    """A scripted bot, and the remote player's clock made the script's."""
    clock = FakeClock()
    monkeypatch.setattr(remote_player, "time", types.SimpleNamespace(monotonic=clock.monotonic))
    return ScriptedBot(clock, ScriptedChannel(clock))
