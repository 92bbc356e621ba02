"""The ZeroMQ side: one hub per process, and an endpoint of its own for every bot.

Each bot's ipc socket sits in a 0700 folder that only that bot's sandbox can see, so the
endpoint is the credential; HELLO with the bot's token binds its connection. The referee's
end speaks ZMTP itself over a plain stream socket (zmtp.py says why): bots use any ZeroMQ
library, and see a ROUTER socket.
"""

from __future__ import annotations

import math
import os
import select
import shutil
import socket as sockets
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from protocols.wire import MAX_LINE_BYTES
from protocols.zmtp_frames import frame
from referee.errors import BotTimeout, ConfigError, OutputFlood, ProtocolError
from referee.processes.bot_process import BotProcess
from referee.transport.channel import (
    DEFAULT_SEND_TIMEOUT, FALLBACK_SLICE, KEEP_ALIVE_SLICE, Channel, KeepAlive,
    crash_fault, encode_lines, excerpt,
)
from referee.transport.inbox import Inbox, decoded
from referee.transport.socket_folders import new_socket_folder
from referee.transport.zmtp import HANDSHAKE, Reader

# Well above MAX_LINE_BYTES, so an over-long line is still read whole and reported as
# the line it is; a frame beyond this is refused before it is read.
MAX_FRAME_BYTES = 4 * MAX_LINE_BYTES
EXIT_DRAIN_GRACE = 0.02  # after an exit, for frames still in flight
READ_CHUNK = 1 << 16  # bytes taken from a connection per read
TRANSPORTS = ("ipc", "tcp")
SOCKET_NAME = "bot"  # the ipc socket in each bot's own folder
# Connections a bot may make to its endpoint before its HELLO: one, and reconnections.
MAX_CONNECTIONS = 8
_POLL_OUT = select.POLLOUT | select.POLLIN  # a blocked send also takes what comes in
_DRAIN_PASSES = range(64)  # reads per drain: 4 MiB, well past the inbox's bounds
# What a keep-alive reads of each other connection: heartbeats need a few bytes, and a
# flood of PINGs (which fill no inbox) costs the wait a bounded ~0.5 ms of parsing.
KEEP_ALIVE_READ = 1 << 12
_UNIX_PATH_MAX = 108  # sun_path's size, its NUL included


class ZmqHub:
    """The maker of its bots' endpoints, for one thread at a time.

    Each bot gets an endpoint of its own: an ipc socket in a folder that only that bot's
    sandbox is shown, so reaching the endpoint is the credential; or, without a sandbox,
    a loopback tcp port. A hub and its channels are used by one thread at a time: run one
    hub per match worker (whose keep-alive thread serves it between games, never during
    one: tournaments/run/idle_keep_alive.py).
    """

    def __init__(self, transport: str = "ipc") -> None:
        """`ipc` (falling back to tcp where ipc is unavailable) or `tcp` on 127.0.0.1."""
        if transport not in TRANSPORTS:
            raise ConfigError(f"unknown bot transport {transport!r} (use 'ipc' or 'tcp')")
        self.transport = transport
        self._tempdir: str | None = None
        self._channels: list[ZmqChannel] = []
        self.serve_at = 0.0  # time.monotonic() when keep_alive is next due

    def channel(self, token: str, process: BotProcess | None = None,
                busy_wait: float | None = None, sandboxed: bool = False) -> ZmqChannel:
        """A new endpoint for the bot that will say HELLO with `token` (its first line);
        its process may be attached now or, once started, later (attach). `busy_wait`:
        as for every Channel. A `sandboxed` bot reaches its socket by a short path of its own
        (sandbox.INSIDE_SOCKET_DIR), so the host's path may be longer than a unix socket's
        address holds."""
        found = self._listen_ipc(sandboxed) if self.transport == "ipc" else None
        if found is None:
            listener = sockets.socket(sockets.AF_INET, sockets.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            folder, endpoint = None, f"tcp://127.0.0.1:{listener.getsockname()[1]}"
        else:
            listener, folder = found
            endpoint = f"ipc://{folder}/{SOCKET_NAME}"
        listener.listen(MAX_CONNECTIONS)
        listener.setblocking(False)
        channel = ZmqChannel(listener, endpoint, folder, token, busy_wait, self)
        if process is not None:
            channel.attach(process)
        self._channels = [c for c in self._channels if not c.closed]
        self._channels.append(channel)
        return channel

    def _listen_ipc(self, sandboxed: bool) -> tuple[sockets.socket, Path] | None:
        """A unix socket bound in a new folder of its own; None where that cannot be."""
        if self._tempdir is None:
            self._tempdir = new_socket_folder()  # named by us; killed referees' swept
            os.chmod(self._tempdir, 0o711)  # sandboxed bots' users pass through, never list
        folder = Path(tempfile.mkdtemp(prefix="bot-", dir=self._tempdir))
        listener = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        try:
            _bind(listener, folder, sandboxed)
        except OSError:  # the path is too long for a bot outside a sandbox: use tcp
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)
            return None
        # The folder (0700) keeps everyone else out; an unprivileged sandbox user must
        # still be able to connect to the socket itself.
        os.chmod(folder / SOCKET_NAME, 0o666)
        return listener, folder

    def keep_alive(self, waiting: Channel | None, now: float) -> None:
        """While `waiting` is waited for (None: no bot is, between games), the other
        bots' connections are read a little (into their inboxes, as a later wait would),
        so their heartbeats are answered; next due at `serve_at`. A hub-wide clock: a bot
        idle between games is served too, however short each wait for the playing ones."""
        self.serve_at = now + KEEP_ALIVE_SLICE
        for channel in self._channels:
            if channel is not waiting:
                channel.keep_alive_read()

    @property
    def endpoint(self) -> str:
        """The endpoint of the newest channel (tests connect to it by hand)."""
        return self._channels[-1].endpoint

    def close(self) -> None:
        """Close every channel and remove the ipc folders. Idempotent."""
        for channel in self._channels:
            channel.close()
        self._channels.clear()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None

    def __enter__(self) -> ZmqHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _bind(listener: sockets.socket, folder: Path, sandboxed: bool) -> None:
    """Bind `listener` to folder/SOCKET_NAME. A path longer than a unix address holds
    (108 bytes: a long TMPDIR) is bound through /proc/self/fd, for a sandboxed bot only:
    the bot connects by its own short path, and only the referee uses the long one."""
    path = str(folder / SOCKET_NAME)
    if len(os.fsencode(path)) < _UNIX_PATH_MAX or not sandboxed:
        listener.bind(path)
        return
    fd = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        listener.bind(f"/proc/self/fd/{fd}/{SOCKET_NAME}")
    finally:
        os.close(fd)


def _hello_token(message: bytes) -> str | None:
    """The token word of a HELLO message, checked loosely: the full parse is the player's."""
    if not message.startswith(b"HELLO "):
        return None
    words = message.split()
    try:
        return words[2].decode("ascii") if len(words) >= 3 else None
    except UnicodeDecodeError:
        return None


class _Connection:
    """One accepted connection: its socket, and the ZMTP reader of what it sends."""

    __slots__ = ("socket", "fd", "reader")

    def __init__(self, socket: sockets.socket) -> None:
        self.socket = socket
        self.fd = socket.fileno()
        self.reader = Reader(MAX_FRAME_BYTES)


class ZmqChannel(Channel):
    """One bot's endpoint, bound to one connection by its HELLO.

    Until then every connection made to the endpoint is accepted and read: past
    MAX_CONNECTIONS the bot has flooded it, and the endpoint is closed before the referee
    runs out of descriptors. Messages from a connection that has not said HELLO with the
    token are ignored (counted). After the HELLO the endpoint is closed (an ipc one's file
    removed): nobody can connect any more, and the bot's connection is all there is.
    Its waits wake at least every KEEP_ALIVE_SLICE to let its `hub` read the other
    channels when that is due (ZmqHub.keep_alive).
    """

    def __init__(self, listener: sockets.socket, endpoint: str, folder: Path | None,
                 token: str, busy_wait: float | None = None,
                 hub: KeepAlive | None = None) -> None:
        super().__init__(busy_wait, hub)
        self.endpoint = endpoint
        self.folder = folder  # the ipc socket's own folder, shown to the bot's sandbox
        self._listener: sockets.socket | None = listener
        self._token = token
        self._open = True
        self._strangers: dict[int, _Connection] = {}  # by fd: connected, no HELLO yet
        self._bot: _Connection | None = None  # the connection that said HELLO
        self._fd = -1  # the bot connection's, once bound
        self._gone = ""  # why the bot's connection can give no more (closed, broken)
        self._connections = 0
        self._process: BotProcess | None = None
        self._exit_fd: int | None = None
        self._inbox = Inbox()
        self._poller = select.poll()  # what a wait watches: kept up to date, never rebuilt
        self._poller.register(listener.fileno(), select.POLLIN)
        self.ignored_frames = 0  # messages from connections that never said HELLO

    @property
    def closed(self) -> bool:
        return not self._open

    def attach(self, process: BotProcess) -> None:
        """The bot process behind this endpoint: its exit ends every wait."""
        self._process = process
        self._exit_fd = process.exit_fd()
        if self._exit_fd is not None and self._open:
            self._poller.register(self._exit_fd, select.POLLIN)

    # --- reading ---------------------------------------------------------------------

    def drain(self) -> None:
        """Take what has come, on every connection, into the inbox: a bounded number of
        reads, so that a bot's child writing without end cannot keep the referee here."""
        for _ in _DRAIN_PASSES:
            if not (self._open and self._serve(self._poller.poll(0))):
                return

    def keep_alive_read(self) -> None:
        """While another bot is waited for: at most KEEP_ALIVE_READ bytes of each
        connection that sent something, enough for its heartbeats. Nothing once the inbox
        holds a flood: nothing more would be kept, so the flooder is left to block
        instead of keeping the referee parsing its lines (its fault is queued)."""
        if self._open and not self._inbox.flooded:
            self._serve(self._poller.poll(0), KEEP_ALIVE_READ)

    def _serve(self, events: list[tuple[int, int]], size: int = READ_CHUNK) -> bool:
        """Read (up to `size` bytes a connection) what the polled `events` say has come;
        True if some input was taken."""
        took = False
        for fd, _ in events:
            if fd == self._fd:
                took = self._read_bot(size) or took
            elif fd != self._exit_fd:
                took = self._serve_endpoint(fd, size) or took
        return took

    def _read_bot(self, size: int = READ_CHUNK) -> bool:
        """One read of the bot's connection into the inbox; False if nothing came."""
        bot = self._bot
        messages = self._read(bot, size)
        if bot is None or messages is None:
            return False
        self._take(bot, messages)
        return True

    def _take(self, bot: _Connection, messages: list[bytes | list[bytes]]) -> None:
        """The messages of one read of the bot's connection into the inbox, then its
        fault if that read broke ZMTP."""
        for message in messages:
            self._push(message)
        self._settle(bot)

    def _read(self, connection: _Connection | None, size: int = READ_CHUNK
              ) -> list[bytes | list[bytes]] | None:
        """The messages one read of `connection` (`size` bytes at most) completes; None
        if it had nothing. Its end closes the connection (noted in _gone for the bot's);
        a broken protocol is the reader's `error`, for _settle once the messages before
        it are taken."""
        if connection is None:
            return None
        try:
            data = os.read(connection.fd, size)
        except BlockingIOError:
            return None
        except OSError:  # reset by the peer, mostly
            data = b""
        if not data:
            self._drop(connection, "closed its ZeroMQ connection")
            return []
        reader = connection.reader
        messages = reader.feed(data)
        if reader.replies:
            self._write_replies(connection)
        return messages

    def _settle(self, connection: _Connection) -> None:
        """After its messages are taken: a connection that broke ZMTP is closed, and on
        the bot's own, that is its protocol fault."""
        error = connection.reader.error
        if error is None:
            return
        if connection is self._bot:
            self._inbox.push_fault(ProtocolError(f"ZeroMQ framing: {error}",
                                                 excerpt(error.data)))
        self._drop(connection, "broke the ZeroMQ protocol")

    def _push(self, message: bytes | list[bytes]) -> None:
        if isinstance(message, bytes):
            self._inbox.push_raw(message)
        else:
            self._inbox.push_fault(ProtocolError(
                f"a message must be exactly one frame, got {len(message)}",
                excerpt(b"|".join(message))))

    def _serve_endpoint(self, fd: int, size: int = READ_CHUNK) -> bool:
        """The listener (new connections) or a stranger's connection (its HELLO?)."""
        if self._listener is not None and fd == self._listener.fileno():
            return self._accept()
        stranger = self._strangers.get(fd)
        messages = self._read(stranger, size)
        if stranger is None or messages is None:
            return False
        for message in messages:
            if self._bot is stranger:  # lines after its HELLO, in the same read
                self._push(message)
            elif (self._bot is None and isinstance(message, bytes)
                  and _hello_token(message) == self._token):
                self._bind(stranger)
                self._inbox.push_raw(message)
            else:
                self.ignored_frames += 1
        self._settle(stranger)
        return True

    def _accept(self) -> bool:
        """Take the connections waiting (any?); past MAX_CONNECTIONS, the bot flooded
        them."""
        listener, took = self._listener, False
        while listener is not None:
            try:
                socket, _ = listener.accept()
            except OSError:  # none waiting; or out of descriptors: a later poll tries again
                return took
            took = True
            self._connections += 1
            if self._connections > MAX_CONNECTIONS:
                socket.close()
                self._close_endpoint()
                self._open = False
                self._inbox.push_fault(OutputFlood(
                    f"bot made more than {MAX_CONNECTIONS} connections to its endpoint"))
                return True
            self._greet(socket)
        return took

    def _greet(self, socket: sockets.socket) -> None:
        socket.setblocking(False)
        if socket.family == sockets.AF_INET:
            socket.setsockopt(sockets.IPPROTO_TCP, sockets.TCP_NODELAY, 1)
        try:
            socket.send(HANDSHAKE)  # a few dozen bytes: a new socket has room for them
        except OSError:
            socket.close()
            return
        connection = _Connection(socket)
        self._strangers[connection.fd] = connection
        self._poller.register(connection.fd, select.POLLIN)

    def _bind(self, connection: _Connection) -> None:
        """A HELLO with our token binds its connection, once; then nobody else may
        connect, and the others are closed."""
        self._bot, self._fd = connection, connection.fd
        del self._strangers[connection.fd]
        self._close_endpoint()

    def _close_endpoint(self) -> None:
        """No more connections: the listener and the strangers' connections close."""
        if self._listener is not None:
            self._poller.unregister(self._listener.fileno())
            self._listener.close()
            self._listener = None
            if self.folder is not None:
                (self.folder / SOCKET_NAME).unlink(missing_ok=True)
        for stranger in list(self._strangers.values()):
            self._drop(stranger, "")

    def _drop(self, connection: _Connection, why: str) -> None:
        """Close a connection; the bot's leaves why it can give no more."""
        if connection.fd in self._strangers:
            del self._strangers[connection.fd]
        elif connection is self._bot:
            self._gone = self._gone or why
            self._fd = -1
        try:
            self._poller.unregister(connection.fd)
        except KeyError:
            pass
        connection.socket.close()

    def _write_replies(self, connection: _Connection) -> None:
        """PONGs to a peer's heartbeats: best effort (a peer that reads nothing gets none)."""
        replies, connection.reader.replies = connection.reader.replies, []
        try:
            connection.socket.send(b"".join(replies))
        except OSError:
            pass

    # --- sending ---------------------------------------------------------------------

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        """The lines in one message, separated by newlines."""
        if self._bot is None or not self._open:
            raise RuntimeError("cannot send to a bot before its HELLO")
        if not lines:
            return
        data = frame(encode_lines(lines))
        # No exit check here: a send to a dead bot is harmless, and the crash is reported
        # (with its exit code) by the next recv, which wakes on the bot's exit.
        if self._fd < 0:
            return
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        except OSError:  # the bot closed its end: the next recv says so
            return
        if sent < len(data):
            self._send_rest(memoryview(data)[sent:], deadline)

    def _send_rest(self, data: memoryview, deadline: float | None) -> None:
        """The bot is slow to read: wait for room until the deadline, taking what it sends
        meanwhile (it may be blocked sending to us), and letting the hub serve the other
        bots' connections every KEEP_ALIVE_SLICE (a move's time is far longer than their
        heartbeats' timeouts)."""
        end = time.monotonic() + DEFAULT_SEND_TIMEOUT if deadline is None else deadline
        poller = select.poll()
        fd = self._fd
        poller.register(fd, _POLL_OUT)
        while data:
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise BotTimeout("bot stopped reading its messages")
            events = poller.poll(math.ceil(min(remaining, KEEP_ALIVE_SLICE) * 1000))
            self.serve_others()
            if events and events[0][1] & select.POLLIN:
                self._read_bot()
            if self._fd != fd:
                return  # it closed its end: the next recv says so
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                pass
            except OSError:
                return

    # --- waiting ---------------------------------------------------------------------

    def _owner(self) -> BotProcess:
        if self._process is None:
            raise RuntimeError("a ZeroMQ channel needs its bot process (attach)")
        return self._process

    def _wait_line(self, deadline: float) -> str:
        # Wait, then take what woke us. Past the deadline one last look (a wait of 0)
        # still sees lines already in the socket, so the deadline hides no reply; then
        # the wait is over, whatever else keeps coming (PINGs, a stranger's frames).
        inbox, hub = self._inbox, self._hub
        late = False
        while True:
            now = time.monotonic()
            if hub is not None and now >= hub.serve_at:  # before any return: fast
                hub.keep_alive(self, now)  # replies, taken at once, must not skip it
            line = inbox.take()
            if line is not None:
                return line
            if not self._open:
                raise BotTimeout("no line from the bot: its endpoint is closed")
            if self._gone:
                raise crash_fault(self._owner(), self._gone)
            if late:
                raise BotTimeout("no line from the bot before the deadline")
            remaining = deadline - now
            late = remaining <= 0
            timeout = remaining if remaining > 0 else 0.0
            if self._exit_fd is None and timeout > FALLBACK_SLICE:
                timeout = FALLBACK_SLICE  # no exit fd: wake now and then to look
            elif timeout > KEEP_ALIVE_SLICE:
                timeout = KEEP_ALIVE_SLICE  # to serve the others when that is due
            events = self._poller.poll(math.ceil(timeout * 1000))
            bot = self._bot
            if len(events) == 1 and bot is not None and events[0][0] == self._fd:
                messages = self._read(bot)  # the reply, mostly
                if (messages and len(messages) == 1 and isinstance(messages[0], bytes)
                        and bot.reader.error is None):
                    # The inbox was empty (take() above): this line is the next one,
                    # decoded as take() would, without a trip through the queue.
                    return decoded(messages[0])
                self._take(bot, messages or [])
                continue
            self._serve(events)
            if self._exited(events):
                return self._last_words()

    def _exited(self, events: list[tuple[int, int]]) -> bool:
        """Has the bot exited? Looked at only when its exit fd fired, or where none is."""
        fired = self._exit_fd is None or any(fd == self._exit_fd for fd, _ in events)
        return fired and self._owner().exited()

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

    def wake_items(self) -> list[tuple[int, int]]:
        fds = [self._fd] if self._bot is not None else [*self._strangers]
        if self._listener is not None:
            fds.append(self._listener.fileno())
        if self._exit_fd is not None:
            fds.append(self._exit_fd)
        return [(fd, select.POLLIN) for fd in fds if fd >= 0]

    @property
    def watches_exit(self) -> bool:
        return self._exit_fd is not None

    def pending(self) -> bool:
        if self._inbox.ready():
            return True
        if self._open:
            self._serve(self._poller.poll(0))
        return self._inbox.ready()

    def close(self) -> None:
        """Close the endpoint and the connections; later messages are lost. Idempotent."""
        if self._open or self._listener is not None or self._bot is not None:
            self._close_endpoint()
            if self._bot is not None:
                self._drop(self._bot, "closed")
                self._bot = None
        self._open = False
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        self._inbox.clear()
