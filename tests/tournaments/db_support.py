"""Results dbs for tests that compare two runs of one tournament."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path


def unplayed_copy(db: Path, to: Path) -> None:
    """A copy of a results db without its games: the same tournament, deal secret
    included, not yet played. (Two fresh dbs have two secrets, so other deals.)"""
    shutil.copyfile(db, to)
    with closing(sqlite3.connect(to)) as conn, conn:
        conn.execute("DELETE FROM games")
