"""`referee tournament --restart`: move a results db and its game logs aside, into a
backup folder beside it, and so start over without losing the old results.

The backup is a folder `<db stem>.bak-YYYYmmdd-HHMMSS/` holding the db under its own name
and its logs folder under its own name: a record's log path is relative to the db's
folder (tournaments/run/fixture_play.py), so `referee results` and `referee rerun` work on the
backup as on the original. An existing folder is never reused (a second restart within
the same second gets `-2`, then `-3`...), so no backup overwrites another.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from referee.errors import ConfigError
from tournaments.store.results_db import check_results_db, logs_dir


def back_up(db_path: Path, now: datetime | None = None) -> Path | None:
    """Move the db and its logs folder into a new backup folder and return that folder;
    None if there is no db. ConfigError if `db_path` is not a results db, is a symbolic
    link, or cannot be moved."""
    if not db_path.exists():
        return None
    if db_path.is_symlink():
        # Moving the link would leave its target in place and, for a relative link, a
        # backup that points nowhere; moving the target would part it from its logs.
        raise ConfigError(f"--restart does not move {db_path} aside: it is a symbolic link "
                          f"(to {os.readlink(db_path)}); move the results aside yourself")
    check_results_db(db_path)  # opening it rolls back a hot journal: no journal is left
    try:
        folder = _new_folder(db_path, now or datetime.now())
        for path in (db_path, logs_dir(db_path)):
            if path.exists():
                os.rename(path, folder / path.name)
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        raise ConfigError(f"--restart cannot move {db_path} aside: "
                          f"{error.strerror or error}{where}") from None
    return folder


def _new_folder(db_path: Path, now: datetime) -> Path:
    base = f"{db_path.stem}.bak-{now:%Y%m%d-%H%M%S}"
    for number in range(1, 1000):
        folder = db_path.with_name(base if number == 1 else f"{base}-{number}")
        try:
            folder.mkdir()  # fails if it exists: claims the name atomically
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"too many backups named {base}")
