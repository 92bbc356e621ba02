"""ZMTP 3.0 framing (https://rfc.zeromq.org/spec/23/) as both ends write it: the referee's
ROUTER (referee/transport/zmtp.py, which also reads a bot's bytes within bounds) and the
SDK's DEALER (bots/zmtp_dealer.py). The greeting of the NULL mechanism, frames, commands
and READY. No imports: a bot loads it at every start.
"""

from __future__ import annotations

GREETING_BYTES = 64
MORE, LONG, COMMAND = 1, 2, 4  # a frame's flag bits; the others are reserved (zero)

# signature (0xFF, 8 bytes of padding, 0x7F), version 3.0, mechanism NULL, not as-server
GREETING = bytes([0xFF, *bytes(8), 0x7F, 3, 0]) + b"NULL".ljust(20, b"\0") + bytes(32)


def frame(data: bytes) -> bytes:
    """`data` as the one frame of a message."""
    return _framed(0, data)


def command(name: bytes, body: bytes = b"") -> bytes:
    """A command frame: its name's length and name, then its body."""
    return _framed(COMMAND, bytes((len(name),)) + name + body)


def _framed(flags: int, data: bytes) -> bytes:
    """A frame with `flags`: its size in one byte, or in eight (LONG) from 256 on."""
    size = len(data)
    if size < 256:
        return bytes((flags, size)) + data
    return bytes((flags | LONG,)) + size.to_bytes(8, "big") + data


def ready(socket_type: bytes) -> bytes:
    """The READY command of the NULL mechanism, with our socket type as its one property."""
    return command(b"READY", b"\x0bSocket-Type" + len(socket_type).to_bytes(4, "big")
                   + socket_type)
