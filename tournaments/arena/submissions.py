"""Adding a contestant's version: its files copied, hashed and frozen, or its command.

Submits take turns (a lock on `submit.lock` in the arena's folder, held from choosing
the version's number to recording it): two at once would both take vN, and the one that
failed would remove the other's copy. Under the lock, a copy for vN with no row is what a
submit killed mid-check left (SIGKILL runs no cleanup), and is removed.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shlex
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from referee.bot_names import RULE, is_bot_name, normal_name
from referee.errors import ConfigError
from referee.processes.bot_command import STDIO_PREFIX
from tournaments.arena.checking import Checked, quick_check
from tournaments.arena.store import (
    ACTIVE, REFUSED, SUBMISSIONS, ArenaDb, Version, now, version_label,
)
from tournaments.store.provenance import file_sha256


SUBMIT_LOCK = "submit.lock"


@dataclass(frozen=True)
class Submitted:
    name: str
    version: int
    sha256: str  # its files'
    command_line_sha256: str  # its command line's (Version.command_line_sha256)
    folder: Path | None
    checked: Checked


def tree_sha256(root: Path) -> str:
    """The sha256 of a folder's files: each relative path and its content's sha256, sorted,
    so the same files give the same hash wherever they are copied."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(root).as_posix()}\0{file_sha256(path)}\n".encode())
    return digest.hexdigest()


def absolute_command(command: str, cwd: Path) -> str:
    """`command` with each word naming a file under `cwd` made absolute, so the arena runs
    the same files from wherever `arena run` is started."""
    stdio = command.startswith(STDIO_PREFIX)
    words = shlex.split(command[len(STDIO_PREFIX):] if stdio else command)
    fixed = [str((cwd / w).resolve()) if _is_file(cwd / w) else w for w in words]
    return (STDIO_PREFIX if stdio else "") + shlex.join(fixed)


def command_sha256(command: str) -> str:
    """The hash of the file an absolute command runs: its first argument that is a file
    (the script), else its program (as tournaments/store/provenance.py hashes bots)."""
    stdio = command.startswith(STDIO_PREFIX)
    words = shlex.split(command[len(STDIO_PREFIX):] if stdio else command)
    for word in words[1:] + words[:1]:
        if _is_file(Path(word)):
            return file_sha256(Path(word))
    raise ConfigError(f"command {command!r}: none of its words is a file to hash")


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # e.g. inline code too long for a file name
        return False


def submit(arena: Path, name: str, command: str | None, folder: Path | None) -> Submitted:
    """Record the next version of `name`, active if it passes the quick check (it then
    takes its contestant's place at the tables), else refused with the check's report;
    ConfigError for a bad name or missing files."""
    name = normal_name(name)
    if not is_bot_name(name):
        raise ConfigError(f"bad contestant name {name!r}: {RULE}")
    with ArenaDb(arena) as db, _one_submit_at_a_time(arena):
        version = db.next_version(name)
        if not is_bot_name(version_label(name, version)):  # how tables name it
            raise ConfigError(f"contestant name {name!r} is too long: with its version "
                              f"({version_label('', version)}) it must be {RULE}")
        target: Path | None = None
        if folder is not None:
            if not folder.is_dir():
                raise ConfigError(f"{folder} is not a folder")
            _check_own(folder, arena)
            command = command or _default_command(folder)
            target = arena / SUBMISSIONS / name / f"v{version}"
            _remove(target)  # a killed submit's: no row holds vN
        try:
            if target is not None:
                assert folder is not None and command is not None
                sha = _copy(folder, target)
                _freeze(target)
                command = absolute_command(command, target)
            else:
                assert command is not None
                command = absolute_command(command, Path.cwd())
                sha = command_sha256(command)
            checked = quick_check(db.settings, version_label(name, version), command,
                                  target)
            added = Version(name, version, command, None if target is None else str(target),
                            sha, ACTIVE if checked.passed else REFUSED, checked.report,
                            now())
            db.add_version(added)
        except BaseException:  # no row for this version: its copy goes too, vN stays free
            if target is not None:
                _remove(target)
            raise
    return Submitted(name, version, sha, added.command_line_sha256, target, checked)


@contextmanager
def _one_submit_at_a_time(arena: Path) -> Iterator[None]:
    """Wait for any other submit to this arena to end, then hold the turn (a POSIX lock:
    the kernel drops it when its process ends, however it ends)."""
    try:
        fd = os.open(arena / SUBMIT_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as error:
        raise ConfigError(f"cannot submit to {arena}: {error.strerror}") from None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def current_sha256(version: Version) -> str | None:
    """The hash of the files `version` runs as they are now, as `submit` hashed them;
    None where they cannot be read (gone)."""
    try:
        if version.folder is not None:
            return tree_sha256(Path(version.folder))
        return command_sha256(version.command)
    except (OSError, ConfigError):
        return None


def _default_command(folder: Path) -> str:
    found = sorted(p.name for p in folder.iterdir() if p.is_file() and os.access(p, os.X_OK))
    if len(found) != 1:
        raise ConfigError(f"{folder}: give --cmd (it holds {len(found)} executable files, "
                          "not one)")
    return f"./{found[0]}"


def _check_own(folder: Path, arena: Path) -> None:
    """ConfigError unless `folder` is a bot's own: not one the arena is in (its copy
    would copy the arena into itself, or `/` the whole machine), and without links out of
    it (its copy follows them: a link to the organiser's key or db would hand that file
    to the bot, in its own folder)."""
    root = folder.resolve()
    if arena.resolve().is_relative_to(root):
        raise ConfigError(f"--dir {folder}: it holds the arena {arena} itself: give the "
                          "bot's own folder")
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() and path.exists():  # a dangling one: the copy names it
            try:
                inside = path.resolve().is_relative_to(root)
            except (OSError, RuntimeError):  # a loop: the copy names it
                continue
            if not inside:
                raise ConfigError(f"--dir {folder}: {path} links out of the folder (to "
                                  f"{path.resolve()}): only the folder's own files are "
                                  "submitted")


def _freeze(root: Path) -> None:
    """Read-only, so a version cannot change after it was hashed."""
    for path in sorted(root.rglob("*"), reverse=True) + [root]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _copy(folder: Path, target: Path) -> str:
    """`folder`'s files copied to `target` (links followed: the copy is what runs); their
    sha256. ConfigError where one cannot be copied (a dangling link, a loop, no access)."""
    try:
        shutil.copytree(folder, target)
        return tree_sha256(target)
    except shutil.Error as error:  # copytree goes on past each failure, then lists them
        failed = error.args[0] if error.args and isinstance(error.args[0], list) else []
        if not failed:
            raise ConfigError(f"cannot copy {folder}: {error}") from None
        source, _, why = failed[0]
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        raise ConfigError(f"cannot copy {folder}: {source}: {why}{more}") from None
    except OSError as error:
        raise ConfigError(f"cannot copy {folder}: {error}") from None


def _remove(root: Path) -> None:
    if root.exists():
        _thaw(root)
        shutil.rmtree(root)


def _thaw(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
