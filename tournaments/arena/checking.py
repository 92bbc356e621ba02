"""The gate a version passes before it plays: `referee check --quick` (HELLO, one game,
BYE) against the game's sample bots, its report kept with the version. The game is the
arena's own (its table size, variants, time and resource limits): a version that passed
a check of another game could fault at every table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.conformance.reports import closing_lines, summary_line
from referee.conformance.sessions import Bench
from referee.conformance.setups import sample_bots, setup_of
from referee.conformance.suite import run_suite
from referee.errors import BotStartError, ConfigError
from referee.players.lineup import LaunchSettings, bot_specs
from referee.registry.games import lookup
from tournaments.arena.store import Settings


@dataclass(frozen=True)
class Checked:
    passed: bool
    report: str  # the check's lines, as `referee check --quick` prints them


def quick_check(settings: Settings, name: str, command: str, folder: Path | None) -> Checked:
    """Run the quick conformance suite on one version, at one table of the arena's game;
    a command that cannot start fails. ConfigError where the arena's settings are bad."""
    game = lookup(settings.game)
    try:
        setup = setup_of(game, settings.table_size, dict(settings.options))
    except ConfigError as error:
        raise ConfigError(f"the arena's settings (arena.toml): {error}") from None
    try:
        own = bot_specs([f"{name}={command}"], dirs={} if folder is None else {name: folder})[0]
        others = bot_specs(sample_bots(game))
    except BotStartError as error:
        return Checked(False, f"FAIL  start: {error}")
    lines: list[str] = []
    launch = LaunchSettings(times=settings.time_limits, limits=settings.resource_limits)
    report = run_suite(Bench(game, own, others, launch), True,
                       lambda verdict: lines.append(summary_line(verdict)), [setup])
    return Checked(report.passed, "\n".join(lines + closing_lines(report)))
