"""`referee tournament` and `referee results`: thin commands over tournaments.session."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from referee import bounds
from referee.cli.options import (
    Bounded, bot_limit_options, busy_wait_seconds, launch_settings, sandbox_options,
    sandbox_settings,
)
from referee.players.lineup import bot_specs, unique_labels
from tournaments.config import (
    RAGE_VARIANTS, BotEntry, Game, TournamentSpec, load_tournament_file,
)
from tournaments.report import OutputFormat
from tournaments.runner import PlayFailed, WorkersKeepDying
from tournaments.session import RunOptions, default_jobs, results_tables, run_session
from tournaments.store import StoreFailure

# Options that define a tournament, and the game each belongs to (None: both).
_DEFINING = {"deals": None, "seed": None, "table_size": Game.RAGE, "variants": Game.RAGE,
             "team_size": Game.THEGAME, "no_commands": Game.THEGAME,
             "commands_file": Game.THEGAME, "startup_time": None, "move_time": None,
             "time_bank": None, "clock": None, "max_memory": None, "max_cpu": None,
             "max_procs": None}
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_FORMATS = click.Choice([fmt.value for fmt in OutputFormat])


@click.command("tournament")
@click.argument("game_or_file", metavar="GAME_OR_FILE")
@click.argument("bots", nargs=-1)
@click.option("--deals", type=Bounded(bounds.DEALS), default=None,
              help="Deals every table plays (default 1, at most 100000).")
@click.option("--seed", type=Bounded(bounds.SEED), default=None,
              help="Tournament seed; deal seeds derive from it and the results db's "
                   "secret (default 0).")
@click.option("--table-size", type=Bounded(bounds.TABLE_SIZE), default=None,
              help="Rage: seats per table (default 4, or fewer bots, at least 3).")
@click.option("--variant", "variants", multiple=True, type=click.Choice(RAGE_VARIANTS),
              help="Rage: a rule variant (repeatable).")
@click.option("--team-size", type=Bounded(bounds.TEAM_SIZE), default=None,
              help="The Game: players per team (default 2 with 2+ bots).")
@click.option("--no-commands", is_flag=True, help="The Game: no command cards.")
@click.option("--commands", "commands_file", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The Game: TOML file mapping card numbers to commands.")
@click.option("--jobs", type=Bounded(bounds.JOBS), default=None,
              help="Games played at once (default: one per core).")
@click.option("--fresh-bots", is_flag=True, help="Start new bot processes for every game.")
@click.option("--persistent-bots", is_flag=True,
              help="Let sandboxed bot processes play many games (faster; a bot can then "
                   "remember the hands of a duplicate deal's other rotations).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Results db (default results/<game>-<fingerprint>.sqlite); "
                                 "the same db again resumes.")
@click.option("--format", "fmt", type=_FORMATS, default="text", show_default=True,
              help="Format of the tables.")
@bot_limit_options
@sandbox_options
def _tournament(game_or_file: str, bots: tuple[str, ...], jobs: int | None,
                fresh_bots: bool, persistent_bots: bool, db_path: Path | None, fmt: str,
                transport: str, busy_wait_us: int | None, sandbox: str,
                sandbox_dirs: tuple[Path, ...], **options: Any) -> None:
    """Play a round-robin tournament. GAME_OR_FILE is rage, thegame or a tournament .toml
    file (which lists its own bots); a BOT is a command line, or stdio:COMMAND.

    Tables go to standard output, progress to standard error. Running the same command
    again on the same --db resumes where it stopped.
    """
    if _is_file(game_or_file):
        spec = _file_spec(Path(game_or_file), bots, fresh_bots)
    else:
        spec = _command_line_spec(_game(game_or_file), bots, fresh_bots, options)
    run = RunOptions(db_path, jobs or default_jobs(), OutputFormat(fmt), transport=transport,
                     busy_wait=busy_wait_seconds(busy_wait_us),
                     sandbox=sandbox_settings(sandbox, sandbox_dirs, spec.time_limits.clock),
                     persistent_bots=persistent_bots)
    try:
        click.echo(run_session(spec, run), nl=False)
    except (PlayFailed, WorkersKeepDying, StoreFailure) as error:
        raise click.ClickException(str(error)) from error  # exit 1: not bad usage


@click.command("results")
@click.argument("db_path", metavar="DB", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=_FORMATS, default="text", show_default=True,
              help="Format of the tables.")
def _results(db_path: Path, fmt: str) -> None:
    """Print the tables of a results DB again (finished or not)."""
    try:
        click.echo(results_tables(db_path, OutputFormat(fmt)), nl=False)
    except StoreFailure as error:
        raise click.ClickException(str(error)) from error  # exit 1: a damaged db


# Declared types: referee.cli.main imports this module at its end, and mypy reads the two as a
# cycle in which it could not infer a decorated function's type in time.
tournament_command: click.Command = _tournament
results_command: click.Command = _results


def _is_file(argument: str) -> bool:
    if argument.endswith(".toml") and not Path(argument).is_file():
        raise click.UsageError(f"tournament file {argument} does not exist")
    return argument.endswith(".toml")


def _game(argument: str) -> Game:
    if argument not in [game.value for game in Game]:
        raise click.UsageError(f"unknown game {argument!r}: give rage, thegame or a "
                               "tournament .toml file")
    return Game(argument)


def _file_spec(path: Path, bots: tuple[str, ...],
               fresh_bots: bool) -> TournamentSpec:
    """The file's tournament; options that would redefine it are refused."""
    if bots:
        raise click.UsageError("a tournament file lists its own bots: give no BOT arguments")
    ctx = click.get_current_context()
    for name in _DEFINING:
        if ctx.get_parameter_source(name) not in (click.core.ParameterSource.DEFAULT, None):
            flag = "--" + {"variants": "variant", "commands_file": "commands"}.get(
                name, name).replace("_", "-")
            raise click.UsageError(f"{flag} cannot be combined with a tournament file: "
                                   f"set it in {path}")
    spec = load_tournament_file(path)
    if fresh_bots and not spec.fresh_bots:  # how bots run, not what the results are
        return replace(spec, fresh_bots=True)
    return spec


def _command_line_spec(game: Game, bots: tuple[str, ...], fresh_bots: bool,
                       options: dict[str, Any]) -> TournamentSpec:
    for name, owner in _DEFINING.items():
        if owner is not None and owner is not game and options[name]:
            flag = {"variants": "variant", "commands_file": "commands"}.get(name, name)
            raise click.UsageError(f"--{flag.replace('_', '-')} applies to {owner.value} "
                                   f"tournaments, not {game.value}")
    if options["no_commands"] and options["commands_file"] is not None:
        raise click.UsageError("--no-commands and --commands exclude each other")
    launch = launch_settings(options["startup_time"], options["move_time"],
                             options["time_bank"], options["max_memory"],
                             options["max_cpu"], options["max_procs"], "ipc",
                             clock=options["clock"])
    entries = tuple(BotEntry(name, text) for name, text in zip(_labels(bots), bots))
    return TournamentSpec.create(
        game, entries, deals=options["deals"] or 1, seed=options["seed"] or 0,
        table_size=options["table_size"], team_size=options["team_size"],
        time_limits=launch.times, resource_limits=launch.limits,
        variants=tuple(options["variants"]), no_commands=options["no_commands"],
        commands=options["commands_file"], fresh_bots=fresh_bots)


def _labels(bots: tuple[str, ...]) -> list[str]:
    """Distinct table names from the commands, e.g. rage_random-1, rage_random-2."""
    labels = [_LABEL_UNSAFE.sub("_", spec.label)[:36] or "bot" for spec in bot_specs(bots)]
    return unique_labels(labels)
