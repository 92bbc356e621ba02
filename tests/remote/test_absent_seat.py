"""Issue 30: a remote seat whose contestant never connects. A tournament waited the whole
start-up time for it in every game; now it waits once, and later games fault that seat
at once, saying why, until its relay connects: from then on it plays. Real processes:
`referee tournament` listening on loopback, `referee connect` in the contestant's folder."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.remote.remote_support import (
    BOTS, RANDOM, ROOT, WAIT, Running, connect, free_port,
)
from tests.remote.test_remote_games import _organiser
from tournaments.output.bot_report import REMOTE_STDERR

HELD = Path(__file__).resolve().parent / "bots" / "held.sh"
FIRST = f"stdio:{BOTS / 'rage_first.sh'}"
NOT_WAITED = ("no HELLO: not waited for, as its relay (`referee connect` with its key) has "
              "not connected since it missed its start-up in game rage/d01/t01/r0")


def _tournament(hall: Path, port: int, startup: float, *bots: str) -> Running:
    return Running(["tournament", "rage", "remote:alice=alice.pub", *bots,
                    "--listen", f"tcp://127.0.0.1:{port}", "--sandbox", "off",
                    "--db", "results.sqlite", "--startup-time", str(startup)], hall)


def _results(hall: Path, *args: str) -> dict[str, dict[str, object]]:
    """`referee results results.sqlite ARGS --format json`: its tables by name."""
    done = subprocess.run([sys.executable, "-m", "referee", "results", "results.sqlite",
                           *args, "--format", "json"], cwd=hall, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout)["tables"])


def _rows(table: dict[str, object]) -> list[dict[str, object]]:
    rows = table["rows"]
    assert isinstance(rows, list)
    return rows


def test_an_absent_seat_is_waited_for_once_in_a_tournament(tmp_path: Path) -> None:
    """9 games, a start-up time of 3 s: waiting in each would take 27 s at least (40 s
    with the start-up stretched for three bots booting on two cores); it waits once.
    The faults' details show which games waited (timed, bench/absent_seat.py), so
    nothing here rests on the clock of a busy machine."""
    hall, port, startup = _organiser(tmp_path), free_port(), 3.0
    tournament = _tournament(hall, port, startup, FIRST, RANDOM, "--deals", "3")
    try:
        assert tournament.finish() == 0, tournament.err
    finally:
        tournament.stop()
    games = 9
    faults = _rows(_results(hall, "--faults")["faults"])
    assert [(row["bot"], row["kind"]) for row in faults] == [("alice", "startup")] * games
    first, *later = [str(row["detail"]) for row in faults]
    assert first.startswith("no HELLO within") and "no `referee connect` with its key " \
        "is connected" in first, first
    assert all(detail.startswith(NOT_WAITED) for detail in later), later
    told = [line for line in tournament.lines if "no relay connected" in line]
    assert told == ["referee: remote: seat alice: no relay connected by the end of its "
                    "start-up (in game rage/d01/t01/r0); its later games fault at once, without "
                    "waiting, until one connects"], tournament.err  # once, not per game
    # Its stderr is where its bot ran, not "none" (a bot that wrote nothing).
    assert {row["stderr"] for row in faults} == {REMOTE_STDERR}
    page = _results(hall, "--bot", "alice")
    assert {row["stderr"] for row in _rows(page["bot_games"])} == {REMOTE_STDERR}
    assert len(_rows(page["fault_summary"])) == 2  # missed, then not waited for


def test_a_relay_that_connects_late_plays_from_the_next_game(tmp_path: Path) -> None:
    """Alice misses game 1's start-up and is not waited for in game 2; her relay connects
    while game 2 is played (its other bots hold it until then): she plays game 3."""
    hall, port = _organiser(tmp_path), free_port()
    hold = tmp_path / "hold"
    for game in (1, 2):
        Path(f"{hold}{game}").touch()
    held = f"stdio:{HELD} {hold}"
    tournament = _tournament(hall, port, 1.0, held, held, "--move-time", "60")
    alice: Running | None = None
    try:
        tournament.wait_for("seat alice: no relay connected")  # game 1: it waited
        Path(f"{hold}1").unlink()
        _wait_for_file(Path(f"{hold}2.reached"))  # game 2 is under way, alice faulted
        alice = connect(tmp_path / "alice", port, "alice", FIRST, hall / "referee.pub")
        alice.wait_for("connected: the referee accepted this key")
        Path(f"{hold}2").unlink()
        assert tournament.finish() == 0, tournament.err
        assert alice.finish() == 0, alice.err
    finally:
        for game in (1, 2):
            Path(f"{hold}{game}").unlink(missing_ok=True)
        tournament.stop()
        if alice is not None:
            alice.stop()
    page = _results(hall, "--bot", "alice")
    games = _rows(page["bot_games"])
    assert [row["game"] for row in games] == [f"rage/d01/t01/r{n}" for n in range(3)]
    assert [row["score"] is None for row in games] == [True, True, False], games
    faults = _rows(_results(hall, "--faults")["faults"])
    assert [str(row["detail"])[:16] for row in faults] == ["no HELLO within ",
                                                           "no HELLO: not wa"], faults
    assert "seated as alice" in alice.err and "seat alice: connected" in tournament.err


def _wait_for_file(path: Path) -> None:
    end = time.monotonic() + WAIT
    while not path.exists():
        assert time.monotonic() < end, f"no {path} after {WAIT:.0f} s"
        time.sleep(0.02)
