"""`referee check --game GAME BOT`: the conformance suite for one bot (referee.conformance).

Exit codes: 0 every check passed (warnings allowed), 1 a check failed, 2 bad usage.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import click

from referee.cli.errors import quiet_stdout
from referee.cli.remote import remote_options, with_remote
from referee.cli.options import (
    LogPath, bot_dir_option, bot_limit_options, declared_dirs, launch_settings, sandbox_options,
    sandbox_settings,
)
from referee.conformance.reports import (
    closing_lines, summary_line, write_json, write_junit,
)
from referee.conformance.sessions import Bench
from referee.conformance.setups import AnyGame, full_setups, sample_bots
from referee.conformance.suite import ROW_GAMES, run_suite
from referee.errors import ConfigError
from referee.players.lineup import (
    BotSpec, LaunchSettings, bot_labels, bot_specs, sandbox_view,
)
from referee.players.remote_seats import close_halls
from referee.registry import games


@click.command("check")
@click.argument("bot")
@click.option("--game", "game_name", required=True, metavar="GAME",
              help="The game to check the bot at: " + ", ".join(games.names()) + ".")
@click.option("--quick", is_flag=True,
              help="A subset in a few seconds (HELLO, one game, BYE), for pre-commit hooks.")
@click.option("--junit", "junit_path", type=LogPath(), default=None,
              help="Also write a JUnit XML report here (one testcase per check).")
@click.option("--json", "json_path", type=LogPath(), default=None,
              help="Also write a JSON report here (its shape: README, Checking a bot).")
@click.option("--opponent", "opponents", multiple=True, metavar="BOT",
              help="A bot for the other seats (repeatable; default: the game's sample bots).")
@bot_limit_options
@sandbox_options
@bot_dir_option
@remote_options
def check_command(bot: str, game_name: str, quick: bool, junit_path: Path | None,
                  json_path: Path | None, opponents: tuple[str, ...], sandbox: str,
                  sandbox_dirs: tuple[Path, ...], bot_dirs: tuple[tuple[str, Path], ...],
                  listen: str | None, referee_key: Path, **limits: Any) -> int:
    """Check that BOT speaks the protocol and plays by the rules: HELLO, a whole game at
    every seat count and with every option, games in a row, BYE, reply times. The other
    seats hold sample bots. Exit 0: it conforms; 1: it does not; 2: bad usage."""
    game = _game(game_name)
    dirs = declared_dirs(bot_dirs)
    name = bot_labels([bot])[0]
    own = bot_specs([bot], dirs={name: dirs[name]} if name in dirs else {})[0]
    others = bot_specs(opponents or sample_bots(game),
                       dirs={other: d for other, d in dirs.items() if other != name})
    if not others:
        raise click.UsageError(f"no sample bots of {game.title} found: give --opponent BOT")
    launch = with_remote(_launch(limits, sandbox, sandbox_dirs), [own, *others], listen,
                         referee_key)
    bench = Bench(game, own, others, launch)
    _say(_heading(game, own, others, quick))
    try:
        report = run_suite(bench, quick, lambda verdict: _say(summary_line(verdict)))
    finally:
        close_halls()  # the remote seats' relays hear that the check is over
    for line in closing_lines(report):
        _say(line)
    if junit_path is not None:
        write_junit(report, junit_path)
    if json_path is not None:
        write_json(report, json_path)
    return 0 if report.passed else 1


def _say(line: str) -> None:
    """A line of the summary on standard output. Once its reader is gone (`| head`),
    nothing more goes there and the check goes on: its --junit and --json reports, and
    its exit code, are what CI keeps (click would exit 1 at once, as for a failed check)."""
    try:
        click.echo(line)
    except BrokenPipeError:
        quiet_stdout()


def _game(name: str) -> AnyGame:
    try:
        return games.lookup(name)
    except ConfigError as error:  # an unknown game
        raise click.BadParameter(str(error), param_hint="'--game'") from None


def _launch(limits: dict[str, Any], sandbox: str,
            sandbox_dirs: Sequence[Path]) -> LaunchSettings:
    """As `referee play` starts bots; ConfigError before any output where `--sandbox on`
    or `--clock cpu` cannot be had."""
    settings = launch_settings(**limits)
    settings = replace(settings, sandbox=sandbox_settings(sandbox, sandbox_dirs,
                                                          settings.times.clock))
    sandbox_view(settings)
    return settings


def _heading(game: AnyGame, bot: BotSpec, opponents: Sequence[BotSpec], quick: bool) -> str:
    played = 2 if quick else len(full_setups(game)) + ROW_GAMES
    kind = "quick check" if quick else "full check"
    others = ", ".join(spec.label for spec in opponents)
    return f"referee check: {game.title}, {kind} of {bot.label} ({played} games; others: {others})"
