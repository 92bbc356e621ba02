"""A real `referee tournament` with real bots, SIGKILLed mid-run and resumed: the tables
are exactly those of an uninterrupted run, no game lost or stored twice, no bot left."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.tournaments.db_support import stored_games, unplayed_copy, wait_for_games
from tournaments.store.results_db import ResultStore

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
        "stdio:tests/tournaments/gated_first.sh"]
TOTAL = 120  # 3 bots at tables of 3 (one table, 3 rotations) x 40 deals: a wide window to kill in
TAG = "REFEREE_KILL_TEST_TAG"  # inherited by the bots: finds them among all processes
GATE = "REFEREE_KILL_GATE"  # while this file exists the gated bot takes 1 s a move


def command(db: Path) -> list[str]:
    # Unsandboxed: the test finds the bots by a tag in their environment.
    return [sys.executable, "-m", "referee", "tournament", "rage", "--sandbox", "off",
            "--deals", "40", "--jobs", "2", "--db", str(db), "--format", "json", "--move-time", "5", *BOTS]


def start(db: Path, tag: str) -> subprocess.Popen[str]:
    # Its own session, so the kill takes its worker processes too, like a machine crash.
    # TMPDIR: the hubs' socket folders, which a killed run cannot remove, stay in tmp_path.
    return subprocess.Popen(command(db), cwd=ROOT, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, TAG: tag, "TMPDIR": str(db.parent),
                                 GATE: str(gate_of(db))})


def gate_of(db: Path) -> Path:
    return db.parent / "gate"


def hold_mid_run(db: Path) -> None:
    """Until 8 games have begun, then slow the rest to a crawl: a fast machine could
    otherwise finish all of them before the kill (CI once stored all 120)."""
    wait_for_games(db, 8)
    gate_of(db).touch()


def finish(db: Path, tag: str) -> str:
    run = start(db, tag)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    return out


def tagged_processes(tag: str) -> list[int]:
    """Live processes whose environment holds TAG=tag."""
    wanted = f"{TAG}={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:  # not a process, or gone meanwhile
            continue
        if stat.rsplit(")", 1)[1].split()[0] != "Z" and wanted in environ.split(b"\0"):
            found.append(int(entry))
    return found


def all_gone(tag: str, timeout: float = 30.0) -> bool:
    """Whether every process with the tag is gone within `timeout`: at once when all is
    well (PR_SET_PDEATHSIG), the bound only allows for a loaded machine."""
    deadline = time.monotonic() + timeout
    while tagged_processes(tag):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def records_of(db: Path) -> list[dict[str, object]]:
    with ResultStore.open_existing(db) as store:
        return [{**record.to_json(), "log_path": None} for record in store.records()]


def test_sigkill_mid_run_then_the_same_command_again_gives_the_uninterrupted_tables(
        tmp_path: Path) -> None:
    killed_db, clean_db = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite"
    tag = uuid.uuid4().hex
    run = start(killed_db, tag)
    hold_mid_run(killed_db)
    # The referee, its 2 workers and the 3 bots of at least one of them (a worker starts
    # its bots with its first game, so the other's may not be up yet): the tag finds bots.
    assert len(tagged_processes(tag)) >= 6
    os.killpg(run.pid, signal.SIGKILL)
    run.communicate(timeout=10)
    assert run.returncode == -signal.SIGKILL
    after_kill = stored_games(killed_db)
    assert 1 <= after_kill < TOTAL  # really killed mid-run
    with sqlite3.connect(killed_db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert all_gone(tag), tagged_processes(tag)  # the bots die with their worker

    gate_of(killed_db).unlink()
    unplayed_copy(killed_db, clean_db)  # the same deal secret, so the same deals
    resumed = finish(killed_db, tag)
    clean = finish(clean_db, uuid.uuid4().hex)
    assert resumed == clean
    assert records_of(killed_db) == records_of(clean_db)
    assert len(records_of(killed_db)) == TOTAL
    assert tagged_processes(tag) == []


def test_workers_and_their_bots_die_with_a_sigkilled_referee(tmp_path: Path) -> None:
    """Only the referee's own process is killed (not its session): the pool workers
    follow it (PR_SET_PDEATHSIG), and their bots follow them."""
    tag = uuid.uuid4().hex
    run = start(tmp_path / "killed.sqlite", tag)
    hold_mid_run(tmp_path / "killed.sqlite")
    assert len(tagged_processes(tag)) >= 6
    os.kill(run.pid, signal.SIGKILL)
    run.communicate(timeout=10)
    assert all_gone(tag), tagged_processes(tag)
