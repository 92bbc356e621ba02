"""The files of the games this process is writing now, so that a tournament's pool worker
ended mid-game removes them (tournaments/run/pinned_pool.py: a stop ends the games in
flight at once). A game's log is made as it starts and written when it ends, so a game
cut short would leave an empty log beside the tournament's, its live file (live.py)
would stay in live/, and its seats' stderr files beside them; the game is not stored,
and a resumed run plays it again. Each is registered before it is made: a signal in
between finds no file, which is no matter."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

_BEING_WRITTEN: set[Path] = set()


def started(path: Path) -> None:
    _BEING_WRITTEN.add(path)


def finished(path: Path) -> None:
    _BEING_WRITTEN.discard(path)


@contextmanager
def being_written(paths: Sequence[Path]) -> Iterator[None]:
    """`paths` are the game's while the block runs (its seats' stderr files)."""
    for path in paths:
        started(path)
    try:
        yield
    finally:
        for path in paths:
            finished(path)


def remove_all() -> None:
    """Remove every file still being written (from a signal handler: no lock is taken)."""
    for path in list(_BEING_WRITTEN):
        try:
            os.unlink(path)
        except OSError:
            pass
    _BEING_WRITTEN.clear()
