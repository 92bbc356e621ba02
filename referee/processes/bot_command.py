"""Parsing a BOT argument: `CMD` (a ZeroMQ bot) or `stdio:CMD` (a bot on its standard streams)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from referee.errors import BotStartError

STDIO_PREFIX = "stdio:"
# `python`/`python3` run as the referee's own interpreter (see parse_bot_command).
_OWN_PYTHON = frozenset({"python", "python3"})
# Commands whose first plain argument, not the command itself, names the bot.
_INTERPRETER = re.compile(
    r"(python|pypy)[0-9.]*|node(js)?|ruby|perl|php|java|bash|sh|dash|zsh|lua|julia|Rscript|dotnet"
)


@dataclass(frozen=True)
class BotCommand:
    """A checked bot command: the text as given, the argv to run, and its transport."""

    text: str
    argv: tuple[str, ...]
    stdio: bool


def parse_bot_command(text: str) -> BotCommand:
    """Split and check a bot command; raise BotStartError if it cannot be started.

    `stdio:CMD` selects the standard-streams transport, plain `CMD` ZeroMQ. The command is
    split like a POSIX shell would (shlex) but never run through a shell. The executable is
    looked up now, before any game starts. An argv[0] of exactly `python` or `python3` is
    replaced by `sys.executable`: bots need pyzmq and the bot SDK, which live in the
    referee's environment, not necessarily in whatever `python` is first on PATH.
    """
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


def default_label(cmd: BotCommand) -> str:
    """A short display name: the script's or program's file stem, e.g. `rage_random`."""
    program = Path(cmd.argv[0]).name
    if _INTERPRETER.fullmatch(program):
        label = _script_label(cmd.argv[1:])
        if label:
            return label
    return Path(program).stem or program


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
    """The folder a bot's files are in, which its sandbox shows it: the script's for an
    interpreter (the working folder for `-m MODULE`), else the program's; None for a
    program found on PATH."""
    program = cmd.argv[0]
    if _INTERPRETER.fullmatch(Path(program).name):
        script = _script_path(cmd.argv[1:])
        if script is not None:
            return (cwd / script).resolve().parent if script else cwd
    if os.sep in program:
        return (cwd / program).resolve().parent
    return None


def _script_path(args: tuple[str, ...]) -> str | None:
    """The script an interpreter runs; "" for `-m MODULE`; None for inline code."""
    for i, arg in enumerate(args):
        if arg == "-m" and i + 1 < len(args):
            return ""
        if arg == "-c":
            return None
        if not arg.startswith("-"):
            return arg
    return None
