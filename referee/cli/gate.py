"""`referee gate`: is NEW weaker than BASELINE? A sequential test on paired deals.

A thin command over tournaments.gate.runner: the running line goes to standard error after each
deal, the verdict to standard output, and the exit code says it (0 not weaker, 1 weaker,
3 undecided, 2 bad usage). docs/gate.md explains the test.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from referee.ansi import CLEAR_LINE
from referee import bounds
from referee.cli.options import (
    Bounded, Decorator, LogPath, bot_dir_option, bot_limit_options, compose, declared_dirs,
    describe_os_error, launch_settings, option_values, per_game_options, sandbox_options,
    sandbox_settings,
)
from referee.cli.remote import remote_options, with_remote
from referee.cli.errors import Stopped
from referee.cli.exit_codes import INTERRUPTED, TERMINATED
from referee.errors import ConfigError
from referee.players.lineup import bot_specs
from referee.players.remote_seats import close_halls
from referee.matches.game import Options
from referee.registry import games
from referee.registry.games import AnyGame
from tournaments.gate.runner import (
    GateBots, GateInterrupted, GatePlan, GateState, Progress, gate_context, gate_table, run_gate,
)
from tournaments.gate.report import (
    gate_json, interrupted_lines, running_line, verdict_lines,
)
from tournaments.schedule.secret import new_secret
from tournaments.stats.sprt import SprtSettings

# Keys the deal seeds when --seed is given: such deals are reproducible, not secret.
_PUBLIC_KEY = b"referee gate: deals of a given --seed"


def _every_games_options() -> Decorator:
    """The options of every game registered when the command is built."""
    found = [games.lookup(name) for name in games.names()]
    return compose(*(per_game_options(game, f"{game.title}: ") for game in found))


@click.command("gate")
@click.option("--game", "game_name", required=True, metavar="GAME",
              help=f"The game ({', '.join(games.names())}).")
@click.option("--new", required=True, metavar="BOT", help="The bot under test.")
@click.option("--baseline", required=True, metavar="BOT", help="The bot it must not be "
                                                                "weaker than.")
@click.option("--opponent", "opponents", multiple=True, metavar="BOT",
              help="Who fills the other seats (repeatable), in seat order, cycling when "
                   "fewer than seats; in a cooperative game, the teammates.")
@click.option("--size", type=Bounded(bounds.GAME_SIZE), default=None,
              help="Seats per game: the table (Rage), or the team (The Game; solo games "
                   "are always played too). Default: NEW and each opponent one seat, at "
                   "least the game's least.")
@click.option("--delta", type=float, required=True,
              help="H0: NEW is weaker by at least this, in the deal's difference (Rage: "
                   "points; The Game: cards left).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="The chance of passing a NEW weaker by --delta.")
@click.option("--beta", type=float, default=0.05, show_default=True,
              help="The chance of failing a NEW as strong as BASELINE.")
@click.option("--max-games", type=Bounded(bounds.MAX_GAMES_OPTION), default=4000,
              show_default=True, help="Stop undecided (exit 3) before a deal would pass "
                                      "this many games.")
@click.option("--seed", type=Bounded(bounds.SEED), default=None,
              help="Play reproducible deals from this seed (default: secret deals).")
@click.option("--logs", "logs_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder for the game logs (default "
                                 "results/gate-GAME-TIME-PID).")
@click.option("--json", "json_path", type=LogPath(), default=None,
              help="Write the verdict and its figures here as JSON.")
@click.option("--persistent-bots", is_flag=True,
              help="Let sandboxed bot processes play any game (by default none plays two "
                   "games of a deal; a bot can then remember the hands of a deal's other "
                   "games).")
@_every_games_options()
@bot_limit_options
@sandbox_options
@bot_dir_option
@remote_options
def gate_command(game_name: str, new: str, baseline: str, opponents: tuple[str, ...],
                 size: int | None, delta: float, alpha: float, beta: float,
                 max_games: int, seed: int | None, logs_dir: Path | None,
                 json_path: Path | None, persistent_bots: bool, sandbox: str,
                 sandbox_dirs: tuple[Path, ...], bot_dirs: tuple[tuple[str, Path], ...],
                 listen: str | None, referee_key: Path, **rest: Any) -> None:
    """Play NEW and BASELINE on the same deals, seats and opponents until a sequential
    test decides whether NEW is weaker by --delta. Exit 0: not weaker; 1: weaker (or NEW
    faulted); 3: undecided (at --max-games, or another bot faulted); 2: bad usage."""
    game = _game(game_name)
    options = _own_options(game, rest)
    sprt = _sprt(delta, alpha, beta)
    table = gate_table(game, len(opponents), size)
    if table.games_per_deal() > max_games:
        raise click.UsageError(f"--max-games {max_games} is less than one deal "
                               f"({table.games_per_deal()} games)")
    logs = _logs_folder(logs_dir, game.name)
    bots = GateBots(new, baseline, opponents, declared_dirs(bot_dirs))
    try:
        launch = launch_settings(**rest)
        launch = replace(launch, sandbox=sandbox_settings(sandbox, sandbox_dirs,
                                                          launch.times.clock),
                         secrets=() if json_path is None else (json_path.resolve(),))
        texts = [new, baseline, *opponents]
        launch = with_remote(launch, bot_specs(texts, [f"bot{i}" for i in range(len(texts))]),
                             listen, referee_key)
        context = gate_context(game, bots, table.size, options, launch, logs,
                               persistent_bots)
    except BaseException:  # bad usage found before any game: leave no empty folder
        if logs_dir is None:
            _remove_if_empty(logs)
        raise
    plan = GatePlan(table, new_secret() if seed is None else _PUBLIC_KEY, seed or 0,
                    sprt, max_games)
    try:
        result = run_gate(plan, context, _progress_printer())
    except GateInterrupted as stop:
        if sys.stderr.isatty():
            click.echo(err=True)  # past the running line, redrawn in place
        for line in interrupted_lines(stop.state, plan, str(logs), stop.why):
            click.echo(line)
        terminated = stop.why == "SIGTERM"
        raise Stopped(f"{'terminated' if terminated else 'aborted'} ({stop.why}): the gate "
                      "stopped; its results so far are above",
                      TERMINATED if terminated else INTERRUPTED) from None
    finally:
        close_halls()  # the remote seats' relays hear that the gate is over
    if json_path is not None:  # first: a closed standard output must not lose it
        json_path.write_text(json.dumps(gate_json(result, plan, bots, seed, str(logs)),
                                        indent=2) + "\n")
    for line in verdict_lines(result, plan, str(logs)):
        click.echo(line)
    if result.exit_code:
        raise click.exceptions.Exit(result.exit_code)


def _game(name: str) -> AnyGame:
    try:
        return games.lookup(name)
    except ConfigError as error:
        raise click.UsageError(str(error)) from None


def _own_options(game: AnyGame, values: dict[str, Any]) -> Options:
    """The game's options out of `values`; another game's given option is refused."""
    own = {option.name for option in game.options}
    for other in map(games.lookup, games.names()):
        for option in other.options:
            if option.name in own or option.name not in values:
                continue
            if values.pop(option.name) != option.default:
                raise click.UsageError(f"{option.flag} applies to {other.name}, "
                                       f"not {game.name}")
    return option_values(game, values)


def _sprt(delta: float, alpha: float, beta: float) -> SprtSettings:
    try:
        return SprtSettings(delta, alpha, beta)
    except ValueError as error:
        raise click.UsageError(f"--{error}") from None


def _logs_folder(given: Path | None, game: str) -> Path:
    """The game-logs folder, made now: one that cannot be is bad usage, before any game."""
    folder = given or Path("results") / (f"gate-{game}-{time.strftime('%Y%m%d-%H%M%S')}"
                                         f"-{os.getpid()}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise click.UsageError(f"cannot write game logs in {folder}: "
                               f"{describe_os_error(error)}") from None
    return folder


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # something is in it: keep it


def _progress_printer() -> Progress:
    """The running line on standard error: redrawn in place on a terminal."""
    live = sys.stderr.isatty()

    def show(state: GateState) -> None:
        line = running_line(state)
        click.echo(CLEAR_LINE + line if live else line, err=True, nl=not live)

    return show
