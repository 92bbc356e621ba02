"""`referee play`: start the bots, referee one game, print its account, stop the bots."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from referee.game_log import GameLog
from referee.games.rage import Event, RageConfig, RoundScored, TrumpSet
from referee.games.rage_cards import Colour
from referee.lineup import BotSpec, LaunchSettings, Lineup
from referee.rage_match import RageMatch, RageResult, game_settings
from referee import rage_render

Echo = Callable[[str], None]


@dataclass(frozen=True)
class LogOptions:
    path: Path | None = None
    timestamps: bool = True

    def open(self) -> GameLog | None:
        return GameLog.open(self.path, self.timestamps) if self.path else None


class RoundPrinter:
    """Observer that prints a compact line as each round is scored."""

    def __init__(self, players: int, echo: Echo) -> None:
        self.echo = echo
        self.totals = [0] * players
        self.deal_trump: Colour | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, TrumpSet) and event.reason == "deal":
            self.deal_trump = event.colour
        elif isinstance(event, RoundScored):
            self.totals = [t + s.total for t, s in zip(self.totals, event.result.seats)]
            self.echo(rage_render.round_line(event.result, self.deal_trump, self.totals))


def play_rage(specs: Sequence[BotSpec], config: RageConfig, seed: int,
              launch: LaunchSettings, log_options: LogOptions, echo: Echo) -> RageResult:
    """One whole game of Rage with the given bots; its account goes to `echo`."""
    names = [spec.label for spec in specs]
    echo(f"Rage, {config.players} players, seed {seed}, variants: "
         f"{', '.join(sorted(v.value for v in config.variants)) or 'none'}")
    echo("seats: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(names)))
    log = log_options.open()
    try:
        if log is not None:
            log.header("rage", seed, game_settings(config, launch.times),
                       [{"seat": s, "name": spec.label, "command": spec.command.text}
                        for s, spec in enumerate(specs)])
        with Lineup(launch) as lineup:
            players = lineup.launch_all(specs)
            match = RageMatch(players, config, seed, launch.times, log,
                              RoundPrinter(config.players, echo))
            result = match.run()
    finally:
        if log is not None:
            log.close()
    echo("")
    echo(rage_render.score_sheet(names, result.rounds))
    echo("")
    echo(rage_render.standings(names, result.totals, result.places, result.faults))
    return result
