"""The referee's own ZMTP 3 end (referee/transport/zmtp.py): the codec, fuzzed, and real
processes that break the protocol on the wire, each its own protocol fault."""

from __future__ import annotations

import sys
import time

import pytest
from hypothesis import given, settings, strategies as st

from referee.errors import BotCrashed, ProtocolError
from tests.referee.fault_bots.support import argv_command
from referee.transport.zmq_channel import MAX_FRAME_BYTES, ZmqChannel, ZmqHub
from protocols.zmtp_frames import COMMAND, GREETING, LONG, MORE, command, frame, ready
from referee.transport.zmtp import HANDSHAKE, Reader, ZmtpError
from tests.referee.conftest import Spawn

TOKEN = "t" * 32
PEER_START = GREETING + ready(b"DEALER")  # what a bot's library sends first


def fed(data: bytes, cuts: list[int] | None = None, max_frame: int = 1 << 14
        ) -> tuple[list[bytes | list[bytes]], Reader]:
    """The messages of `data` fed to a new reader in pieces cut at `cuts`; its error
    raised, if it met one."""
    reader, messages, at = Reader(max_frame), [], 0
    for cut in sorted(set(cuts or [])) + [len(data)]:
        messages += reader.feed(data[at:cut])
        at = cut
    if reader.error is not None:
        raise reader.error
    return messages, reader


def test_our_greeting_is_zmtp_3_with_the_null_mechanism() -> None:
    assert len(GREETING) == 64 and GREETING[0] == 0xFF and GREETING[9] == 0x7F
    assert GREETING[10:12] == bytes((3, 0)) and GREETING[12:16] == b"NULL"
    assert HANDSHAKE.startswith(GREETING) and b"Socket-Type" in HANDSHAKE
    assert b"ROUTER" in HANDSHAKE


def test_frames_short_and_long_come_back_as_messages() -> None:
    long = b"x" * 300
    messages, _ = fed(PEER_START + frame(b"HELLO 2 x y 1") + frame(long) + frame(b""))
    assert messages == [b"HELLO 2 x y 1", long, b""]
    assert frame(long)[0] == LONG and frame(b"r3") == b"\x00\x02r3"


@given(st.lists(st.binary(max_size=600), max_size=6), st.lists(st.integers(0, 4000)))
@settings(max_examples=150, deadline=None)
def test_any_cutting_of_the_stream_gives_the_same_messages(
        bodies: list[bytes], cuts: list[int]) -> None:
    data = PEER_START + b"".join(frame(body) for body in bodies)
    messages, _ = fed(data, [cut % (len(data) + 1) for cut in cuts])
    assert messages == bodies


def test_a_message_of_several_frames_comes_as_its_list_of_frames() -> None:
    parts = bytes((MORE, 0)) + bytes((MORE, 2)) + b"ab" + frame(b"c")
    messages, _ = fed(PEER_START + parts + frame(b"d"))
    assert messages == [[b"", b"ab", b"c"], b"d"]


def test_a_ping_is_answered_with_a_pong_carrying_its_context() -> None:
    ping = command(b"PING", b"\x00\x0a" + b"ctx")
    messages, reader = fed(PEER_START + ping + frame(b"r3"))
    assert messages == [b"r3"]
    assert reader.replies == [command(b"PONG", b"ctx")]


@pytest.mark.parametrize(("data", "why"), [
    (b"GET / HTTP/1.1\r\n\r\n", "not a ZMTP 3 greeting"),
    (GREETING[:10] + bytes((2,)) + GREETING[11:], "ZMTP version 2"),
    (GREETING[:12] + b"CURVE".ljust(20, b"\0") + GREETING[32:], "mechanism b'CURVE'"),
    (GREETING + frame(b"early"), "before the READY command"),
    (GREETING + command(b"HELLO"), "where the READY command was due"),
    (PEER_START + b"\x08\x01x", "reserved frame flags"),
    (PEER_START + bytes((COMMAND | MORE, 1, 0)), "broken command frame"),
    (PEER_START + bytes((COMMAND, 0)), "broken command frame"),
    (PEER_START + bytes((LONG,)) + (1 << 40).to_bytes(8, "big"), "a frame of 1099511627776 bytes"),
    (PEER_START + (bytes((MORE, 1)) + b"x") * 70, "more than 64 frames"),
])
def test_a_broken_stream_is_a_zmtp_error_naming_the_fault(data: bytes, why: str) -> None:
    with pytest.raises(ZmtpError, match=why.replace("(", r"\(")):
        fed(data)


def test_an_oversized_frame_is_refused_from_its_header_before_its_body_comes() -> None:
    reader = Reader(1000)
    assert reader.feed(PEER_START + frame(b"ok") + bytes((LONG,)) + (1001).to_bytes(8, "big")
                       ) == [b"ok"], "what came before the fault still counts"
    assert reader.error is not None and "a frame of 1001 bytes" in str(reader.error)
    assert reader.feed(frame(b"later")) == [], "nothing after it"


@given(st.binary(max_size=3000), st.lists(st.integers(0, 3000), max_size=8))
@settings(max_examples=300, deadline=None)
def test_any_bytes_give_messages_or_a_zmtp_error_and_nothing_else(
        data: bytes, cuts: list[int]) -> None:
    for start in (b"", PEER_START):
        try:
            messages, reader = fed(start + data, cuts, max_frame=512)
        except ZmtpError as error:
            assert str(error) and len(error.data) <= 200 + 64
            continue
        for message in messages:
            parts = [message] if isinstance(message, bytes) else message
            assert all(len(part) <= 512 for part in parts)
        assert len(reader._buf) <= 512 + 9 + GREETING_SLACK


GREETING_SLACK = 64  # an unfinished greeting waits in the buffer too


# --- real processes on the wire --------------------------------------------------------

RAW_BOT = r'''
import socket, sys, time
path, token, tail = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
s = socket.socket(socket.AF_UNIX)
s.connect(path)
greeting = bytes([0xFF] + [0] * 8 + [0x7F, 3, 0]) + b"NULL".ljust(20, b"\0") + bytes(32)
body = b"\x05READY\x0bSocket-Type" + (6).to_bytes(4, "big") + b"DEALER"
hello = ("HELLO 2 %s raw 1" % token).encode()
s.sendall(greeting + bytes([4, len(body)]) + body + bytes([0, len(hello)]) + hello)
s.recv(4096)
s.sendall(tail)
if not tail:
    s.close()  # and stay alive: the connection ends, not the process
time.sleep(30)
'''


def raw_bot(hub: ZmqHub, spawn: Spawn, tail: bytes) -> ZmqChannel:
    """The channel of a RAW_BOT that says HELLO, then sends `tail` (nothing: it closes
    its connection)."""
    channel = hub.channel(TOKEN)
    path = channel.endpoint.removeprefix("ipc://")
    channel.attach(spawn(argv_command(sys.executable, "-c", RAW_BOT, path, TOKEN, tail.hex())))
    return channel


@pytest.mark.parametrize(("tail", "why"), [
    (b"\x08\x02r3", "reserved frame flags"),
    (bytes((LONG,)) + (MAX_FRAME_BYTES + 1).to_bytes(8, "big"), "a frame of"),
])
def test_a_bot_breaking_the_wire_protocol_is_its_protocol_error(
        hub: ZmqHub, spawn: Spawn, tail: bytes, why: str) -> None:
    channel = raw_bot(hub, spawn, tail)
    assert channel.recv(time.monotonic() + 10) == f"HELLO 2 {TOKEN} raw 1"
    with pytest.raises(ProtocolError, match=f"ZeroMQ framing: {why}"):
        channel.recv(time.monotonic() + 10)
    with pytest.raises(BotCrashed, match="broke the ZeroMQ protocol"):  # nothing more from it
        channel.recv(time.monotonic() + 10)


def test_a_bot_that_closes_its_connection_is_a_crash_reported_at_once(
        hub: ZmqHub, spawn: Spawn) -> None:
    channel = raw_bot(hub, spawn, b"")
    start = time.monotonic()
    assert channel.recv(start + 10).startswith("HELLO")
    with pytest.raises(BotCrashed, match="closed its ZeroMQ connection"):
        channel.recv(start + 60)
    assert time.monotonic() - start < 30, "at once, not at the deadline"

