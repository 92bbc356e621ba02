"""One run at a time on a results db: a second `referee tournament` on a db in use is
refused at once ("in use by pid N"), instead of both sitting at "51/840 ETA ?" while
SQLite makes each wait for the other.

The lock is a POSIX record lock (fcntl.lockf) on a file beside the db (`<db>.lock`, in
the db's folder, which no bot's sandbox shows): the kernel drops it when the process
holding it ends, however it ends, so a run killed with SIGKILL leaves no stale lock. A
POSIX lock, not flock's: it belongs to the process and no child forked from it, so pool
workers that outlive a run (or its failure) do not keep holding it. The file holds the pid of the
run that holds it, to be named; it stays, empty of meaning, after the run.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from referee.errors import ConfigError


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


@contextmanager
def run_lock(db_path: Path, elsewhere: str = ", or give another --db") -> Iterator[None]:
    """Hold the db's run lock while the block runs; ConfigError if another process holds
    it, ending with `elsewhere` (how else to run, for a command that can). Where the lock cannot be made (a folder that cannot be written), the block runs
    without it: opening the db says what is wrong, as it did before."""
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)  # as the db's opening would
        fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EACCES, errno.EAGAIN):
                raise
            raise ConfigError(f"{db_path} is in use by pid {_holder(fd)}: another run is "
                              "playing its games; wait for it to end (the same command "
                              f"then resumes){elsewhere}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # and the lock with it


def _holder(fd: int) -> str:
    """The pid the holder wrote, or words for a holder that has not written it yet."""
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return text if text.isdigit() else "unknown (it is starting)"
