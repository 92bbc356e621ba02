"""`referee play`: start the bots, referee one game, print its account, stop the bots.

Without a given seed the deal's seed is secret: drawn here, written only to the game log
(the organiser's), never printed and never sent to a bot, so no bot can compute the
others' hands. A seed the organiser gave is printed, as the organiser knows it anyway.
"""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from referee.matches import rage_match
from referee.matches import rage_render
from referee.matches import thegame_match
from referee.matches import thegame_render
from referee.matches.game_log import GameLog
from referee.games.rage import Event as RageEvent, RageConfig, RoundScored, TrumpSet
from referee.games.rage_cards import Colour
from referee.games.thegame import Event as TheGameEvent, TheGameConfig, TheGameState, TurnPlayed
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.players.player import Player
from referee.players.remote_player import RemotePlayer

Echo = Callable[[str], None]


@dataclass(frozen=True)
class LogOptions:
    path: Path | None = None
    timestamps: bool = True

    def open(self) -> GameLog | None:
        return GameLog.open(self.path, self.timestamps) if self.path else None


def secret_seed() -> int:
    """A random seed over the whole --seed range, too many for a bot to try them all."""
    return secrets.randbelow(2**63)


def seed_words(given: int | None, log_options: LogOptions) -> str:
    """How the account names the seed: a given one as it is, a secret one not at all."""
    if given is not None:
        return f"seed {given}"
    return "secret seed (in the log)" if log_options.path else "secret seed (not kept)"


def _player_entry(seat: int, spec: BotSpec, player: Player) -> dict[str, Any]:
    entry: dict[str, Any] = {"seat": seat, "name": spec.label, "command": spec.command.text}
    if isinstance(player, RemotePlayer):
        entry["hello"] = {"name": player.hello.name, "version": player.hello.version}
        entry |= player.confinement()
    return entry


@contextmanager
def seated(game: str, seed: int, settings: dict[str, Any], specs: Sequence[BotSpec],
           launch: LaunchSettings, log_options: LogOptions
           ) -> Iterator[tuple[list[Player], GameLog | None]]:
    """Start the bots and open the log (header written); stop and close both afterwards."""
    log = log_options.open()
    try:
        with Lineup(launch) as lineup:
            players = lineup.launch_all(specs)
            if log is not None:
                log.header(game, seed, settings,
                           [_player_entry(s, spec, p)
                            for s, (spec, p) in enumerate(zip(specs, players))])
            yield players, log
    finally:
        if log is not None:
            log.close()


class RoundPrinter:
    """Observer that prints a compact line as each Rage round is scored."""

    def __init__(self, players: int, echo: Echo) -> None:
        self.echo = echo
        self.totals = [0] * players
        self.deal_trump: Colour | None = None

    def __call__(self, event: RageEvent) -> None:
        if isinstance(event, TrumpSet) and event.reason == "deal":
            self.deal_trump = event.colour
        elif isinstance(event, RoundScored):
            self.totals = [t + s.total for t, s in zip(self.totals, event.result.seats)]
            self.echo(rage_render.round_line(event.result, self.deal_trump, self.totals))


def play_rage(specs: Sequence[BotSpec], config: RageConfig, given_seed: int | None,
              launch: LaunchSettings, log_options: LogOptions,
              echo: Echo) -> rage_match.RageResult:
    """One whole game of Rage with the given bots (no seed: a secret one); its account
    goes to `echo`."""
    names = [spec.label for spec in specs]
    seed = secret_seed() if given_seed is None else given_seed
    echo(f"Rage, {config.players} players, {seed_words(given_seed, log_options)}, variants: "
         f"{', '.join(sorted(v.value for v in config.variants)) or 'none'}")
    echo("seats: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(names)))
    settings = rage_match.game_settings(config, launch.times)
    with seated("rage", seed, settings, specs, launch, log_options) as (players, log):
        match = rage_match.RageMatch(players, config, seed, launch.times, log,
                                     RoundPrinter(config.players, echo))
        result = match.run()
    echo("")
    echo(rage_render.score_sheet(names, result.rounds))
    echo("")
    echo(rage_render.standings(names, result.totals, result.places, result.faults))
    return result


class TurnPrinter:
    """Observer that prints a compact line after each turn of The Game."""

    def __init__(self, names: Sequence[str], echo: Echo) -> None:
        self.names, self.echo = names, echo
        self.state: TheGameState | None = None
        self.turns = 0

    def __call__(self, event: TheGameEvent) -> None:
        if isinstance(event, TurnPlayed) and self.state is not None:
            self.turns += 1
            self.echo(thegame_render.turn_line(self.turns, event, self.names, self.state))


def play_thegame(specs: Sequence[BotSpec], config: TheGameConfig, given_seed: int | None,
                 launch: LaunchSettings, log_options: LogOptions,
                 echo: Echo) -> thegame_match.TheGameResult:
    """One whole cooperative game of The Game (Extreme) (no seed: a secret one); its
    account goes to `echo`."""
    names = [spec.label for spec in specs]
    seed = secret_seed() if given_seed is None else given_seed
    mode = "The Game Extreme" if config.commands is not None else "The Game (no commands)"
    echo(f"{mode}, {config.players} player(s), {seed_words(given_seed, log_options)}")
    echo("seats: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(names)))
    settings = thegame_match.game_settings(config, launch.times)
    printer = TurnPrinter(names, echo)
    with seated("thegame", seed, settings, specs, launch, log_options) as (players, log):
        match = thegame_match.TheGameMatch(players, config, seed, launch.times, log, printer)
        printer.state = match.state
        result = match.run()
    echo("")
    echo(thegame_render.summary(result))
    return result
