"""`referee play GAME BOT...`: one game between bots, refereed and optionally logged.

One command per registered game, built from its definition when asked for, so a game
added to the registry has its command without an edit here.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from referee.cli.options import (
    FAULTED_EXIT, Seconds, bot_dir_option, bot_limit_options, declared_dirs,
    fail_on_fault_option, game_options, launch_settings, option_values, per_game_options, sandbox_options,
    sandbox_settings,
)
from referee.cli.errors import Stopped, quiet_stdout
from referee.cli.remote import remote_options, with_remote
from referee.cli.exit_codes import INTERRUPTED, STDOUT_CLOSED, TERMINATED
from referee.errors import ConfigError, Fault
from referee.printable import printable
from referee.matches.logged_game import LogOptions, OutputClosed, play_game
from referee.ansi import Paint, wants_colour
from referee.players.human import Console, HumanPlayer, Idle
from referee.players.lineup import BotSpec, LaunchSettings, sandbox_view, seat_specs
from referee.players.player import Player
from referee.players.remote_seats import close_halls
from referee.registry import games
from referee.reproduce import command_hint
from referee.registry.games import AnyGame
from referee.viewer.fault_steps import with_steps


class PlayGroup(click.Group):
    """`referee play`: its commands are the registry's games."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(games.names())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        try:
            return play_command(games.lookup(name))
        except ConfigError:
            return None


@click.group(cls=PlayGroup, no_args_is_help=False)
def play() -> None:
    """Referee one game between bots. A BOT is a command line, or stdio:COMMAND; write
    NAME=COMMAND to name it (else it is named after its program)."""


def play_command(game: AnyGame) -> click.Command:
    """The `referee play` command of one game."""
    most = game.seats.stop - 1

    @click.command(game.name, help=f"Referee one game of {game.title} for "
                                   f"{game.seats.start} to {most} BOTs. A BOT is a command "
                                   "line, or stdio:COMMAND; NAME=COMMAND names it; "
                                   "`human` (or human=NAME) seats you, playing in this "
                                   "terminal (docs/human.md).")
    @click.argument("bots", nargs=-1, required=True)
    @click.option("--human-time", type=Seconds(), default=None,
                  help="Seconds a human seat has per decision (default: no clock).")
    @fail_on_fault_option
    @per_game_options(game)
    @game_options
    @bot_limit_options
    @sandbox_options
    @bot_dir_option
    @remote_options
    def command(bots: tuple[str, ...], human_time: float | None, fail_on_fault: bool,
                seed: int | None,
                log_path: Path | None, log_times: bool, sandbox: str,
                sandbox_dirs: tuple[Path, ...], bot_dirs: tuple[tuple[str, Path], ...],
                listen: str | None, referee_key: Path, **rest: Any) -> None:
        game.check_players(len(bots))
        options = option_values(game, rest)
        config = game.configure(len(bots), options)
        launch = _play_launch(rest, sandbox, sandbox_dirs, log_path)
        specs = seat_specs(bots, dirs=declared_dirs(bot_dirs))
        launch = with_remote(launch, specs, listen, referee_key)
        if any(spec.human for spec in specs):
            launch = replace(launch, human=_human_seat(game, human_time))
        try:
            result = play_game(game, specs, config, seed, launch,
                               LogOptions(log_path, log_times), click.echo)
        except OutputClosed:
            quiet_stdout()
            raise Stopped("standard output closed: the game stopped"
                          f"{_kept(log_path)}", STDOUT_CLOSED) from None
        except KeyboardInterrupt as stop:  # SIGTERM comes as one too (referee.cli.main)
            name = str(stop) or "SIGINT"
            raise Stopped(f"{'terminated' if name == 'SIGTERM' else 'aborted'} ({name}): "
                          f"the game stopped{_kept(log_path)}",
                          TERMINATED if name == "SIGTERM" else INTERRUPTED) from None
        finally:
            close_halls()  # the remote seats' relays hear that the game is over
        faults = game.outcome(result).faults
        if log_path is not None:  # the steps `referee view LOG` shows them at
            faults = with_steps(faults, log_path)
        report_faults(faults, log_path, specs)
        if fail_on_fault and faults:
            raise click.exceptions.Exit(FAULTED_EXIT)

    return command


def _human_seat(game: AnyGame, move_time: float | None) -> Callable[[str, Idle], Player]:
    """How a person's seat is made: the game's desk on this terminal (standard input and
    output), with the given clock. ConfigError for a game with no terminal board."""
    terminal = game.terminal()
    if terminal is None:
        raise ConfigError(f"{game.title} has no terminal board: no human can play it")
    out = sys.stdout
    console = Console(sys.stdin, out, clear=out.isatty())
    paint = Paint(wants_colour(out))
    return lambda name, idle: HumanPlayer(name, terminal.desk(paint), console, move_time,
                                          idle)


def _kept(log_path: Path | None) -> str:
    """What a stopped `play` kept: its log, up to where it stopped."""
    if log_path is None:
        return " and its bots with it"
    return f" and its bots with it; the log {log_path} holds the game up to there"


def _play_launch(limits: dict[str, Any], sandbox: str, sandbox_dirs: Sequence[Path],
                 log_path: Path | None) -> LaunchSettings:
    """`play`'s launch settings: no bot may see the game log. ConfigError now, before
    any output, where `--sandbox on` or `--clock cpu` cannot be had."""
    secrets = (log_path.resolve(),) if log_path is not None else ()
    settings = launch_settings(**limits)
    settings = replace(settings, secrets=secrets, sandbox=sandbox_settings(
        sandbox, sandbox_dirs, settings.times.clock))
    sandbox_view(settings)
    return settings


def report_faults(faults: Sequence[Fault], log_path: Path | None = None,
                  specs: Sequence[BotSpec] = ()) -> None:
    """Diagnostics: each fault on standard error, with where it happened, the offending
    line and the last lines of the bot's stderr (already escaped), and with a log, the
    command that plays the faulted seat again (`specs`: who sat where)."""
    for fault in faults:
        line = f" (line: {fault.line[:120]!r})" if fault.line is not None else ""
        again = _again(fault.seat, log_path, specs) if log_path else ""
        click.echo(f"referee: fault: seat {fault.seat} {printable(fault.bot)}: "
                   f"{printable(fault.summary())}{line}{again}", err=True)
        if fault.stderr:
            click.echo(f"referee: its stderr ended with {len(fault.stderr)} line(s):",
                       err=True)
            for text in fault.stderr:
                click.echo(f"    {text}", err=True)


def _again(seat: int, log_path: Path, specs: Sequence[BotSpec]) -> str:
    """"; " and the reproduce command for a faulted seat. `referee reproduce` seats a
    bot: a person's seat has none (nothing to suggest), and a remote seat's runs
    elsewhere, so its command asks for the bot."""
    spec = specs[seat] if seat < len(specs) else None
    if spec is not None and spec.human:
        return ""
    hint = command_hint(seat, log_path=log_path)
    return f"; {hint} BOT (the remote bot's own command)" if spec and spec.remote else \
        f"; {hint}"
