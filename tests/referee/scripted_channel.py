"""A scripted channel: RemotePlayer tested without a bot process, on a virtual clock.

On the model of python-chess's MockTransport: the test writes down what the "bot" sends,
and when, in reply to which referee line; the channel plays that script to a real
RemotePlayer and records every line the referee sent. No process starts and nothing
sleeps: time is a VirtualClock that the channel moves forward to the next scripted line
(or to the deadline the player waits for), so a test of the time bank takes microseconds
and its times are exact, whatever the load of the machine.

    def test_a_reply(scripted: Scripted) -> None:
        channel = scripted.channel()
        channel.says(channel.hello)                    # the bot greets at once
        channel.expect("PLAY? a b", "a", after=0.4)    # and answers PLAY? 0.4 s later
        player = scripted.player(channel)             # greets: takes the HELLO
        assert player.ask("PLAY? a b") == "a"
        assert channel.now - channel.sent[-1].at == 0.4  # virtual seconds, exact
        channel.assert_done()                         # every expected line was sent

The script:
- `says(*lines, after=s)`: lines the bot sends on its own, `s` virtual seconds from now;
- `expect(line, *replies, after=s)`: the next line the referee should send (a string, or
  a compiled regex that must match it whole); once it is sent, `replies` come `s` seconds
  later. Expectations are met in order; `assert_done()` fails on one not met, or on a
  line the referee sent that no expectation matched (`unexpected`);
- a line is a `str`, or `bytes` as they come over the wire (not UTF-8, over-long), or
  `Exit(code)`: the bot closes its end and exits with `code`; later lines never come.

The channel is a `Channel` (referee/transport/channel.py) with a real `Inbox`, so the
inbox's bounds and decoding (floods, over-long and non-UTF-8 lines) are the real ones;
lines due by a wait are all delivered at once, as over ZeroMQ. A wait for a line returns
the first line due by its deadline (a line due exactly at the deadline is in time, as the
real channels' last read at the deadline finds it), else moves the clock to the deadline
and raises BotTimeout; at the bot's exit it raises the real channels' BotCrashed.
`ScriptedProcess` stands in for the BotProcess. The `scripted` fixture (conftest.py)
installs the clock in the player's modules and closes every player after the test.
"""

from __future__ import annotations

import heapq
import itertools
import math
import re
import sys
import types
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from protocols.wire import format_hello
from referee.errors import BotTimeout
from referee.players.player import LineListener, Player
from referee.players.remote_player import RemotePlayer
from referee.processes.bot_command import BotCommand
from referee.settings import TimeLimits
from referee.transport.channel import Channel, crash_fault
from referee.transport.inbox import Inbox

TOKEN = "5c0e1d2a" * 4  # the bot's token: 32 hex digits, as secrets.token_hex(16) makes
START = 1000.0  # the virtual clock's first reading, like a monotonic clock's: not 0


class VirtualClock:
    """time.monotonic() that moves only when the channel moves it (a stand-in for the
    `time` module of the player's modules: it has what they call)."""

    def __init__(self, start: float = START) -> None:
        self.now = start

    def monotonic(self) -> float:
        return self.now

    def advance_to(self, at: float) -> None:
        self.now = max(self.now, at)

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@dataclass(frozen=True)
class Exit:
    """In a script: the bot closes its end and exits with `code`."""

    code: int = 0


Line = str | bytes | Exit


@dataclass
class Expectation:
    pattern: str | re.Pattern[str]
    replies: tuple[Line, ...]
    after: float

    def matches(self, line: str) -> bool:
        if isinstance(self.pattern, str):
            return line == self.pattern
        return self.pattern.fullmatch(line) is not None


@dataclass(frozen=True)
class Sent:
    """A line the referee sent, at a virtual time, in its batch (one send_lines call)."""

    at: float
    line: str
    batch: int


class ScriptedProcess:
    """What RemotePlayer and the channels ask of a BotProcess, for a scripted bot."""

    pid = 0
    sandboxed = False
    cgroup = None
    limits_holder = "rlimits"

    def __init__(self, channel: ScriptedChannel) -> None:
        self._channel = channel
        self.exit_code: int | None = None
        self.killed = False

    def exited(self) -> bool:
        self._channel.deliver()
        return self.exit_code is not None

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` virtual seconds for the scripted exit; exited?"""
        channel = self._channel
        if not self.exited():
            due = channel.next_exit()
            end = channel.now + timeout
            channel.clock.advance_to(end if due is None else min(end, due))
        return self.exited()

    def kill(self) -> None:
        self.killed = True
        if self.exit_code is None:
            self.exit_code = -9

    def exit_fd(self) -> None:
        return None

    def describe_exit(self) -> str:
        code = self.exit_code
        if code is None:
            return "still running"
        return f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"


class ScriptedChannel(Channel):
    """A bot's channel played from a script (see the module's docstring)."""

    hello = format_hello(TOKEN, "scripted", "1.0")  # a HELLO the player accepts

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__(busy_wait=0.0)  # never polls: recv() goes straight to the wait
        self.clock = clock
        self.process = ScriptedProcess(self)
        self.sent: list[Sent] = []
        self.unexpected: list[str] = []
        self.closed = False
        self._expected: deque[Expectation] = deque()
        self._timeline: list[tuple[float, int, Line]] = []  # a heap: (due, order, line)
        self._order = itertools.count()
        self._batches = itertools.count()
        self._inbox = Inbox()
        self._ended = False  # the bot's Exit has come: nothing more will

    @property
    def now(self) -> float:
        return self.clock.now

    # The script.

    def says(self, *lines: Line, after: float = 0.0) -> ScriptedChannel:
        """The bot sends `lines` on its own, `after` seconds from now."""
        for line in lines:
            heapq.heappush(self._timeline, (self.now + after, next(self._order), line))
        return self

    def expect(self, pattern: str | re.Pattern[str], *replies: Line,
               after: float = 0.0) -> ScriptedChannel:
        """The referee's next line should be `pattern`; the bot answers `replies`,
        `after` seconds after it was sent."""
        self._expected.append(Expectation(pattern, replies, after))
        return self

    def assert_done(self) -> None:
        """Every expectation was met, and the referee sent no line the script did not
        expect."""
        assert not self._expected, f"never sent: {[e.pattern for e in self._expected]}"
        assert not self.unexpected, f"sent unexpectedly: {self.unexpected}"

    def lines_sent(self) -> list[str]:
        return [sent.line for sent in self.sent]

    # The Channel.

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        if self.closed:
            raise RuntimeError("send on a closed channel")
        batch = next(self._batches)
        for line in lines:
            self.sent.append(Sent(self.now, line, batch))
            if self._expected and self._expected[0].matches(line):
                expectation = self._expected.popleft()
                self.says(*expectation.replies, after=expectation.after)
            else:
                self.unexpected.append(line)
        # Like ZeroMQ's: no exit check here; the next recv reports a crash.

    def deliver(self) -> None:
        """Everything the script has due by now goes into the inbox."""
        timeline = self._timeline
        while timeline and timeline[0][0] <= self.now and not self._ended:
            _, _, line = heapq.heappop(timeline)
            if isinstance(line, Exit):
                self._ended = True
                self.process.exit_code = line.code
            else:
                self._inbox.push_raw(line.encode() if isinstance(line, str) else line)

    def next_exit(self) -> float | None:
        """When the script's bot exits, if it does."""
        return min((due for due, _, line in self._timeline if isinstance(line, Exit)),
                   default=None)

    def _wait_line(self, deadline: float) -> str:
        if self.closed:
            raise RuntimeError("recv on a closed channel")
        while (line := self._take()) is None:
            if self._ended:
                raise crash_fault(self.process, "closed its end")  # type: ignore[arg-type]
            due = self._timeline[0][0] if self._timeline else math.inf
            self.clock.advance_to(min(due, deadline))  # to the next line, or the deadline
            if due > deadline:
                raise BotTimeout("no line from the bot before the deadline")
        return line

    def _take(self) -> str | None:
        self.deliver()
        return self._inbox.take()

    def pending(self) -> bool:
        self.deliver()
        return self._inbox.ready() or self._ended

    def wake_items(self) -> list[tuple[int, int]]:
        return []

    @property
    def watches_exit(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True
        self._inbox.clear()


@dataclass
class Scripted:
    """Makes scripted channels and the RemotePlayers on them, all on one virtual clock;
    the `scripted` fixture gives one and closes its players after the test."""

    clock: VirtualClock = field(default_factory=VirtualClock)
    players: list[RemotePlayer] = field(default_factory=list)

    def channel(self) -> ScriptedChannel:
        return ScriptedChannel(self.clock)

    def player(self, channel: ScriptedChannel, times: TimeLimits = TimeLimits(),
               listener: LineListener | None = None, greet: bool = True) -> RemotePlayer:
        """A RemotePlayer on `channel`, its start-up time running from now; greeted
        (the HELLO taken, or its fault raised) unless `greet` is False."""
        command = BotCommand("scripted", ("scripted",), stdio=True)
        player = RemotePlayer("bot", command, channel.process, channel,  # type: ignore[arg-type]
                              times, listener, TOKEN)
        self.players.append(player)
        if greet:
            player.greet()
        return player

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Let the player's modules read the virtual clock for time.monotonic()."""
        for cls in (RemotePlayer, Player):
            module = sys.modules[cls.__module__]
            assert isinstance(getattr(module, "time"), types.ModuleType)  # a rename shows
            monkeypatch.setattr(module, "time", self.clock)

    def close(self) -> None:
        for player in self.players:
            player.close()
