"""Line channels to bots with bounded waits: a ZeroMQ ROUTER hub and a stdio channel.

A channel moves protocol lines and turns transport trouble into BotFaults: silence past
the deadline (BotTimeout), the process ending (BotCrashed, with its exit code), bad framing
(ProtocolError, with an excerpt of the offending bytes) and too much unread output
(OutputFlood). It knows nothing of requests, replies or LOG lines: see remote_player.
"""

from __future__ import annotations

import math
import select
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Protocol

from protocols.wire import MAX_LINE_BYTES
from referee.errors import BotCrashed
from referee.processes.bot_process import BotProcess
from referee.transport.busy_wait import BusyWait

DEFAULT_SEND_TIMEOUT = 1.0  # for send() without a deadline
CRASH_GRACE = 0.5  # after a closed pipe, how long to wait for the exit code
FALLBACK_SLICE = 0.02  # exit polling period without pidfd_open
# The longest a wait for some bots leaves the other bots' connections unread: a bot whose
# ZeroMQ library sends heartbeats drops a connection whose PONG is late, and an idle seat
# may hear nothing for as long as the others take to boot or to play.
KEEP_ALIVE_SLICE = 0.1
_EXCERPT_BYTES = 200


class KeepAlive(Protocol):
    """What serves the other bots' connections while one bot is waited for (or, with
    `waiting` None, while none is): the ZmqHub."""

    serve_at: float  # time.monotonic() when keep_alive is next due

    def keep_alive(self, waiting: Channel | None, now: float) -> None: ...


class Channel(ABC):
    """A line channel to one bot. `busy_wait`: seconds a wait for a line polls before it
    sleeps (referee/transport/busy_wait.py; None: the default for this process's CPUs).
    `hub`: what its waits let serve the other bots' connections, every KEEP_ALIVE_SLICE."""

    def __init__(self, busy_wait: float | None, hub: KeepAlive | None = None) -> None:
        self._busy = BusyWait(busy_wait)
        self._hub = hub

    def send(self, line: str, deadline: float | None = None) -> None:
        """Send one line; wait at most until `deadline` (time.monotonic()) for room."""
        self.send_lines((line,), deadline)

    @abstractmethod
    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        """Send lines in order, as one batch the bot receives at once (one wake-up)."""

    def recv(self, deadline: float) -> str:
        """The next line from the bot, waiting at most until `deadline` (time.monotonic()).
        While the bot answers fast, the wait polls pending() before it sleeps."""
        busy = self._busy
        if not busy.budget:  # never polls (one CPU): nothing to time or learn
            return self._wait_line(deadline)
        start = busy.poll(self.pending, deadline)
        line = self._wait_line(deadline)
        self._busy.learn(start)
        return line

    @abstractmethod
    def _wait_line(self, deadline: float) -> str:
        """recv() after the polling: the next line, sleeping until it comes if need be."""

    @abstractmethod
    def pending(self) -> bool:
        """Would recv() return or raise at once, without waiting?"""

    def serve_others(self) -> None:
        """Let the hub serve the other bots' connections (answer ZeroMQ heartbeats) while
        this bot is waited for, if that is due."""
        hub = self._hub
        if hub is not None:
            now = time.monotonic()
            if now >= hub.serve_at:
                hub.keep_alive(self, now)

    @abstractmethod
    def wake_items(self) -> list[tuple[int, int]]:
        """What a wait for this channel's next line polls, as (fd, POLLIN) pairs: its
        line, its bot's exit and, for ZeroMQ, its connections (see wait_any)."""

    @property
    @abstractmethod
    def watches_exit(self) -> bool:
        """Is the bot's exit among wake_items()? Else a wait must wake now and then."""

    @abstractmethod
    def close(self) -> None:
        """Stop using the channel (the process is the owner's to kill)."""


def wait_any(channels: Sequence[Channel], deadline: float) -> None:
    """Sleep until something comes on any of `channels` (a line, an exit, a connection)
    or `deadline` (time.monotonic()); the caller then asks each channel what came.
    It wakes within KEEP_ALIVE_SLICE, and serves the other bots' connections if due."""
    poller = select.poll()
    for channel in channels:
        for fd, events in channel.wake_items():
            poller.register(fd, events)
    timeout = min(max(0.0, deadline - time.monotonic()), KEEP_ALIVE_SLICE)
    if not all(channel.watches_exit for channel in channels):
        timeout = min(timeout, FALLBACK_SLICE)
    poller.poll(timeout_ms(timeout))
    if channels:
        channels[0].serve_others()


def excerpt(raw: bytes) -> str:
    """Offending bytes as loggable text, cut short."""
    text = raw[:_EXCERPT_BYTES].decode("utf-8", "backslashreplace")
    return text + "..." if len(raw) > _EXCERPT_BYTES else text


def encode_line(line: str) -> bytes:
    """A referee line as bytes; a line that breaks the framing is a bug on our side."""
    if "\n" in line or "\r" in line:
        raise ValueError(f"a protocol line cannot contain a line break: {line!r}")
    data = line.encode("utf-8")
    if len(data) > MAX_LINE_BYTES:
        raise ValueError(f"a protocol line is limited to {MAX_LINE_BYTES} bytes")
    return data


def encode_lines(lines: Sequence[str]) -> bytes:
    """Referee lines joined by newlines, as bytes; a line that breaks the framing is a
    bug on our side. One join and one encode, whatever the number of lines."""
    text = "\n".join(lines)
    if "\r" in text or text.count("\n") != len(lines) - 1:
        for line in lines:
            encode_line(line)  # raises, naming the line
    data = text.encode("utf-8")
    if len(data) > MAX_LINE_BYTES:
        for line in lines:
            encode_line(line)  # raises if this one is too long
    return data


def crash_fault(process: BotProcess, reason: str) -> BotCrashed:
    """The fault for a bot whose pipe or connection closed: its exit, if it comes soon."""
    if process.wait(CRASH_GRACE):
        return BotCrashed(f"bot {process.describe_exit()}", process.exit_code)
    return BotCrashed(f"bot {reason}", None)


def timeout_ms(seconds: float) -> int:
    return max(0, math.ceil(seconds * 1000))
