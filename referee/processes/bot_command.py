"""Parsing a BOT argument: `CMD` (a ZeroMQ bot) or `stdio:CMD` (a bot on its standard streams)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from referee.errors import BotStartError
from referee.processes.bot_folder import FolderUnknown, derived_folder, is_interpreter

STDIO_PREFIX = "stdio:"
# `python`/`python3` run as the referee's own interpreter (see parse_bot_command).
_OWN_PYTHON = frozenset({"python", "python3"})
# How an organiser declares a bot's folder, named by the error that asks for it.
DECLARE_FOLDER = ("declare it with --bot-dir NAME=DIR (or dir = \"DIR\" in the bot's "
                  "[[bots]] entry of a tournament file)")


@dataclass(frozen=True)
class BotCommand:
    """A checked bot command: the text as given, the argv to run, its transport, and
    its folder where the organiser declared it (absolute; None: read from the argv)."""

    text: str
    argv: tuple[str, ...]
    stdio: bool
    folder: Path | None = None


def parse_bot_command(text: str, folder: Path | None = None) -> BotCommand:
    """split_bot_command, then with_folder: BotStartError if the command cannot be
    started, or its folder is neither declared (`folder`) nor told by its command line."""
    return with_folder(split_bot_command(text), folder)


def split_bot_command(text: str) -> BotCommand:
    """Split and check a bot command, all but its folder; raise BotStartError if it cannot
    be started.

    `stdio:CMD` selects the standard-streams transport, plain `CMD` ZeroMQ. The command is
    split like a POSIX shell would (shlex) but never run through a shell. The executable is
    looked up now, before any game starts. An argv[0] of exactly `python` or `python3` is
    replaced by `sys.executable`: bots need pyzmq and the bot SDK, which live in the
    referee's environment, not necessarily in whatever `python` is first on PATH.
    """
    if "\0" in text:  # a tournament file's string may hold one; no argv can
        raise BotStartError(f"bot command {text!r} holds a NUL character")
    stdio = text.startswith(STDIO_PREFIX)
    body = text[len(STDIO_PREFIX):] if stdio else text
    try:
        argv = shlex.split(body)
    except ValueError as exc:
        raise BotStartError(f"bot command {text!r} has bad quoting: {exc}") from None
    if not argv:
        raise BotStartError(f"bot command {text!r} is empty")
    if argv[0] in _OWN_PYTHON:
        argv[0] = sys.executable
        _check_script(text, argv)
    _check_executable(text, argv[0])
    return BotCommand(text=text, argv=tuple(argv), stdio=stdio)


def with_folder(cmd: BotCommand, folder: Path | None) -> BotCommand:
    """`cmd` with its declared folder (made absolute), or, with none declared, checked now,
    before any game, that its command line tells its folder (bot_folder)."""
    if folder is None:
        bot_folder(cmd, Path.cwd())
        return cmd
    if not folder.is_dir():
        raise BotStartError(f"bot command {cmd.text!r}: its declared folder "
                            f"{str(folder)!r} is not a folder")
    return replace(cmd, folder=folder.resolve())


def _check_executable(text: str, program: str) -> None:
    if os.sep not in program:
        if shutil.which(program) is None:
            raise BotStartError(f"bot command {text!r}: {program!r} was not found on PATH")
        return
    if os.path.isdir(program):
        raise BotStartError(f"bot command {text!r}: {program!r} is a directory")
    if not os.path.isfile(program):
        raise BotStartError(f"bot command {text!r}: {program!r} does not exist")
    if not os.access(program, os.X_OK):
        raise BotStartError(
            f"bot command {text!r}: {program!r} is not executable "
            f"(chmod +x it, or run it through its interpreter, e.g. 'python {program}')"
        )


def _check_script(text: str, argv: list[str]) -> None:
    """`python SCRIPT ...`: the script must exist too, or the bot dies at start-up."""
    if len(argv) < 2 or argv[1].startswith("-"):
        return
    if not os.path.isfile(argv[1]):
        raise BotStartError(f"bot command {text!r}: script {argv[1]!r} does not exist")


# A bot whose script or program has one of these names (any case) is named after its
# folder: a class laid out a folder per student runs students/alice/bot.py, .../main.py,
# .../Main, .../a.out, .../bot.sh, .../index.js.
GENERIC_NAMES = frozenset({"bot", "main", "index", "app", "run", "start", "a", "player",
                           "program", "client", "solution", "agent"})
# Folders a build puts its output in (target/release/main), passed over for the name.
BUILD_FOLDERS = frozenset({"target", "release", "debug", "build", "bin", "out", "dist",
                           "src", "obj", "classes", "cmd", "lib"})


def default_label(cmd: BotCommand) -> str:
    """A short display name: the script's or program's file stem, e.g. `rage_random`;
    for a generic one (`bot.py`, `main`, `a.out`), the folder it is in, e.g. `alice` for
    `python students/alice/bot.py`."""
    program = Path(cmd.argv[0]).name
    label = _script_label(cmd.argv[1:]) if is_interpreter(program) else None
    label = label or Path(program).stem or program
    if label.lower() in GENERIC_NAMES:
        return _folder_name(cmd) or label
    return label


def _folder_name(cmd: BotCommand) -> str | None:
    """The name of the bot's folder, past build-output folders; None where the command
    line tells none."""
    try:
        folder = cmd.folder or derived_folder(cmd.argv, Path.cwd())
    except FolderUnknown:
        return None
    for part in (folder, *folder.parents) if folder is not None else ():
        if part.name.lower() not in BUILD_FOLDERS:
            return part.name or None
    return None


def _script_label(args: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(args):
        if arg == "-m" and i + 1 < len(args):
            return args[i + 1].rsplit(".", 1)[-1]
        if arg == "-c":
            return None  # inline code has no name
        if not arg.startswith("-"):
            return Path(arg).stem or None
    return None


def bot_folder(cmd: BotCommand, cwd: Path) -> Path | None:
    """The folder a bot's files are in, which its sandbox shows it: the declared one, else
    the one its command line tells (referee.processes.bot_folder: the script's, the class
    path's, the jar's, the working folder for `python -m MODULE`, the program's), None
    for inline code or a program found on PATH. BotStartError, naming how to declare the
    folder, where the command line does not tell."""
    if cmd.folder is not None:
        return cmd.folder
    try:
        return derived_folder(cmd.argv, cwd)
    except FolderUnknown as why:
        raise BotStartError(f"bot command {cmd.text!r}: its folder cannot be told from its "
                            f"command line: {why}; {DECLARE_FOLDER}") from None
