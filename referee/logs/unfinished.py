"""The files of the games this process is writing now, so that a tournament's pool worker
ended mid-game removes them (tournaments/run/pinned_pool.py: a stop ends the games in
flight at once). A game's log is made as it starts and written when it ends, so a game
cut short would leave an empty log beside the tournament's, and its live file (live.py)
would stay in live/; the game is not stored, and a resumed run plays it again."""

from __future__ import annotations

import os
from pathlib import Path

_BEING_WRITTEN: set[Path] = set()


def started(path: Path) -> None:
    _BEING_WRITTEN.add(path)


def finished(path: Path) -> None:
    _BEING_WRITTEN.discard(path)


def remove_all() -> None:
    """Remove every file still being written (from a signal handler: no lock is taken)."""
    for path in list(_BEING_WRITTEN):
        try:
            os.unlink(path)
        except OSError:
            pass
    _BEING_WRITTEN.clear()
