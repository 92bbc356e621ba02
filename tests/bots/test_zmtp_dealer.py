"""bots/zmtp_dealer.py: the SDK's DEALER, spoken without a ZeroMQ library, against
libzmq's own ROUTER and the referee's reader, and its parsing cut at every byte."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.zmtp_dealer import READY, DealerConnection, Frames, open_socket
from protocols.zmtp_frames import COMMAND, GREETING, LONG, MORE, frame
from referee.transport.zmtp import HANDSHAKE, Reader

WAIT_MS = 5000


@pytest.fixture
def router(tmp_path: Path) -> Iterator[tuple[zmq.Socket[bytes], str]]:
    """libzmq's ROUTER on an ipc endpoint, as a bot author's referee would have it."""
    context = zmq.Context()
    socket = context.socket(zmq.ROUTER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, WAIT_MS)
    endpoint = f"ipc://{tmp_path}/bot"
    socket.bind(endpoint)
    try:
        yield socket, endpoint
    finally:
        socket.close()
        context.term()


def test_libzmq_sees_a_dealer_and_its_lines(router: tuple[zmq.Socket[bytes], str]) -> None:
    socket, endpoint = router
    dealer = DealerConnection(endpoint)
    try:
        dealer.send("HELLO 2 token bot 1.0")
        dealer.send("x" * 300)  # a long frame
        peer, hello = socket.recv_multipart()
        assert hello == b"HELLO 2 token bot 1.0"
        assert socket.recv_multipart() == [peer, b"x" * 300]
        socket.send_multipart([peer, b"GAME rage\nHAND r1"])
        socket.send_multipart([peer, ("y" * 299 + "\nBID? 0").encode()])
        socket.send_multipart([peer, b"two ", b"frames"])  # one message of two
        assert dealer.recv_lines() == ["GAME rage", "HAND r1"]
        assert dealer.recv_lines() == ["y" * 299, "BID? 0"]
        assert dealer.recv_lines() == ["two frames"]
    finally:
        dealer.close()


def test_the_referee_going_away_ends_the_lines(
        router: tuple[zmq.Socket[bytes], str]) -> None:
    socket, endpoint = router
    dealer = DealerConnection(endpoint)
    dealer.send("HELLO 2 token bot 1.0")
    socket.recv_multipart()
    socket.close()  # as a referee that exits: no more lines, not a hang
    try:
        assert dealer.recv_lines() is None
    finally:
        dealer.close()


def test_the_referees_reader_takes_what_the_dealer_writes() -> None:
    reader = Reader(max_frame=1 << 16)
    lines = [b"HELLO 2 t b 1", b"", b"z" * 255, b"z" * 256, b"z" * 5000]
    messages = reader.feed(GREETING + READY + b"".join(frame(line) for line in lines))
    assert reader.error is None and messages == lines


def test_an_endpoint_of_another_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="ipc:// or tcp://"):
        open_socket("inproc://referee")
    with pytest.raises(OSError):
        open_socket("ipc:///nonexistent/folder/bot")


def command_frame(name: bytes) -> bytes:
    return bytes((COMMAND, 1 + len(name), len(name))) + name


messages = st.lists(st.lists(st.binary(max_size=600), min_size=1, max_size=3), max_size=6)


def framed(message: list[bytes]) -> bytes:
    """A message of one or more frames: every frame but the last has MORE."""
    out = b""
    for number, part in enumerate(message):
        more = MORE if number < len(message) - 1 else 0
        size = len(part)
        out += (bytes((more, size)) if size < 256
                else bytes((more | LONG,)) + size.to_bytes(8, "big")) + part
    return out


@settings(max_examples=80, deadline=None)
@given(messages, st.lists(st.integers(1, 700), min_size=1, max_size=20))
def test_frames_come_out_whole_however_the_bytes_are_cut(
        sent: list[list[bytes]], cuts: list[int]) -> None:
    """The referee's greeting and READY (HANDSHAKE), a PING command between messages,
    and messages of one or several frames, fed in pieces of every size."""
    stream = HANDSHAKE + command_frame(b"PING") + b"".join(framed(m) for m in sent)
    frames, got, at = Frames(), [], 0
    pieces = iter(cuts * (len(stream) // sum(cuts) + 1))
    while at < len(stream):
        size = next(pieces)
        message = frames.take(stream[at:at + size])
        at += size
        while message is not None:
            got.append(message)
            message = frames.next_message()
    assert got == [b"".join(m) for m in sent]
