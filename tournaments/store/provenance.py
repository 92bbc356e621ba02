"""Where each bot of a tournament comes from: the files it runs, and their sha256.

A results db records them when it is made (tournaments/store/bots_db.py) and a resume compares
them: the same command line with a rebuilt executable or an edited script is another bot,
whose games must not be mixed with the old one's.

The executable is the command's program resolved as a bot's start resolves it (on the
PATH bots get, the referee's interpreter first: remote_player.bot_path), symlinks
followed. The script is the first later argument that names an existing regular file:
`python3 bots/x.py` runs bots/x.py, and a compiled bot given a file (its weights, say)
depends on that file the same way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path

from referee.errors import ConfigError
from referee.players.lineup import BotSpec
from referee.players.remote_player import bot_path
from tournaments.store.records import BotHashes
from tournaments.spec.definition import BotEntry

SHORT_HASH = 12  # hex digits of a sha256 shown to people


@dataclass(frozen=True)
class BotProvenance:
    """A bot as a results db records it: what it is called and runs, and what it said."""

    name: str
    role: str  # "reference" or "candidate"
    command: str
    executable: str  # absolute, symlinks resolved
    script: str | None  # absolute, or None for a bot that runs none
    hashes: BotHashes
    hello: tuple[str, str] | None = None  # HELLO's name and version, once it said one
    # 1, and in a gauntlet one more each time a candidate's files changed between runs
    # (tournaments/store/bots_db.py): its games of older versions are kept, not counted.
    version: int = 1


def short_hash(digest: str | None) -> str:
    """A sha256 as people compare it, or "none"."""
    return "none" if digest is None else digest[:SHORT_HASH]


def bots_provenance(entries: Sequence[BotEntry], specs: Sequence[BotSpec],
                    cwd: Path | None = None) -> tuple[BotProvenance, ...]:
    """The provenance of each bot, entry i with its parsed command specs[i]. ConfigError,
    naming the bot and the file, for a file that cannot be found or read."""
    where = cwd or Path.cwd()
    digests: dict[Path, str] = {}  # bots sharing an interpreter hash it once
    found = []
    for entry, spec in zip(entries, specs, strict=True):
        if spec.remote is not None:  # its code is on another machine: its key is known
            key = (where / spec.remote.key_file).resolve()
            found.append(BotProvenance(entry.name, "reference" if entry.reference else
                                       "candidate", entry.command, str(key), None,
                                       BotHashes(_digest(entry.name, "public key", key,
                                                         digests))))
            continue
        executable = _executable(entry.name, spec.command.argv[0], where)
        script = _script(spec.command.argv[1:], where)
        hashes = BotHashes(_digest(entry.name, "executable", executable, digests),
                           None if script is None else
                           _digest(entry.name, "script", script, digests))
        found.append(BotProvenance(entry.name, "reference" if entry.reference else
                                   "candidate", entry.command, str(executable),
                                   None if script is None else str(script), hashes))
    return tuple(found)


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in chunks (hashlib.file_digest): any size is fine."""
    with _open_binary(path) as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def _open_binary(path: Path) -> BufferedReader:
    """The one place a bot's file is opened (a seam for tests: root reads any file)."""
    return open(path, "rb")


def _executable(bot: str, program: str, cwd: Path) -> Path:
    found = program if os.sep in program else shutil.which(program, path=bot_path())
    if found is None:
        raise ConfigError(f"bot {bot!r}: its program {program!r} is not on PATH")
    return (cwd / found).resolve()


def _script(args: Sequence[str], cwd: Path) -> Path | None:
    for arg in args:
        path = cwd / arg
        try:
            if path.is_file():
                return path.resolve()
        except (OSError, ValueError):  # e.g. inline code too long for a file name
            continue
    return None


def _digest(bot: str, kind: str, path: Path, digests: dict[Path, str]) -> str:
    if path not in digests:
        try:
            digests[path] = file_sha256(path)
        except OSError as error:
            raise ConfigError(f"bot {bot!r}: cannot read its {kind} {path}: "
                              f"{error.strerror or error}") from None
    return digests[path]
