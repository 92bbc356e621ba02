"""The `--cluster` probe reads a stranger's bytes (tournaments/run/cluster_probe.py): whatever
they are, it takes a Dask handshake or says no in one ConfigError, never another
exception, and never reads more than it allows."""

from __future__ import annotations

import socket
import struct
import time

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import example, given, settings, strategies as st

from tournaments.run.cluster_probe import NotDask, _greeting


def greeting_of(data: bytes) -> bytes:
    """The probe's reading of a peer that sends `data`, then closes."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(data)
        theirs.shutdown(socket.SHUT_WR)
        return _greeting(ours, time.monotonic() + 5, "tcp://peer:1")


def handshake(message: object) -> bytes:
    """A message in Dask's framing: its size, 1 frame, the frame's size, the frame."""
    frame = msgpack.packb(message)
    return struct.pack("<3Q", 16 + len(frame), 1, len(frame)) + frame


def test_a_dask_handshake_is_taken_whole() -> None:
    data = handshake({"compression": None, "python": [3, 11, 7], "pickle-protocol": 5})
    assert greeting_of(data + b"more") == data


NOT_PYTHON = st.text().filter(lambda key: key != "python")  # Dask's handshake names it
OTHER_MESSAGES = (st.integers(-2**63, 2**63 - 1) | st.text()
                  | st.dictionaries(NOT_PYTHON, st.none()))


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=200) | st.builds(handshake, OTHER_MESSAGES))
@example(data=handshake({"pythons": None, "compression": None}))
@example(data=b"SSH-2.0-OpenSSH_9.2\r\n" + b"\xff" * 64)
@example(data=struct.pack("<2Q", 16, 2**63))
def test_any_other_bytes_are_refused_in_one_error(data: bytes) -> None:
    try:
        greeting_of(data)
    except (NotDask, ConnectionError):
        return
    pytest.fail("bytes that are no Dask handshake were taken")
