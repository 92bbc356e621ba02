"""Hostile remote peers as real processes: a contestant's key in a raw pyzmq client (no
`referee connect`), doing what no relay does. Each must end as that seat's own fault,
with the referee alive and the other seats untouched."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.remote.remote_support import RANDOM, Running, connect, free_port, make_keys
from tests.remote.test_remote_games import _faults

FLOOD_PEER = Path(__file__).resolve().parent / "bots" / "flood_peer.py"
SLOW_FIRST = Path(__file__).resolve().parent / "bots" / "slow_first.sh"


@pytest.mark.parametrize("message, cuts", [("LOG flood", 1), ("note", 1), ("LOG flood", 3)])
def test_a_peer_that_floods_then_hangs_up_is_its_seats_fault(tmp_path: Path, message: str,
                                                              cuts: int) -> None:
    """A seat that floods (lines, or relay notes) through the whole game, reading
    nothing, and hangs up at the end. libzmq 4.3.5 aborts its whole process (`Assertion
    failed: !_io_error`) when a connection whose reading had stopped on a full queue
    ends while heartbeats run: this contestant killed the referee, and bob's game. A peer
    that connects again after it was cut off is cut off again, the organiser told once."""
    hall, port = tmp_path / "organiser", free_port()
    make_keys(hall, "referee", "alice")
    make_keys(tmp_path / "bob", "bob")
    (hall / "bob.pub").write_bytes((tmp_path / "bob" / "bob.pub").read_bytes())
    # Cut off again and again, the peer needs a game that lasts: a slowed local bot's.
    local, slowed = (RANDOM, {}) if cuts == 1 else (f"stdio:{SLOW_FIRST}",
                                                     {"SLOW_BOT_DELAY": "0.05"})
    game = Running(["play", "rage", "remote:alice=alice.pub", "remote:bob=bob.pub", local,
                    "--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off",
                    "--seed", "7", "--log", "game.jsonl", "--move-time", "2"], hall, slowed)
    bob = connect(tmp_path / "bob", port, "bob", RANDOM, hall / "referee.pub")
    peer = Running([str(port), "alice.key", "referee.pub", message, str(cuts)], hall,
                   script=FLOOD_PEER)
    peak = PeakMemory(game.process.pid)
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
    assert faults[0]["kind"] == "flood", faults
    assert "Assertion" not in game.err
    # What libzmq could not hand the referee fast enough waited in its queue, unbounded:
    # 240-260 MB by the end of this game (139-148 for notes) before the seat was cut off.
    assert game.err.count("seat alice: cut off") == 1, game.err
    assert f"cut off {cuts} time(s)" in peer.err, peer.err
    assert peak.megabytes() < 150, f"the referee grew to {peak.megabytes()} MB"


class PeakMemory:
    """The most memory a process had resident (VmHWM), looked at every 0.1 s until it
    ends: the kernel keeps the peak, so the last look is the process's."""

    def __init__(self, pid: int) -> None:
        self._status = Path(f"/proc/{pid}/status")
        self._peak_kb = 0
        self._looker = threading.Thread(target=self._look, daemon=True)
        self._looker.start()

    def _look(self) -> None:
        while True:
            try:
                status = self._status.read_text()
            except OSError:
                return
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    self._peak_kb = max(self._peak_kb, int(line.split()[1]))
            time.sleep(0.1)

    def megabytes(self) -> int:
        self._looker.join(5)
        return self._peak_kb // 1024
