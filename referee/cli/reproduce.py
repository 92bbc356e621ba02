"""`referee reproduce DB GAME_ID --seat N [BOT]` (or `--log LOG`): play one seat of a
logged game again with a bot, the other seats as logged, and stop where the bot does
otherwise than the log (referee/reproduce.py)."""

from __future__ import annotations

from pathlib import Path

import click

from referee.cli.options import sandbox_options, sandbox_settings
from referee.errors import ConfigError
from referee.players.lineup import BotSpec, LaunchSettings, bot_specs
from referee.processes.sandbox import SandboxSettings
from referee.registry import games
from referee.registry.game_logs import load_log
from referee.reproduce import reproduce
from tournaments.schedule.fixtures import id_spellings
from tournaments.spec.definition import declared_dirs
from tournaments.store.records import GameRecord
from tournaments.store.results_db import ResultStore, StoreFailure, logs_dir


@click.command("reproduce")
@click.argument("source", nargs=-1, metavar="DB GAME_ID [BOT]")
@click.option("--seat", type=click.IntRange(min=0), required=True,
              help="The seat to play again with the bot (as the log numbers seats).")
@click.option("--log", "log_path", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A game log instead of DB GAME_ID: then the arguments are [BOT].")
@click.option("--version", "version", type=click.IntRange(min=1), default=None,
              metavar="N", help="With DB GAME_ID: the game as version N of a gauntlet's "
              "candidate played it, since replaced (a student's crash before the fix).")
@sandbox_options
def reproduce_command(source: tuple[str, ...], seat: int, log_path: Path | None,
                      version: int | None, sandbox: str,
                      sandbox_dirs: tuple[Path, ...]) -> None:
    """Play seat N of a stored game again with BOT (default: the command it was played
    with), sending it the very lines that seat was sent, with the other seats' logged
    moves, on the same deal, settings and time limits. Stops at the bot's fault, at its
    first reply that differs from the log's, or, past the step of the log's fault, where
    its move takes the game elsewhere; prints the step (`referee view`'s #step=N), the
    line sent, the logged reply and the new one. Exit 0: the bot passes (no fault, and
    every reply as logged up to the log's fault); 1: it faults, or a reply differs
    before the log's fault."""
    box = sandbox_settings(sandbox, sandbox_dirs)
    if log_path is not None:
        if version is not None:
            raise click.UsageError("--version goes with DB GAME_ID, not --log")
        if len(source) > 1:
            raise click.UsageError("with --log, give at most one BOT")
        log, bot, launch, label = _from_log(log_path, seat, source[0] if source else None,
                                            box)
    else:
        if len(source) not in (2, 3):
            raise click.UsageError("give DB GAME_ID [BOT], or --log LOG [BOT]")
        log, bot, launch, label = _from_db(Path(source[0]), source[1], seat,
                                           source[2] if len(source) == 3 else None, box,
                                           version)
    click.echo(f"reproduce: {label} seat {seat} with {bot.label} ({bot.command.text})")
    verdict = reproduce(log, seat, bot, launch, games.lookup, str(log))
    for line in verdict.lines:
        click.echo(line)
    if verdict.code:
        raise click.exceptions.Exit(verdict.code)


def _from_log(log_path: Path, seat: int, given: str | None, box: SandboxSettings
              ) -> tuple[Path, BotSpec, LaunchSettings, str]:
    """A log file: the bot given, else the seat's command in its header. No bot may see
    the log."""
    bot = _given(given) if given is not None else _logged_bot(log_path, seat)
    launch = LaunchSettings(sandbox=box, secrets=(log_path.resolve(),))
    return log_path, bot, launch, str(log_path)


def _logged_bot(log_path: Path, seat: int) -> BotSpec:
    players = load_log(log_path)[0].get("players", [])
    if not 0 <= seat < len(players):
        raise ConfigError(f"--seat {seat}: the game has seats 0 to {len(players) - 1}")
    entry = players[seat]
    return bot_specs([str(entry.get("command"))], [str(entry.get("name"))])[0]


def _from_db(db_path: Path, game_id: str, seat: int, given: str | None,
             box: SandboxSettings, version: int | None = None
             ) -> tuple[Path, BotSpec, LaunchSettings, str]:
    """A stored game (as `version` of its candidate played it, if given): its log beside
    the db, the tournament's limits, and the bot given, else the seat's bot as the
    tournament runs it now. No bot may see the db or the logs."""
    ids = id_spellings(game_id)
    record: GameRecord | None
    try:
        with ResultStore.open_existing(db_path) as store:
            spec = store.spec
            if version is None:
                record = store.stored_game(game_id)
            else:
                record = next((r for name in spec.bot_names
                               for number, r in store.replaced(name)
                               if number == version and r.fixture_id in ids), None)
    except StoreFailure as error:
        raise ConfigError(str(error)) from None
    if record is None:
        raise ConfigError(f"no game {game_id!r} of a version {version} since replaced in "
                          f"{db_path} (`referee results {db_path} --bot NAME` lists a "
                          "candidate's replaced games)")
    if not 0 <= seat < len(record.bots):
        raise ConfigError(f"--seat {seat}: game {game_id} has seats 0 to "
                          f"{len(record.bots) - 1}")
    if record.log_path is None:
        raise ConfigError(f"game {game_id} of {db_path} has no game log")
    log = db_path.resolve().parent / record.log_path
    if given is not None:
        bot = _given(given)
    else:
        specs = bot_specs([b.command for b in spec.bots], list(spec.bot_names),
                          declared_dirs(spec.bots))
        bot = next(s for s in specs if s.label == record.bots[seat])
    launch = LaunchSettings(spec.time_limits, spec.resource_limits, sandbox=box,
                            secrets=(logs_dir(db_path).resolve(), db_path.resolve().parent))
    played_by = "" if version is None else f" as version {version} played it"
    return log, bot, launch, f"{db_path} game {game_id}{played_by}"


def _given(text: str) -> BotSpec:
    return bot_specs([text])[0]
