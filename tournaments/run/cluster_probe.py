"""Is the `--cluster tcp://HOST:PORT` peer a Dask scheduler? Asked before Dask's client
is made, in PROBE_SECONDS at most.

Dask's client trusts its peer: at an SSH server's port it read the greeting's first
bytes as a message length and ended in a MemoryError and a 72-line traceback; at an HTTP
server's (the dashboard's 8787 typed for the scheduler's 8786) it waited silently for
minutes, as the server waited for a request it never sent. A Dask server greets first:
as soon as a connection is accepted it writes its handshake, one message in Dask's
framing (distributed/comm/tcp.py): the message's size (8 bytes, little-endian), the
number of frames and each frame's size (8 bytes each), then the frames, the first a
msgpack map that names the peer's `python`. So the probe connects, reads that much,
within PROBE_SECONDS and at most _MOST_BYTES, and checks it; it then sends the same
greeting back, so that the scheduler's handshake completes and it logs no broken one.
A `tls://` address is only connected to: its greeting is encrypted.
"""

from __future__ import annotations

import socket
import struct
import time
from urllib.parse import urlsplit

from referee.errors import ConfigError

PROBE_SECONDS = 5.0  # to connect and be greeted: a scheduler greets in milliseconds
_MOST_BYTES = 1 << 16  # a handshake is under 100 bytes
_WORD = struct.Struct("<Q")


class NotDask(ConfigError):
    """The peer is no Dask scheduler (or cannot be reached)."""


def probe_scheduler(address: str, seconds: float = PROBE_SECONDS) -> None:
    """NotDask, one line naming `address`, unless a Dask server greets there."""
    where = urlsplit(address)
    try:
        host, port = where.hostname, where.port
    except ValueError:  # a port that is no number, or out of range
        host = port = None
    if host is None or port is None:
        raise NotDask(f"--cluster {address}: give the scheduler's address as "
                      "tcp://HOST:PORT")
    deadline = time.monotonic() + seconds
    try:
        with socket.create_connection((host, port), timeout=seconds) as conn:
            if where.scheme == "tcp":
                conn.sendall(_greeting(conn, deadline, address))
    except socket.timeout:
        raise NotDask(f"--cluster {address}: no Dask scheduler greeted there within "
                      f"{seconds:g} s (is it another server's port? Dask's scheduler "
                      "listens on 8786 by default, its dashboard on 8787)") from None
    except OSError as error:
        raise NotDask(f"--cluster {address}: cannot reach the Dask scheduler: "
                      f"{error.strerror or error}") from None


def _greeting(conn: socket.socket, deadline: float, address: str) -> bytes:
    """The peer's first message, checked to be a Dask handshake: NotDask if not."""
    head = _read(conn, _WORD.size, deadline)
    (size,) = _WORD.unpack(head)
    if not 2 * _WORD.size <= size <= _MOST_BYTES:
        raise _not_dask(address, head)
    body = _read(conn, size, deadline)
    (frames,) = _WORD.unpack_from(body)
    if not 1 <= frames <= (size - _WORD.size) // _WORD.size - 1:
        raise _not_dask(address, head + body)
    sizes = struct.unpack_from(f"<{frames}Q", body, _WORD.size)
    start = _WORD.size * (1 + frames)
    if start + sum(sizes) != size or not _names_python(body[start:start + sizes[0]]):
        raise _not_dask(address, head + body)
    return head + body


def _names_python(frame: bytes) -> bool:
    """Whether `frame` is a msgpack map with a `python` key, as Dask's handshake is."""
    import msgpack  # type: ignore[import-untyped]  # Dask's: there with any cluster
    try:
        message = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        return False
    return isinstance(message, dict) and "python" in message


def _read(conn: socket.socket, size: int, deadline: float) -> bytes:
    """Exactly `size` bytes before `deadline`: socket.timeout past it, ConnectionError
    if the peer closes first."""
    data = bytearray()
    while len(data) < size:
        conn.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    if len(data) < size:
        raise ConnectionError(f"the peer closed the connection after {len(data)} bytes")
    return bytes(data)


def _not_dask(address: str, seen: bytes) -> NotDask:
    start = seen[:24].decode("ascii", "backslashreplace")
    return NotDask(f"--cluster {address}: not a Dask scheduler (it began with "
                   f"{start!r}; is it another server's port?)")
