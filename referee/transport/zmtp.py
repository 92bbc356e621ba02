"""ZMTP 3, the ZeroMQ wire protocol, as much as the referee's end of a bot's connection needs.

Why by hand, not libzmq: libzmq moves every message through a background I/O thread, so a
decision costs the referee two extra thread wake-ups and their system calls. Measured on one
CPU with 4 echo bots (bench/zmq_floor_seats.py's loop): libzmq's side of a round trip used
18 us of CPU, this one 5.5 us, and the round trip fell from 38 to 25 us. The bots keep any
ZeroMQ library they like: what they see on the wire is a ROUTER speaking ZMTP 3.0
(https://rfc.zeromq.org/spec/23/): the NULL mechanism, a READY command, messages of frames,
and PING answered by PONG.

Everything a peer sends is parsed here within bounds, a frame at a time: a bad greeting, a
reserved flag or a frame over `max_frame` bytes is a ZmtpError, which the channel turns
into that bot's protocol fault. The codec knows nothing of sockets (zmq_channel.py); the
framing both ends write is protocols/zmtp_frames.py.
"""

from __future__ import annotations

from protocols.zmtp_frames import (
    COMMAND, GREETING, GREETING_BYTES, LONG, MORE, command, ready,
)

MAX_PARTS = 64  # frames in one message: a bot's line is one; more is a fault anyway


HANDSHAKE = GREETING + ready(b"ROUTER")  # all the referee sends before its first message


class ZmtpError(Exception):
    """The peer broke ZMTP: `str()` says how, `data` holds the bytes at fault (a start)."""

    def __init__(self, reason: str, data: bytes = b"") -> None:
        super().__init__(reason)
        self.data = data


class Reader:
    """One connection's bytes in, its messages out: each a `bytes` (one frame) or a list
    of frames (a message of several, which the channel reports). PING commands queue
    their PONG in `replies`, for the channel to send. Once the peer breaks the protocol,
    `error` says how, and nothing more is read: the messages before the fault still
    count (a HELLO may come in the same read as a broken frame)."""

    __slots__ = ("_max", "_buf", "_stage", "_parts", "_part_bytes", "replies", "error")

    def __init__(self, max_frame: int) -> None:
        self._max = max_frame
        self._buf = bytearray()
        self._stage = 0  # 0: the greeting is due, 1: the READY command, 2: messages
        self._parts: list[bytes] = []
        self._part_bytes = 0
        self.replies: list[bytes] = []
        self.error: ZmtpError | None = None

    def feed(self, data: bytes) -> list[bytes | list[bytes]]:
        """The messages completed by `data`, up to a break of the protocol (`error`)."""
        if self.error is not None:
            return []
        # The common case, a whole short one-frame message and nothing else, in a few steps.
        if (self._stage == 2 and not self._buf and not self._parts and len(data) > 1
                and data[0] == 0 and data[1] == len(data) - 2):
            return [data[2:]]
        buf = self._buf
        buf += data
        messages: list[bytes | list[bytes]] = []
        pos = 0
        try:
            while True:
                if self._stage == 0:
                    if not self._greeting_ok(buf):
                        break
                    pos, self._stage = GREETING_BYTES, 1
                    continue
                body_at = self._frame_at(buf, pos)
                if body_at is None:
                    break
                flags, start, end = body_at
                body = bytes(buf[start:end])
                pos = end
                self._take(flags, body, messages)
        except ZmtpError as error:
            self.error = error
            buf.clear()
            return messages
        del buf[:pos]
        return messages

    def _greeting_ok(self, buf: bytearray) -> bool:
        """Is the whole greeting there (and sound)? A wrong start fails at once."""
        if (buf and buf[0] != 0xFF) or (len(buf) > 9 and buf[9] & 1 != 1):
            raise ZmtpError("not a ZMTP 3 greeting (is this a ZeroMQ socket?)", bytes(buf[:64]))
        if len(buf) > 10 and buf[10] < 3:
            raise ZmtpError(f"ZMTP version {buf[10]} (the referee speaks 3)", bytes(buf[:64]))
        if len(buf) < GREETING_BYTES:
            return False
        mechanism = bytes(buf[12:32]).rstrip(b"\0")
        if mechanism != b"NULL":
            raise ZmtpError(f"security mechanism {mechanism!r} (the referee speaks NULL)",
                            bytes(buf[:64]))
        return True

    def _frame_at(self, buf: bytearray, pos: int) -> tuple[int, int, int] | None:
        """(flags, where the body starts, where it ends) of a whole frame at `pos`, or
        None if it has not all come; ZmtpError for a broken or oversized one."""
        if len(buf) - pos < 2:
            return None
        flags = buf[pos]
        if flags & ~(MORE | LONG | COMMAND):
            raise ZmtpError(f"reserved frame flags {flags:#04x}", bytes(buf[pos:pos + 200]))
        if flags & LONG:
            if len(buf) - pos < 9:
                return None
            size, start = int.from_bytes(buf[pos + 1:pos + 9], "big"), pos + 9
        else:
            size, start = buf[pos + 1], pos + 2
        if size > self._max:
            raise ZmtpError(f"a frame of {size} bytes (at most {self._max})",
                            bytes(buf[start:start + 200]))
        end = start + size
        return None if len(buf) < end else (flags, start, end)

    def _take(self, flags: int, body: bytes, messages: list[bytes | list[bytes]]) -> None:
        if flags & COMMAND:
            self._command(flags, body)
        elif self._stage == 1:
            raise ZmtpError("a message before the READY command", body[:200])
        elif flags & MORE or self._parts:
            self._part(flags, body, messages)
        else:
            messages.append(body)

    def _part(self, flags: int, body: bytes, messages: list[bytes | list[bytes]]) -> None:
        """One frame of a message of several: bounded in count and bytes."""
        self._parts.append(body)
        self._part_bytes += len(body)
        if len(self._parts) > MAX_PARTS or self._part_bytes > self._max:
            raise ZmtpError(f"a message of more than {MAX_PARTS} frames or {self._max} bytes",
                            b"|".join(self._parts)[:200])
        if not flags & MORE:
            messages.append(self._parts)
            self._parts, self._part_bytes = [], 0

    def _command(self, flags: int, body: bytes) -> None:
        name = body[1:1 + body[0]] if body else b""
        if flags & MORE or not body or len(name) != body[0]:
            raise ZmtpError("a broken command frame", body[:200])
        if self._stage == 1:
            if name != b"READY":
                raise ZmtpError(f"{name!r} where the READY command was due", body[:200])
            self._stage = 2
        elif name == b"PING" and len(body) >= 7:  # name, a TTL of 2 bytes, then a context
            self.replies.append(command(b"PONG", body[7:7 + 16]))
        # Any other command (PONG, SUBSCRIBE, ...) means nothing to a ROUTER: ignored.
