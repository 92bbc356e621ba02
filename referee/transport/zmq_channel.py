"""The ZeroMQ side: one hub per process, and a ROUTER socket of its own for every bot.

Each bot's ipc socket sits in a 0700 folder that only that bot's sandbox can see, so the
endpoint is the credential; HELLO with the bot's token binds its routing id.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import zmq

from protocols.wire import MAX_LINE_BYTES
from referee.errors import BotTimeout, ConfigError, OutputFlood, ProtocolError
from referee.processes.bot_process import BotProcess
from referee.transport.channel import (
    DEFAULT_SEND_TIMEOUT, FALLBACK_SLICE, Channel, crash_fault, encode_lines, excerpt,
)
from referee.transport.inbox import Inbox, decoded
from referee.zmq_fast import NOBLOCK, POLLIN, SNDMORE
from referee.zmq_fast import poll as zmq_poll, recv as zmq_recv, send as zmq_send

# ZeroMQ silently disconnects a peer that sends a bigger frame. Well above MAX_LINE_BYTES,
# so an over-long line is still seen and reported as a protocol error.
MAX_FRAME_BYTES = 4 * MAX_LINE_BYTES
EXIT_DRAIN_GRACE = 0.02  # after an exit, for frames still in flight
DRAIN_BATCH = 4096  # frames taken off the ROUTER socket per pass: bounds one pass
_DRAIN_PASSES = range(DRAIN_BATCH)  # made once: a drain per decision need not build it
TRANSPORTS = ("ipc", "tcp")
SOCKET_NAME = "bot"  # the ipc socket in each bot's own folder
# Connections a bot may make to its endpoint before its HELLO: one, and reconnections.
MAX_CONNECTIONS = 8
_MORE_NOBLOCK = NOBLOCK | SNDMORE  # for a routing id: its message follows


class ZmqHub:
    """The ZeroMQ context of one thread, and the maker of its bots' endpoints.

    Each bot gets a ROUTER socket of its own on an endpoint of its own: an ipc socket in a
    folder that only that bot's sandbox is shown, so reaching the endpoint is the
    credential; or, without a sandbox, a loopback tcp port. The sockets belong to one
    thread (ZeroMQ sockets are not thread-safe): run one hub per match worker.
    """

    def __init__(self, transport: str = "ipc") -> None:
        """`ipc` (falling back to tcp where ipc is unavailable) or `tcp` on 127.0.0.1."""
        if transport not in TRANSPORTS:
            raise ConfigError(f"unknown bot transport {transport!r} (use 'ipc' or 'tcp')")
        self.transport = transport
        self._context = zmq.Context()
        self._tempdir: str | None = None
        self._channels: list[ZmqChannel] = []

    def channel(self, token: str, process: BotProcess | None = None,
                busy_wait: float | None = None) -> ZmqChannel:
        """A new endpoint for the bot that will say HELLO with `token` (its first line);
        its process may be attached now or, once started, later (attach). `busy_wait`:
        as for every Channel."""
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
        channel = ZmqChannel(socket, endpoint, folder, token, busy_wait)
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

    def __init__(self, socket: zmq.Socket[bytes], endpoint: str, folder: Path | None,
                 token: str, busy_wait: float | None = None) -> None:
        super().__init__(busy_wait)
        self.endpoint = endpoint
        self.folder = folder  # the ipc socket's own folder, shown to the bot's sandbox
        self._socket = socket
        # Ours, not pyzmq's `closed`: that reads an option from libzmq, through pyzmq's
        # attribute hook, on every look. Only this channel closes its socket.
        self._open = True
        self._token = token
        self._monitor: zmq.Socket[bytes] | None = socket.get_monitor_socket(
            zmq.EVENT_ACCEPTED)
        self._connections = 0
        self._process: BotProcess | None = None
        self._inbox = Inbox()
        self._ready = [(socket, POLLIN)]  # for a poll that asks, without waiting
        self._poll_items: list[tuple[Any, int]] = []
        self._has_exit_fd = False
        self.rid: bytes | None = None
        self.ignored_frames = 0  # from connections that never said HELLO with the token

    @property
    def closed(self) -> bool:
        return not self._open

    def attach(self, process: BotProcess) -> None:
        """The bot process behind this endpoint: its exit ends every wait."""
        self._process = process
        self._has_exit_fd = process.exit_fd() is not None
        self._poll_items = self._items()

    def _items(self) -> list[tuple[Any, int]]:
        items: list[tuple[Any, int]] = [(self._socket, POLLIN)]
        if self._monitor is not None:
            items.append((self._monitor, POLLIN))
        fd = None if self._process is None else self._process.exit_fd()
        return items if fd is None else [*items, (fd, POLLIN)]

    def drain(self) -> None:
        """Move every frame that has arrived into the inbox (bounded pass)."""
        ready = self._ready
        for _ in _DRAIN_PASSES:
            # Asking first is cheaper than the zmq.Again exception of an empty recv, and a
            # poll without waiting cheaper than getsockopt(EVENTS), which looks its option
            # up in an enum.
            if not (self._open and zmq_poll(ready, 0)):
                return
            self.receive()

    def receive(self) -> None:
        """Move one message, known to be waiting, into the inbox."""
        raw = self._receive()
        if raw is not None:
            self._inbox.push_raw(raw)

    def _receive(self) -> bytes | None:
        """One message, known to be waiting: the bytes of its one frame if it is the bot's
        line. None if none came, if it came from another connection (ignored) or if it
        is not one frame (its fault is queued in the inbox)."""
        socket = self._socket
        try:
            rid = zmq_recv(socket, NOBLOCK)  # the ROUTER's routing id: more follows
            frame = zmq_recv(socket, NOBLOCK, False)  # a Frame: `more` asks no option
            if not frame.more and rid == self.rid:  # the bot's line: all there is, mostly
                return frame.bytes
            body = [frame.bytes]
            while frame.more:
                frame = zmq_recv(socket, NOBLOCK, False)
                body.append(frame.bytes)
        except zmq.Again:
            return None
        if rid != self.rid and not self._bind(rid, body):
            self.ignored_frames += 1
            return None
        if len(body) == 1:
            return body[0]
        self.deliver(body)
        return None

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
        while monitor is not None and zmq_poll([(monitor, POLLIN)], 0):
            monitor.recv_multipart()
            self._connections += 1
        if self._connections > MAX_CONNECTIONS:
            self._close_monitor()
            self._open = False
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
        if self.rid is None or not self._open:
            raise RuntimeError("cannot send to a bot before its HELLO")
        if not lines:
            return
        frame = encode_lines(lines)
        # No exit check here: a send to a dead bot is harmless, and the crash is reported
        # (with its exit code) by the next recv, which wakes on the bot's exit.
        socket, rid = self._socket, self.rid
        while True:
            try:
                zmq_send(socket, rid, _MORE_NOBLOCK)
                zmq_send(socket, frame, NOBLOCK)
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
        inbox = self._inbox
        while True:
            line = inbox.take()
            if line is not None:
                return line
            if not self._open:
                raise BotTimeout("no line from the bot: its endpoint is closed")
            remaining = deadline - time.monotonic()
            arrived, exited = self._wait(remaining if remaining > 0 else 0.0)
            if exited:
                return self._last_words()
            if arrived:
                raw = self._receive()
                if raw is not None:
                    # The inbox was empty (take() above): this line is the next one,
                    # decoded as take() would, without a trip through the queue.
                    return decoded(raw)
            elif remaining <= 0:
                raise BotTimeout("no line from the bot before the deadline")

    def _wait(self, timeout: float) -> tuple[bool, bool]:
        """Wait up to `timeout` for a frame or the exit of the bot:
        (a frame is waiting, the bot has exited)."""
        watched = self._has_exit_fd
        if not watched and timeout > FALLBACK_SLICE:  # no exit fd: wake now and then to look
            timeout = FALLBACK_SLICE
        arrived = exit_fired = False
        socket, monitor = self._socket, self._monitor
        # timeout_ms(timeout), inline: timeout is >= 0 here
        for item, _ in zmq_poll(self._poll_items, math.ceil(timeout * 1000)):
            if item is socket:
                arrived = True
            elif item is monitor:
                self._count_connections()
            else:
                exit_fired = True
        # Only a readable exit fd is worth a waitid() call: the common wake-up is a reply.
        return arrived, (exit_fired or not watched) and self._owner().exited()

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

    def wake_items(self) -> list[tuple[Any, int]]:
        return self._poll_items

    @property
    def watches_exit(self) -> bool:
        return self._has_exit_fd

    def pending(self) -> bool:
        if self._monitor is not None:
            self._count_connections()
        if self._inbox.ready():
            return True
        # drain(), whose first look mostly finds nothing: then that look is all it costs
        if not (self._open and zmq_poll(self._ready, 0)):
            return False
        self.drain()
        return self._inbox.ready()

    def close(self) -> None:
        """Close the socket (and its endpoint); later frames are lost. Idempotent."""
        self._close_monitor()
        self._open = False
        if not self._socket.closed:
            self._socket.close(linger=0)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        self._inbox.clear()
