"""Hostile remote peers as real processes: a contestant's key in a raw pyzmq client (no
`referee connect`), doing what no relay does. Each must end as that seat's own fault,
with the referee alive and the other seats untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.remote.remote_support import RANDOM, Running, connect, free_port, make_keys
from tests.remote.test_remote_games import _faults

FLOOD_PEER = Path(__file__).resolve().parent / "bots" / "flood_peer.py"


@pytest.mark.parametrize("message", ["LOG flood", "note"])
def test_a_peer_that_floods_then_hangs_up_is_its_seats_fault(tmp_path: Path,
                                                              message: str) -> None:
    """A seat that floods (lines, or relay notes) through the whole game, reading
    nothing, and hangs up at the end. libzmq 4.3.5 aborts its whole process (`Assertion
    failed: !_io_error`) when a connection whose reading had stopped on a full queue
    ends while heartbeats run: this contestant killed the referee, and bob's game."""
    hall, port = tmp_path / "organiser", free_port()
    make_keys(hall, "referee", "alice")
    make_keys(tmp_path / "bob", "bob")
    (hall / "bob.pub").write_bytes((tmp_path / "bob" / "bob.pub").read_bytes())
    game = Running(["play", "rage", "remote:alice=alice.pub", "remote:bob=bob.pub", RANDOM,
                    "--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off",
                    "--seed", "7", "--log", "game.jsonl", "--move-time", "2"], hall)
    bob = connect(tmp_path / "bob", port, "bob", RANDOM, hall / "referee.pub")
    peer = Running([str(port), "alice.key", "referee.pub", message], hall,
                   script=FLOOD_PEER)
    try:
        assert game.finish() == 0, game.err
        # It ends either way: told END, or after its own limit. Whether the END reached
        # a peer busy flooding is not the point (a loaded CI once saw it miss it).
        assert peer.finish() == 0 and "flooded" in peer.err, peer.err
        assert bob.finish() == 0, bob.err
    finally:
        for process in (game, bob, peer):
            process.stop()
    faults = _faults(hall / "game.jsonl")
    assert [f["seat"] for f in faults] == [0], faults
    assert "Assertion" not in game.err
