"""`referee arena`: a long competition that contestants keep submitting versions to
(docs/arena.md). Exit codes: 0 done, 1 a submission refused by its check (or a run that
failed), 2 bad usage, 130/143 a run interrupted (what was played is kept)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from referee import bounds
from referee.cli.errors import Stopped
from referee.cli.publish import public_option, replay_mode
from referee.cli.options import (
    Bounded, compose, given_options, launch_settings, option_values, per_game_options,
    resource_limit_options, time_limit_options,
)
from referee.errors import ConfigError
from referee.matches.game import Contest
from referee.registry import games
from referee.registry.games import AnyGame
from tournaments.arena.leaderboard import standings, tally
from tournaments.arena.run import StopRule, pairs_open, run_arena
from tournaments.arena.site import publish_arena
from tournaments.arena.standings_tables import (
    history_table, leaderboard_table, render_standings,
)
from tournaments.arena.store import DEFAULT_PLACEMENT, SETTINGS, ArenaDb, Settings, init
from tournaments.arena.submissions import submit
from referee import words
from tournaments.output.formats import OutputFormat
from tournaments.run.runner import Interrupted, PlayFailed, WorkersKeepDying
from tournaments.run.session import RunOptions, default_jobs
from tournaments.site.layout import ReplayMode
from tournaments.spec.settle_rule import SettleRule
from tournaments.store.results_db import StoreFailure

_DIR = click.Path(file_okay=False, path_type=Path)
# The games an arena can rank: their variants are `arena init`'s options.
_ARENA_GAMES = [game for game in map(games.lookup, games.names())
                if game.contest is Contest.COMPETITIVE]


class InWorkflowOrder(click.Group):
    """Its commands listed as they are used: init, submit, run, standings, publish."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@click.group("arena", cls=InWorkflowOrder)
def arena_group() -> None:
    """An arena: contestants submit versions, which play duplicate tables and are ranked."""


@arena_group.command("init")
@click.argument("folder", type=_DIR)
@click.option("--game", "game_name", required=True, metavar="GAME",
              help="The game played: " + ", ".join(game.name for game in _ARENA_GAMES)
              + " (an arena ranks competitive games only).")
@click.option("--table-size", type=Bounded(bounds.GAME_SIZE), default=4, show_default=True,
              help="Bots at each table.")
@click.option("--placement", type=Bounded(bounds.PLACEMENT), default=DEFAULT_PLACEMENT,
              show_default=True,
              help="Tables a new version plays against opponents from the whole ladder "
                   "before it is seated with its neighbours.")
@compose(*(per_game_options(game, f"{game.title}: ") for game in _ARENA_GAMES))
@time_limit_options
@resource_limit_options
def init_command(folder: Path, game_name: str, table_size: int, placement: int,
                 startup_time: float, move_time: float, time_bank: float, clock: str,
                 max_memory: int | None, max_cpu: int | None, max_procs: int | None,
                 **variants: Any) -> None:
    """Make a new arena in FOLDER: arena.toml (its settings: the game, its variants, the
    time and resource limits every version is checked and plays under), arena.db,
    submissions/ and rounds/."""
    game = _arena_game(game_name)
    launch = launch_settings(startup_time, move_time, time_bank, max_memory, max_cpu,
                             max_procs, "ipc", clock=clock)
    options = _arena_options(game, variants)
    init(folder, Settings(game.name, table_size, placement, launch.times, options,
                          launch.limits))
    click.echo(f"referee arena: {folder}: {game.name}, tables of {table_size} (its "
               f"settings: {folder / SETTINGS})")


def _arena_game(name: str) -> AnyGame:
    """The --game of `arena init`; an unknown one in the words `referee tournament` uses
    (a cooperative one is refused by init, which says why)."""
    try:
        return games.lookup(name)
    except ConfigError:
        raise click.UsageError(f"unknown game {name!r}: give "
                               f"{', '.join(games.names())}") from None


def _arena_options(game: AnyGame, given: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The variants given to `arena init`, checked as `referee tournament` checks them
    (one usage error in the flags' words), as arena.toml's [options] holds them: only
    those given, choices sorted."""
    for other in _ARENA_GAMES:
        for option in other.options:
            if other is not game and option.name not in {o.name for o in game.options} \
                    and given.get(option.name, option.default) != option.default:
                raise click.UsageError(f"{option.flag} applies to {other.name} arenas, not "
                                       f"{game.name}")
    chosen = option_values(game, dict(given))
    named = given_options(game, dict(given))
    return tuple((name, value) for name, value in chosen.items if name in named)


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
    click.echo(f"referee arena: {done.name} v{done.version} (sha256 {done.sha256[:12]}, "
               f"command line sha256 {done.command_line_sha256[:12]}) {state}")
    if not done.checked.passed:
        raise SystemExit(1)


@arena_group.command("run")
@click.argument("folder", type=_DIR)
@click.option("--games", "max_games", type=Bounded(bounds.MAX_GAMES_OPTION), default=None,
              metavar="N",
              help="Stop after the round in which this run has played N games or more.")
@click.option("--until-settled", is_flag=True,
              help="Stop after the first round at whose end the ladder is settled: each "
                   "two neighbours ordered at --confidence by their ratings (docs/arena.md).")
@click.option("--confidence", type=click.FloatRange(0.5, 1, min_open=True, max_open=True),
              default=None, metavar="C", help="With --until-settled (default 0.95).")
@click.option("--top", type=Bounded(bounds.TOP), default=None, metavar="K",
              help="With --until-settled: settle only which versions are the first K.")
@click.option("--jobs", type=Bounded(bounds.JOBS), default=None,
              help="Games played at once (default: one per core).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster (tcp://HOST:PORT, or local:N); not with --jobs.")
def run_command(folder: Path, max_games: int | None, until_settled: bool,
                confidence: float | None, top: int | None, jobs: int | None,
                cluster: str | None) -> None:
    """Play rounds: each seats every active version at tables chosen by matchmaking, every
    table one deal in all its seat rotations; then print the leaderboard. Without --games
    or --until-settled it plays until interrupted; run again, it resumes."""
    if not until_settled and (confidence is not None or top is not None):
        raise ConfigError("--confidence and --top go with --until-settled")
    if cluster is not None and jobs is not None:
        raise ConfigError("--jobs and --cluster exclude each other")
    settle = SettleRule(confidence or 0.95, top) if until_settled else None
    options = RunOptions(jobs=jobs or default_jobs(), cluster=cluster)
    with ArenaDb(folder) as db:
        try:
            done = run_arena(db, StopRule(max_games, settle), options,
                             sys.stderr)
        except (Interrupted, KeyboardInterrupt) as stop:  # in a round, or between two
            raise _interrupted(folder, stop) from None
        except (PlayFailed, WorkersKeepDying, StoreFailure) as error:
            raise click.ClickException(str(error)) from error
        counted = tally(db.games())
        board = standings(db.versions(), counted)
    click.echo(render_standings([leaderboard_table(board)], db.settings,
                                f"{folder.name} arena", OutputFormat.TEXT, counted.total),
               nl=False)
    if done.settled_after is not None and settle is not None:
        click.echo(f"settled after round {done.settled_after}: {settle.words()}")
    elif settle is not None:  # --games came first: say so, or the ladder reads as settled
        click.echo(f"not settled: stopped at --games {max_games} "
                   f"({words.counted(done.games, 'game')} this run), {settle.words()}; "
                   f"{pairs_open(done.open_pairs)}")


def _interrupted(folder: Path, stop: BaseException) -> Stopped:
    """Ctrl-C (130) or SIGTERM (143, which referee.cli.main raises as a KeyboardInterrupt
    named SIGTERM): every round counted stays, and a round under way resumes."""
    within = (f" (this round: {stop.played} of {words.counted(stop.scheduled, 'game')} "
              "played)") \
        if isinstance(stop, Interrupted) else ""
    name = stop.signal_name if isinstance(stop, Interrupted) else str(stop) or "SIGINT"
    return Stopped(f"arena run interrupted: its games so far are kept; `referee arena run "
                   f"{folder}` resumes{within}", 143 if name == "SIGTERM" else 130)


@arena_group.command("standings")
@click.argument("folder", type=_DIR)
@click.option("--format", "fmt", type=click.Choice([f.value for f in OutputFormat]),
              default="text", show_default=True,
              help="How to write the tables; csv writes one: the leaderboard, or with "
                   "--history the history.")
@click.option("--history", is_flag=True,
              help="Also every version of every contestant: retired, changed and refused "
                   "ones too.")
def standings_command(folder: Path, fmt: str, history: bool) -> None:
    """The leaderboard: active versions ranked by mu - 3 sigma, with games, rating and
    its interval, and faults."""
    with ArenaDb(folder) as db:
        counted = tally(db.games())
        board = standings(db.versions(), counted)
        tables = [leaderboard_table(board)] + ([history_table(board)] if history else [])
        click.echo(render_standings(tables, db.settings, f"{folder.name} arena",
                                    OutputFormat(fmt), counted.total), nl=False)


@arena_group.command("publish")
@click.argument("folder", type=_DIR)
@click.argument("site", type=_DIR)
@click.option("--replays", type=click.Choice([m.value for m in ReplayMode]), default=None,
              help="Replays of each round's games, as `referee publish` (all, or "
                   "spectator with --public).")
@public_option
def publish_command(folder: Path, site: Path, replays: str | None, public: bool) -> None:
    """Write the arena's site into SITE: the leaderboard and history on its front page,
    each played round published as `referee publish` does."""
    mode = replay_mode(replays, public)
    with ArenaDb(folder) as db:
        done = publish_arena(db, site, mode, public=public)
    click.echo(f"referee arena: {site / 'index.html'} "
               f"({words.counted(done.rounds_published, 'round')} published, "
               f"{done.rounds_kept} already there)")
