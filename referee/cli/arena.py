"""`referee arena`: a long competition that contestants keep submitting versions to
(docs/arena.md). Exit codes: 0 done, 1 a submission refused by its check, 2 bad usage."""

from __future__ import annotations

from pathlib import Path

import click

from referee.errors import ConfigError
from referee.registry import games
from tournaments.arena.store import Settings, init
from tournaments.arena.submissions import submit

_DIR = click.Path(file_okay=False, path_type=Path)


@click.group("arena")
def arena_group() -> None:
    """An arena: contestants submit versions, which play duplicate tables and are ranked."""


@arena_group.command("init")
@click.argument("folder", type=_DIR)
@click.option("--game", "game_name", required=True, metavar="GAME",
              help="The game played: " + ", ".join(games.names()) + " (competitive only).")
@click.option("--table-size", type=int, default=4, show_default=True,
              help="Bots at each table.")
def init_command(folder: Path, game_name: str, table_size: int) -> None:
    """Make a new arena in FOLDER: arena.toml (its settings), arena.db, submissions/."""
    init(folder, Settings(game_name, table_size))
    click.echo(f"referee arena: {folder}: {game_name}, tables of {table_size}")


@arena_group.command("submit")
@click.argument("folder", type=_DIR)
@click.argument("name")
@click.argument("command", required=False)
@click.option("--dir", "bot_dir", type=click.Path(file_okay=False, exists=True,
                                                 path_type=Path),
              help="The bot's folder: copied into the arena, hashed and made read-only.")
@click.option("--cmd", "cmd", default=None, metavar="COMMAND",
              help="With --dir: the command run in the copied folder (default: its one "
                   "executable file).")
def submit_command(folder: Path, name: str, command: str | None, bot_dir: Path | None,
                   cmd: str | None) -> None:
    """Add the next version of contestant NAME: a COMMAND, or the files of --dir. It must
    pass `referee check --quick` before it plays; a version that fails is recorded as
    refused, with the check's report."""
    if (command is None) == (bot_dir is None):
        raise ConfigError("give a COMMAND or --dir FOLDER (one of them)")
    if cmd is not None and bot_dir is None:
        raise ConfigError("--cmd goes with --dir")
    done = submit(folder, name, command if bot_dir is None else cmd, bot_dir)
    click.echo(done.checked.report)
    state = "active" if done.checked.passed else "refused: it failed its check"
    click.echo(f"referee arena: {done.name} v{done.version} (sha256 {done.sha256[:12]}) "
               f"{state}")
    if not done.checked.passed:
        raise SystemExit(1)
