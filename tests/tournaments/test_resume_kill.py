"""A real SIGKILL in the middle of a run, then a resume: nothing lost, nothing twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from referee.games.rage.definition import RAGE
from tournaments.output.json_doc import tables_json
from tournaments.output.text import text_report
from tournaments.output.tables import build_tables
from tournaments.schedule.fixtures import fixture_ids
from tournaments.store.results_db import ResultStore
from tests.tournaments.db_support import stored_games, unplayed_copy
from tests.tournaments.driver import DRIVER_SPEC

ROOT = Path(__file__).parents[2]
TOTAL = len(fixture_ids(DRIVER_SPEC))


def start_driver(db: Path, delay: float) -> subprocess.Popen[bytes]:
    # Its own session, so the kill takes the worker processes too, like a machine crash.
    return subprocess.Popen([sys.executable, "-m", "tests.tournaments.driver", str(db),
                             str(delay)], cwd=ROOT, start_new_session=True)


def tables_of(db: Path) -> tuple[str, dict[str, object]]:
    with ResultStore.open_existing(db) as store:
        records = store.records()
    assert len(records) == TOTAL == len({record.fixture_id for record in records})
    tables = build_tables(RAGE, records, DRIVER_SPEC.bot_names)
    return text_report(tables, "text", None), tables_json(tables)


def test_sigkill_mid_run_then_resume_gives_the_uninterrupted_tables(tmp_path: Path) -> None:
    killed_db, clean_db = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite"
    driver = start_driver(killed_db, delay=0.2)  # ~4 s: the kill lands mid-run, even under load
    deadline = time.monotonic() + 30
    while stored_games(killed_db) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(driver.pid, signal.SIGKILL)
    assert driver.wait(timeout=10) == -signal.SIGKILL
    after_kill = stored_games(killed_db)
    assert 6 <= after_kill < TOTAL  # really killed mid-run

    with sqlite3.connect(killed_db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    unplayed_copy(killed_db, clean_db)  # the same deal secret, so the same deals
    resumed = start_driver(killed_db, delay=0.0)
    assert resumed.wait(timeout=60) == 0
    clean = start_driver(clean_db, delay=0.0)
    assert clean.wait(timeout=60) == 0

    assert tables_of(killed_db) == tables_of(clean_db)
