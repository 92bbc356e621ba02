"""Results dbs and game logs for tests that run, kill, resume and compare tournaments."""

from __future__ import annotations

import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from tournaments.store.results_db import logs_dir


def unplayed_copy(db: Path, to: Path) -> None:
    """A copy of a results db without its games: the same tournament, deal secret
    included, not yet played. (Two fresh dbs have two secrets, so other deals.)"""
    shutil.copyfile(db, to)
    with closing(sqlite3.connect(to)) as conn, conn:
        conn.execute("DELETE FROM games")


def stored_games(db: Path) -> int:
    """Games committed to a results db so far; 0 while the run has not made it yet."""
    if not db.exists():
        return 0
    try:
        with closing(sqlite3.connect(db, timeout=5)) as conn:
            return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):  # the run is creating it
            return 0
        raise


def wait_for_games(db: Path, started: int, timeout: float = 60.0) -> None:
    """Until `started` games of a run have begun, by their log files: a game's log opens
    when it starts. (Reading the db while the run commits can wait on SQLite's lock for
    seconds, long enough for a short run to end unseen.)"""
    deadline = time.monotonic() + timeout
    while (begun := len(list(logs_dir(db).glob("*.jsonl.gz")))) < started:
        assert time.monotonic() < deadline, f"{begun} of {started} games began in {timeout} s"
        time.sleep(0.01)
