"""Paths in a tournament file are relative to the file's folder, as in any file that
names others (a Makefile, a tsconfig): `python alice/bot.py` in `class/t.toml` is
`class/alice/bot.py` from wherever the tournament is run.

The referee runs bots from the current folder, so a relative path of the file is
written as the current folder sees it (`class/alice/bot.py`), the path only, the rest of
the command as written: run from the file's own folder, nothing changes, and a
tournament keeps its fingerprint. A path found from the current folder but not from the
file's (as files were read before) is an error that says so, never a silent change.

What counts as a path: each word of the command but options (`-x`, `--x=...`) that names
a file or folder from the file's folder, and the program where it holds a '/' (a bare
program is looked up on PATH). A module (`python -m pkg.bot`) is found from the current
folder, as Python finds it; give such a bot a `dir`.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from referee.processes.bot_command import STDIO_PREFIX


class NotFromFile(ValueError):
    """A path that names something from the current folder only."""


def command_from_file(command: str, folder: Path, cwd: Path) -> str:
    """`command` with its relative paths made relative to `cwd` from `folder` (the
    file's); as it is where nothing changes. NotFromFile: a path found from cwd only."""
    if _same(folder, cwd):
        return command
    stdio = command.startswith(STDIO_PREFIX)
    body = command[len(STDIO_PREFIX):] if stdio else command
    try:
        words = shlex.split(body)
    except ValueError:
        return command  # the bot's start says what is wrong with it
    moved = [word if _kept(word, first=at == 0) else path_from_file(word, folder, cwd)
             for at, word in enumerate(words)]
    if moved == words:
        return command
    return (STDIO_PREFIX if stdio else "") + shlex.join(moved)


def path_from_file(path: str, folder: Path, cwd: Path) -> str:
    """One relative path of the file as `cwd` sees it; as it is where it names nothing
    from `folder` (nor from cwd). NotFromFile where only cwd has it."""
    if _same(folder, cwd) or os.path.isabs(path):
        return path
    if (folder / path).exists():
        return os.path.normpath(os.path.relpath(folder / path, cwd))
    if (cwd / path).exists():
        fixed = os.path.normpath(os.path.relpath(cwd / path, folder))
        if fixed.startswith((os.pardir + os.sep) * 3):  # a climb to the root says less than the path
            fixed = str((cwd / path).resolve())
        raise NotFromFile(f"{path!r} is found from the current folder ({cwd}) but not "
                          f"from the file's ({folder}): paths in a tournament file are "
                          f"relative to the file's folder; write {fixed!r}")
    return path


def _kept(word: str, first: bool) -> bool:
    return word.startswith("-") or (first and "/" not in word) or os.path.isabs(word)


def _same(folder: Path, cwd: Path) -> bool:
    return folder.resolve() == cwd.resolve()
