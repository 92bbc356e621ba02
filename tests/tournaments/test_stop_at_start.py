"""Ctrl-C as a tournament's pool starts its workers: the stop is acted on, never lost.

A SIGINT that landed while the first game was submitted (the pool forking its workers)
was run by Python inside a fork's handlers, which print the KeyboardInterrupt and ignore
it: the run went on to its end and exited 0; at times the referee hung at its exit, or
ended in a RuntimeError's traceback (a review found it: 8 runs, 1 hang, 3 lost, 1
traceback). tournaments/run/held_stops.py holds the stops over the submit."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.tournaments.stopped_runs import bots_left, ended, stoppable_tournament
from tournaments.run.held_stops import stops_held


def test_a_stop_inside_the_block_is_acted_on_after_it() -> None:
    reached_the_end = False
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own
    try:
        with pytest.raises(KeyboardInterrupt):
            with stops_held():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # Python would have run the handler by now
                reached_the_end = True
        assert reached_the_end
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_an_ignored_stop_stays_ignored() -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with stops_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("delay", [0.004, 0.008, 0.012, 0.016, 0.02, 0.03])
def test_ctrl_c_as_the_pool_starts_stops_the_run(tmp_path: Path, delay: float) -> None:
    """Ctrl-C to the whole group a few ms after the db is made (the pool starting): exit
    130 with no traceback, soon, and no bot left."""
    marker = f"start-{os.getpid()}-{tmp_path.name}-{delay}"
    db = tmp_path / "s.sqlite"
    run = stoppable_tournament(db, marker)
    try:
        deadline = time.monotonic() + 30
        while not db.exists() and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(delay)
        os.killpg(run.pid, signal.SIGINT)
    finally:
        err = ended(run)
    assert run.returncode == 130 and "Traceback" not in err, err
    assert not bots_left(marker)
