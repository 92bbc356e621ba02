"""`referee play`: one game between bots, refereed and optionally logged."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import click

from referee.cli.options import (
    bot_limit_options, game_options, launch_settings, sandbox_options, sandbox_settings,
)
from referee.errors import Fault
from referee.games.rage import RageConfig, Variant
from referee.games.thegame import TheGameConfig
from referee.games.thegame_commands import DEFAULT_COMMANDS, CommandMap, load_command_map
from referee.matches.play import LogOptions, play_rage, play_thegame
from referee.players.lineup import LaunchSettings, bot_specs, sandbox_view


@click.group(no_args_is_help=False)
def play() -> None:
    """Referee one game between bots. A BOT is a command line, or stdio:COMMAND."""


@play.command("rage")
@click.argument("bots", nargs=-1, required=True)
@click.option("--variant", "variants", multiple=True,
              type=click.Choice([v.value for v in Variant]),
              help="A rule variant (repeatable).")
@game_options
@bot_limit_options
@sandbox_options
def play_rage_command(bots: tuple[str, ...], variants: tuple[str, ...], seed: int | None,
                      log_path: Path | None, log_times: bool, sandbox: str,
                      sandbox_dirs: tuple[Path, ...], **limits: Any) -> None:
    """Referee one game of Rage between 3 and 8 BOTs."""
    if not 3 <= len(bots) <= 8:
        raise click.UsageError(f"Rage needs 3 to 8 bots, got {len(bots)}")
    config = RageConfig(len(bots), frozenset(Variant(v) for v in variants))
    launch = _play_launch(limits, sandbox, sandbox_dirs, log_path)
    result = play_rage(bot_specs(bots), config, seed, launch,
                       LogOptions(log_path, log_times), click.echo)
    report_faults(result.faults)


@play.command("thegame")
@click.argument("bots", nargs=-1, required=True)
@click.option("--no-commands", is_flag=True, help="Play the original The Game (no command cards).")
@click.option("--commands", "commands_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="TOML file mapping card numbers to commands.")
@game_options
@bot_limit_options
@sandbox_options
def play_thegame_command(bots: tuple[str, ...], no_commands: bool, commands_file: Path | None,
                         seed: int | None, log_path: Path | None, log_times: bool,
                         sandbox: str, sandbox_dirs: tuple[Path, ...],
                         **limits: Any) -> None:
    """Referee one cooperative game of The Game Extreme for 1 to 5 BOTs."""
    if not 1 <= len(bots) <= 5:
        raise click.UsageError(f"The Game needs 1 to 5 bots, got {len(bots)}")
    config = TheGameConfig(len(bots), command_map(no_commands, commands_file))
    launch = _play_launch(limits, sandbox, sandbox_dirs, log_path)
    result = play_thegame(bot_specs(bots), config, seed, launch,
                          LogOptions(log_path, log_times), click.echo)
    report_faults(result.faults)


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


def report_faults(faults: Sequence[Fault]) -> None:
    """Diagnostics: each fault on standard error, with the offending line."""
    for fault in faults:
        line = f" (line: {fault.line[:120]!r})" if fault.line is not None else ""
        click.echo(f"referee: fault: seat {fault.seat} {fault.bot}: {fault.kind.value}: "
                   f"{fault.detail}{line}", err=True)


def command_map(no_commands: bool, path: Path | None) -> CommandMap | None:
    """The command cards in play: none, a loaded mapping, or the shipped default."""
    if no_commands and path is not None:
        raise click.UsageError("--no-commands and --commands exclude each other")
    if no_commands:
        return None
    return load_command_map(path) if path is not None else DEFAULT_COMMANDS
