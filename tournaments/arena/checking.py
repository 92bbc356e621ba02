"""The gate a version passes before it plays: `referee check --quick` (HELLO, one game,
BYE) against the game's sample bots, its report kept with the version."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.conformance.reports import closing_lines, summary_line
from referee.conformance.sessions import Bench
from referee.conformance.setups import sample_bots
from referee.conformance.suite import run_suite
from referee.errors import BotStartError
from referee.players.lineup import LaunchSettings, bot_specs
from referee.registry.games import lookup


@dataclass(frozen=True)
class Checked:
    passed: bool
    report: str  # the check's lines, as `referee check --quick` prints them


def quick_check(game_name: str, name: str, command: str, folder: Path | None) -> Checked:
    """Run the quick conformance suite on one version; a command that cannot start fails."""
    game = lookup(game_name)
    try:
        own = bot_specs([f"{name}={command}"], dirs={} if folder is None else {name: folder})[0]
        others = bot_specs(sample_bots(game))
    except BotStartError as error:
        return Checked(False, f"FAIL  start: {error}")
    lines: list[str] = []
    report = run_suite(Bench(game, own, others, LaunchSettings()), True,
                       lambda verdict: lines.append(summary_line(verdict)))
    return Checked(report.passed, "\n".join(lines + closing_lines(report)))
