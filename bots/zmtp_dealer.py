"""The SDK's end of a ZeroMQ connection: a DEALER speaking ZMTP 3 over a plain socket.

Why not pyzmq: a sandboxed tournament starts a new bot process every few games, and at
each start importing pyzmq, starting its context's I/O thread and ending it cost a
sample bot near a quarter of its CPU (a sandboxed rage_random.py started, greeted and
closed 40 times on a quiet machine, its cgroup's CPU: a median 79 ms a start with pyzmq,
60 without; rage_heuristic.py 89 and 71); and libzmq moves every message through that
I/O thread, two more thread wake-ups a line. The referee's end speaks ZMTP itself for the same reasons
(referee/transport/zmtp.py). The referee sees a DEALER as before: ZMTP 3.0
(https://rfc.zeromq.org/spec/23/), the NULL mechanism, a READY command, one frame per
line sent. Bots that bring a ZeroMQ library of their own are not concerned.

The referee is trusted here: its frames are read as it writes them, without the bounds
the referee puts on a bot's. The C module `_socket`, not `socket`: the latter imports
selectors and builds its enums, 4 ms more at every start.
"""

from __future__ import annotations

try:
    import _socket as sockets
except ImportError:  # an interpreter without CPython's C module
    import socket as sockets  # type: ignore[no-redef]

from protocols.zmtp_frames import (
    COMMAND, GREETING, GREETING_BYTES, LONG, MORE, frame, ready,
)

READY = ready(b"DEALER")
READ_CHUNK = 1 << 16


def open_socket(endpoint: str) -> sockets.socket:
    """A stream socket connected to `ipc://PATH` or `tcp://HOST:PORT`; OSError if it
    cannot connect, ValueError for another kind of endpoint."""
    scheme, _, address = endpoint.partition("://")
    if scheme == "ipc":
        sock = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        target: str | tuple[str, int] = address
    elif scheme == "tcp":
        host, _, port = address.rpartition(":")
        sock = sockets.socket(sockets.AF_INET6 if ":" in host else sockets.AF_INET,
                              sockets.SOCK_STREAM)
        sock.setsockopt(sockets.IPPROTO_TCP, sockets.TCP_NODELAY, 1)
        target = (host.strip("[]"), int(port))
    else:
        raise ValueError(f"not an ipc:// or tcp:// endpoint: {endpoint!r}")
    try:
        sock.connect(target)
    except BaseException:
        sock.close()
        raise
    return sock


class Frames:
    """The referee's bytes in, its messages out: the greeting is skipped, commands
    (its READY) are dropped, and a message of several frames is joined."""

    __slots__ = ("_buf", "_greeted", "_parts")

    def __init__(self) -> None:
        self._buf = b""
        self._greeted = False
        self._parts: list[bytes] = []

    def next_message(self) -> bytes | None:
        """The next whole message in what was fed, or None until more comes."""
        buf, pos = self._buf, 0
        if not buf:
            return None
        if not self._greeted:
            if len(buf) < GREETING_BYTES:
                return None
            pos, self._greeted = GREETING_BYTES, True
        while len(buf) - pos >= 2:
            flags = buf[pos]
            if flags & LONG:
                if len(buf) - pos < 9:
                    break
                start = pos + 9
                end = start + int.from_bytes(buf[pos + 1:start], "big")
            else:
                start = pos + 2
                end = start + buf[pos + 1]
            if end > len(buf):
                break
            pos = end
            if flags & COMMAND:
                continue
            self._parts.append(buf[start:end])
            if not flags & MORE:
                self._buf = buf[pos:]
                message = b"".join(self._parts)
                self._parts = []
                return message
        self._buf = buf[pos:]
        return None

    @property
    def greeted(self) -> bool:
        """Has the referee's whole greeting come?"""
        return self._greeted or len(self._buf) >= GREETING_BYTES

    def feed(self, data: bytes) -> None:
        self._buf += data

    def take(self, data: bytes) -> bytes | None:
        """Feed `data`, then next_message(). The common case, `data` one whole message
        of one frame and nothing else waiting, in a few steps."""
        if not self._buf and not self._parts and self._greeted and len(data) > 1:
            if data[0] == 0 and data[1] == len(data) - 2:
                return data[2:]
            if data[0] == LONG and int.from_bytes(data[1:9], "big") == len(data) - 9:
                return data[9:]
        self._buf += data
        return self.next_message()


class DealerConnection:
    """A DEALER connected to the referee's ROUTER: the referee's frames hold one or more
    lines separated by newlines; each line we send is a frame of its own."""

    def __init__(self, endpoint: str) -> None:
        self._socket = open_socket(endpoint)
        self._frames = Frames()
        # READY waits for the referee's greeting: libzmq drops a peer whose greeting and
        # READY it reads at once (a bot author's own referee may run libzmq).
        try:
            self._socket.sendall(GREETING)
            while not self._frames.greeted:
                data = self._socket.recv(READ_CHUNK)
                if not data:
                    raise ConnectionError(f"{endpoint} closed the connection at its greeting")
                self._frames.feed(data)
            self._socket.sendall(READY)
        except BaseException:
            self._socket.close()
            raise

    def send(self, line: str) -> None:
        self._socket.sendall(frame(line.encode("utf-8")))

    def recv_lines(self) -> list[str] | None:
        """The next message's lines; None once the referee has closed the connection."""
        frames, recv = self._frames, self._socket.recv
        message = frames.next_message()
        while message is None:
            data = recv(READ_CHUNK)
            if not data:
                return None
            message = frames.take(data)
        return message.decode("utf-8").split("\n")

    def close(self) -> None:
        self._socket.close()
