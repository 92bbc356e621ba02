"""Line channels to bots with bounded waits: a ZeroMQ ROUTER hub and a stdio channel.

A channel moves protocol lines and turns transport trouble into BotFaults: silence past
the deadline (BotTimeout), the process ending (BotCrashed, with its exit code), bad framing
(ProtocolError, with an excerpt of the offending bytes) and too much unread output
(OutputFlood). It knows nothing of requests, replies or LOG lines: see remote_player.
"""

from __future__ import annotations

import math
import os
import select
import shutil
import tempfile
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import zmq

from protocols.wire import MAX_LINE_BYTES, WireError, decode_line
from referee.bot_process import BotProcess
from referee.busy_wait import BusyWait, default_budget
from referee.errors import (
    BotCrashed,
    BotFault,
    BotTimeout,
    ConfigError,
    OutputFlood,
    ProtocolError,
)

MAX_QUEUED_LINES = 512  # unread lines from one bot; a well-behaved bot has a reply + a few LOGs
MAX_QUEUED_BYTES = 1 << 20
# ZeroMQ silently disconnects a peer that sends a bigger frame. Well above MAX_LINE_BYTES,
# so an over-long line is still seen and reported as a protocol error.
MAX_FRAME_BYTES = 4 * MAX_LINE_BYTES
DEFAULT_SEND_TIMEOUT = 1.0  # for send() without a deadline
CRASH_GRACE = 0.5  # after a closed pipe, how long to wait for the exit code
EXIT_DRAIN_GRACE = 0.02  # after an exit, for frames still in flight
DRAIN_BATCH = 4096  # frames taken off the ROUTER socket per pass: bounds one pass
FALLBACK_SLICE = 0.02  # exit polling period without pidfd_open
_READ_CHUNK = 1 << 16
_EXCERPT_BYTES = 200

TRANSPORTS = ("ipc", "tcp")
SOCKET_NAME = "bot"  # the ipc socket in each bot's own folder
# Connections a bot may make to its endpoint before its HELLO: one, and reconnections.
MAX_CONNECTIONS = 8


# Plain ints: pyzmq's enum flags cost more in arithmetic than the calls they are for.
# And the backend's calls: the sugar layer's send checks (copy threshold, routing ids,
# groups) are for features this module does not use, its getsockopt wraps EVENTS in an
# enum, its recv_multipart asks RCVMORE through that getsockopt, and its Poller rebuilds
# a list per call: each costs as much as the call itself.
_raw_send = zmq.backend.Socket.send
_raw_recv = zmq.backend.Socket.recv
_zmq_poll = zmq.backend.zmq_poll
_NOBLOCK = int(zmq.NOBLOCK)
_POLLIN = int(zmq.POLLIN)
_MORE_NOBLOCK = int(zmq.NOBLOCK) | int(zmq.SNDMORE)


class Channel(ABC):
    """A line channel to one bot. `busy_wait`: seconds a wait for a line polls before it
    sleeps (referee/busy_wait.py; None: the default for this process's CPUs)."""

    def __init__(self, busy_wait: float | None) -> None:
        self._busy = BusyWait(busy_wait)

    def send(self, line: str, deadline: float | None = None) -> None:
        """Send one line; wait at most until `deadline` (time.monotonic()) for room."""
        self.send_lines((line,), deadline)

    @abstractmethod
    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        """Send lines in order, as one batch the bot receives at once (one wake-up)."""

    def recv(self, deadline: float) -> str:
        """The next line from the bot, waiting at most until `deadline` (time.monotonic()).
        While the bot answers fast, the wait polls pending() before it sleeps."""
        start = self._busy.poll(self.pending, deadline)
        line = self._wait_line(deadline)
        self._busy.learn(start)
        return line

    @abstractmethod
    def _wait_line(self, deadline: float) -> str:
        """recv() after the polling: the next line, sleeping until it comes if need be."""

    @abstractmethod
    def pending(self) -> bool:
        """Would recv() return or raise at once, without waiting?"""

    @abstractmethod
    def close(self) -> None:
        """Stop using the channel (the process is the owner's to kill)."""


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


def _timeout_ms(seconds: float) -> int:
    return max(0, math.ceil(seconds * 1000))


class _Inbox:
    """Lines from one bot not read yet, in order, with framing faults in their place.

    A line is kept as the bytes that came and decoded when taken: a bad one becomes its
    protocol fault there, in its place.
    """

    def __init__(self) -> None:
        self._items: deque[bytes | BotFault] = deque()
        self._bytes = 0
        self._flood: OutputFlood | None = None

    def push_raw(self, raw: bytes) -> None:
        """Queue one line's bytes (no line terminator)."""
        if self._room(len(raw)):
            self._items.append(raw)
            self._bytes += len(raw)

    def push_fault(self, fault: BotFault) -> None:
        if self._room(0):
            self._items.append(fault)

    def _room(self, size: int) -> bool:
        """May `size` more bytes be queued? Past the limits, the flood is raised after
        what is queued, and everything later is dropped."""
        if self._flood is not None:
            return False
        if len(self._items) >= MAX_QUEUED_LINES or self._bytes + size > MAX_QUEUED_BYTES:
            self._flood = OutputFlood(
                f"bot sent more than {MAX_QUEUED_LINES} lines or {MAX_QUEUED_BYTES} bytes "
                "faster than they were read")
            return False
        return True

    def take(self) -> str | None:
        """The next line, or None if there is none; raises a queued fault or the flood."""
        items = self._items
        if not items:
            if self._flood is not None:
                raise self._flood
            return None
        item = items.popleft()
        if not isinstance(item, bytes):
            raise item
        self._bytes -= len(item)
        try:
            return decode_line(item)
        except WireError as exc:
            raise ProtocolError(str(exc), excerpt(item)) from None

    def ready(self) -> bool:
        return bool(self._items) or self._flood is not None

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0


class ZmqHub:
    """The ZeroMQ context of one thread, and the maker of its bots' endpoints.

    Each bot gets a ROUTER socket of its own on an endpoint of its own: an ipc socket in a
    folder that only that bot's sandbox is shown, so reaching the endpoint is the
    credential; or, without a sandbox, a loopback tcp port. The sockets belong to one
    thread (ZeroMQ sockets are not thread-safe): run one hub per match worker.
    """

    def __init__(self, transport: str = "ipc", busy_wait: float | None = None) -> None:
        """`ipc` (falling back to tcp where ipc is unavailable) or `tcp` on 127.0.0.1.
        `busy_wait`: seconds a wait for a bot polls before it sleeps (see busy_wait.py;
        None: the default for this process's CPUs)."""
        if transport not in TRANSPORTS:
            raise ConfigError(f"unknown bot transport {transport!r} (use 'ipc' or 'tcp')")
        self.transport = transport
        self.busy_wait = default_budget() if busy_wait is None else busy_wait
        self._context = zmq.Context()
        self._tempdir: str | None = None
        self._channels: list[ZmqChannel] = []

    def channel(self, token: str, process: BotProcess | None = None) -> ZmqChannel:
        """A new endpoint for the bot that will say HELLO with `token` (its first line);
        its process may be attached now or, once started, later (attach)."""
        socket: zmq.Socket[bytes] = self._context.socket(zmq.ROUTER)
        socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_BYTES)
        folder = self._bind_ipc(socket) if self.transport == "ipc" else None
        if folder is None:
            port = socket.bind_to_random_port("tcp://127.0.0.1")
            endpoint = f"tcp://127.0.0.1:{port}"
        else:
            endpoint = f"ipc://{folder}/{SOCKET_NAME}"
        channel = ZmqChannel(self, socket, endpoint, folder, token)
        if process is not None:
            channel.attach(process)
        self._channels = [c for c in self._channels if not c.closed]
        self._channels.append(channel)
        return channel

    def _bind_ipc(self, socket: zmq.Socket[bytes]) -> Path | None:
        """Bind `socket` in a new folder of its own; None where ipc is unavailable."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(prefix="referee-")
            os.chmod(self._tempdir, 0o711)  # sandboxed bots' users pass through, never list
        folder = Path(tempfile.mkdtemp(prefix="bot-", dir=self._tempdir))
        try:
            socket.bind(f"ipc://{folder}/{SOCKET_NAME}")
        except zmq.ZMQError:  # no ipc here, or the path is too long: fall back to tcp
            shutil.rmtree(folder, ignore_errors=True)
            return None
        # The folder (0700) keeps everyone else out; an unprivileged sandbox user must
        # still be able to connect to the socket itself.
        os.chmod(folder / SOCKET_NAME, 0o666)
        return folder

    @property
    def endpoint(self) -> str:
        """The endpoint of the newest channel (tests connect to it by hand)."""
        return self._channels[-1].endpoint

    def close(self) -> None:
        """Close every channel's socket and the context; remove the ipc folders. Idempotent."""
        for channel in self._channels:
            channel.close()
        self._channels.clear()
        if not self._context.closed:
            self._context.term()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None

    def __enter__(self) -> ZmqHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _hello_token(body: list[bytes]) -> str | None:
    """The token word of a HELLO frame, checked loosely: the full parse is the player's."""
    if len(body) != 1 or not body[0].startswith(b"HELLO "):
        return None
    words = body[0].split()
    try:
        return words[2].decode("ascii") if len(words) >= 3 else None
    except UnicodeDecodeError:
        return None


class ZmqChannel(Channel):
    """One bot's ROUTER socket on its own endpoint, bound to one connection by its HELLO.

    Until then, a monitor counts the connections made to the endpoint: past
    MAX_CONNECTIONS the bot has flooded it, and the socket is closed before the referee
    runs out of descriptors (libzmq aborts the process when accept() finds none). After
    the HELLO an ipc endpoint's file is removed: nobody can connect any more.
    """

    def __init__(self, hub: ZmqHub, socket: zmq.Socket[bytes], endpoint: str,
                 folder: Path | None, token: str) -> None:
        super().__init__(hub.busy_wait)
        self.endpoint = endpoint
        self.folder = folder  # the ipc socket's own folder, shown to the bot's sandbox
        self._socket = socket
        self._token = token
        self._monitor: zmq.Socket[bytes] | None = socket.get_monitor_socket(
            zmq.EVENT_ACCEPTED)
        self._connections = 0
        self._process: BotProcess | None = None
        self._inbox = _Inbox()
        self._ready = [(socket, _POLLIN)]  # for a poll that asks, without waiting
        self._poll_items: list[tuple[Any, int]] = []
        self._has_exit_fd = False
        self.rid: bytes | None = None
        self.ignored_frames = 0  # from connections that never said HELLO with the token

    @property
    def closed(self) -> bool:
        return bool(self._socket.closed)

    def attach(self, process: BotProcess) -> None:
        """The bot process behind this endpoint: its exit ends every wait."""
        self._process = process
        self._has_exit_fd = process.exit_fd() is not None
        self._poll_items = self._items()

    def _items(self) -> list[tuple[Any, int]]:
        items: list[tuple[Any, int]] = [(self._socket, _POLLIN)]
        if self._monitor is not None:
            items.append((self._monitor, _POLLIN))
        fd = None if self._process is None else self._process.exit_fd()
        return items if fd is None else [*items, (fd, _POLLIN)]

    def drain(self) -> None:
        """Move every frame that has arrived into the inbox (bounded pass)."""
        ready = self._ready
        for _ in range(DRAIN_BATCH):
            # Asking first is cheaper than the zmq.Again exception of an empty recv, and a
            # poll without waiting cheaper than getsockopt(EVENTS), which looks its option
            # up in an enum.
            if self._socket.closed or not _zmq_poll(ready, 0):
                return
            self.receive()

    def receive(self) -> None:
        """Move one message, known to be waiting, into the inbox."""
        socket = self._socket
        try:
            rid = _raw_recv(socket, _NOBLOCK)  # the ROUTER's routing id: more follows
            frame = _raw_recv(socket, _NOBLOCK, False)  # a Frame: `more` asks no option
            body = [frame.bytes]
            while frame.more:
                frame = _raw_recv(socket, _NOBLOCK, False)
                body.append(frame.bytes)
        except zmq.Again:
            return
        if rid != self.rid and not self._bind(rid, body):
            self.ignored_frames += 1
            return
        self.deliver(body)

    def _bind(self, rid: bytes, body: list[bytes]) -> bool:
        """A HELLO with our token binds its connection, once; then nobody else may connect."""
        if self.rid is not None or _hello_token(body) != self._token:
            return False
        self.rid = rid
        self._close_monitor()
        if self.folder is not None:
            # Not unbind(): that would close the bot's own connection too. Without its
            # file, an ipc socket takes no new connection.
            (self.folder / SOCKET_NAME).unlink(missing_ok=True)
        self._poll_items = self._items()
        return True

    def _count_connections(self) -> None:
        """Take the monitor's events; past MAX_CONNECTIONS, close the endpoint as a flood."""
        monitor = self._monitor
        while monitor is not None and _zmq_poll([(monitor, _POLLIN)], 0):
            monitor.recv_multipart()
            self._connections += 1
        if self._connections > MAX_CONNECTIONS:
            self._close_monitor()
            self._socket.close(linger=0)
            self._inbox.push_fault(OutputFlood(
                f"bot made more than {MAX_CONNECTIONS} connections to its endpoint"))

    def _close_monitor(self) -> None:
        if self._monitor is not None:
            self._socket.disable_monitor()
            self._monitor.close(linger=0)
            self._monitor = None

    def deliver(self, body: list[bytes]) -> None:
        """One message from this bot's connection, into the inbox."""
        if len(body) == 1:
            self._inbox.push_raw(body[0])
        else:
            raw = b"|".join(body)
            self._inbox.push_fault(ProtocolError(
                f"a message must be exactly one frame, got {len(body)}", excerpt(raw)))

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        """The lines in one frame, separated by newlines."""
        if self.rid is None or self._socket.closed:
            raise RuntimeError("cannot send to a bot before its HELLO")
        if not lines:
            return
        frame = encode_lines(lines)
        # No exit check here: a send to a dead bot is harmless, and the crash is reported
        # (with its exit code) by the next recv, which wakes on the bot's exit.
        socket, rid = self._socket, self.rid
        while True:
            try:
                _raw_send(socket, rid, _MORE_NOBLOCK)
                _raw_send(socket, frame, _NOBLOCK)
                return
            except zmq.Again:  # the bot has not read a whole queue of our lines
                if deadline is None:
                    deadline = time.monotonic() + DEFAULT_SEND_TIMEOUT
                if time.monotonic() >= deadline:
                    raise BotTimeout("bot stopped reading its messages") from None
                time.sleep(FALLBACK_SLICE)
            except zmq.ZMQError as exc:
                if exc.errno == zmq.EHOSTUNREACH:
                    raise crash_fault(self._owner(), "closed its ZeroMQ connection") from None
                raise

    def _owner(self) -> BotProcess:
        if self._process is None:
            raise RuntimeError("a ZeroMQ channel needs its bot process (attach)")
        return self._process

    def _wait_line(self, deadline: float) -> str:
        # Wait, then take what woke us: a wait of 0 past the deadline still sees frames
        # already in the socket, so the deadline hides no reply.
        while True:
            line = self._inbox.take()
            if line is not None:
                return line
            if self._socket.closed:
                raise BotTimeout("no line from the bot: its endpoint is closed")
            remaining = max(0.0, deadline - time.monotonic())
            arrived, exited = self._wait(remaining)
            if exited:
                return self._last_words()
            if arrived:
                self.receive()
            elif remaining == 0:
                raise BotTimeout("no line from the bot before the deadline")

    def _wait(self, timeout: float) -> tuple[bool, bool]:
        """Wait up to `timeout` for a frame or the exit of the bot:
        (a frame is waiting, the bot has exited)."""
        process = self._owner()
        watched = self._has_exit_fd
        if not watched:  # no exit fd: wake up now and then to look
            timeout = min(timeout, FALLBACK_SLICE)
        arrived = exit_fired = False
        socket, monitor = self._socket, self._monitor
        for item, _ in _zmq_poll(self._poll_items, _timeout_ms(timeout)):
            if item is socket:
                arrived = True
            elif item is monitor:
                self._count_connections()
            else:
                exit_fired = True
        # Only a readable exit fd is worth a waitid() call: the common wake-up is a reply.
        return arrived, (exit_fired or not watched) and process.exited()

    def _last_words(self) -> str:
        """The bot has exited: a line it sent just before still counts, else it crashed."""
        deadline = time.monotonic() + EXIT_DRAIN_GRACE
        while True:
            self.drain()
            line = self._inbox.take()
            if line is not None:
                return line
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise crash_fault(self._owner(), "ended")
            time.sleep(min(remaining, 0.005))

    def pending(self) -> bool:
        if self._monitor is not None:
            self._count_connections()
        self.drain()
        return self._inbox.ready()

    def close(self) -> None:
        """Close the socket (and its endpoint); later frames are lost. Idempotent."""
        self._close_monitor()
        if not self._socket.closed:
            self._socket.close(linger=0)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        self._inbox.clear()


class StdioChannel(Channel):
    """A bot's stdin/stdout pipes, non-blocking, with our own line buffer."""

    def __init__(self, process: BotProcess, busy_wait: float | None = None) -> None:
        super().__init__(busy_wait)
        if process.stdin is None or process.stdout is None:
            raise ValueError("a stdio channel needs a process started with stdio pipes")
        self._process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._wfd = process.stdin.fileno()
        self._rfd = process.stdout.fileno()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)
        self._inbox = _Inbox()
        self._buf = bytearray()
        self._skipping = False  # inside an over-long line, already reported
        self._eof = False

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        """The lines, each ended by a newline, in one write where the pipe has room."""
        data = memoryview(encode_lines(lines) + b"\n" if lines else b"")
        self._check_open()
        end = time.monotonic() + DEFAULT_SEND_TIMEOUT if deadline is None else deadline
        while data:
            try:
                data = data[os.write(self._wfd, data):]
            except BlockingIOError:
                if not self._wait_writable(end):
                    raise BotTimeout("bot stopped reading its standard input") from None
            except BrokenPipeError:
                raise crash_fault(self._process, "closed its standard input") from None

    def _wait_writable(self, deadline: float) -> bool:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        poller = select.poll()
        poller.register(self._wfd, select.POLLOUT)
        poller.poll(_timeout_ms(remaining))
        return True

    def _check_open(self) -> None:
        # The fds are raw numbers: after a close they may already belong to another file.
        if self._stdin.closed or self._stdout.closed:
            raise RuntimeError("this stdio channel or its process is closed")

    def _wait_line(self, deadline: float) -> str:
        self._check_open()
        while True:
            line = self._inbox.take()
            if line is not None:
                return line
            if self._eof:
                raise crash_fault(self._process, "closed its standard output")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fill()  # one last read: a line already in the pipe is in time
                if self._inbox.ready():
                    continue
                raise BotTimeout("no line from the bot before the deadline")
            exited = self._wait_readable(remaining)
            self._fill()
            if exited and not self._inbox.ready():
                raise crash_fault(self._process, "ended")

    def _wait_readable(self, timeout: float) -> bool:
        """Wait for output or the exit of the process; exited?"""
        poller = select.poll()
        poller.register(self._rfd, select.POLLIN)
        fd = self._process.exit_fd()
        if fd is None:
            timeout = min(timeout, FALLBACK_SLICE)
        else:
            poller.register(fd, select.POLLIN)
        poller.poll(_timeout_ms(timeout))
        return self._process.exited()

    def _fill(self) -> None:
        """Read what is there, a chunk at a time, until a line is queued (pipe = backpressure)."""
        while not self._eof and not self._inbox.ready():
            try:
                chunk = os.read(self._rfd, _READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self._eof = True
                if self._buf and not self._skipping:
                    self._inbox.push_raw(bytes(self._buf))  # a last line without "\n"
                self._buf.clear()
                return
            self._buf += chunk
            self._split()

    def _split(self) -> None:
        while (end := self._buf.find(b"\n")) >= 0:
            raw = bytes(self._buf[:end])
            del self._buf[:end + 1]
            if self._skipping:
                self._skipping = False  # the end of the reported over-long line
            else:
                self._inbox.push_raw(raw)
        if self._skipping:
            self._buf.clear()
        elif len(self._buf) > MAX_LINE_BYTES:
            self._inbox.push_fault(ProtocolError(
                f"line longer than {MAX_LINE_BYTES} bytes", excerpt(bytes(self._buf))))
            self._buf.clear()
            self._skipping = True

    def pending(self) -> bool:
        self._check_open()
        if not self._inbox.ready():
            self._fill()
        return self._inbox.ready()

    def close(self) -> None:
        """Close the bot's stdin (it reads end-of-file); stdout goes with the process."""
        try:
            self._stdin.close()
        except OSError:
            pass  # unflushed data for a bot that is gone
        self._inbox.clear()
