"""One logged game with bots: start them, referee the game, tell its account, stop them.

The one way a lineup is seated and a logged game is run, for `referee play` and for
tournament workers alike (`seated`, `player_entry`).

A game stopped before its end (Ctrl-C, SIGTERM, its account's reader gone) leaves a
log that ends with an `interrupted` record saying why: it reads up to there
(docs/game-log.md), and its bots are stopped as for any game.

Without a given seed the deal's seed is secret: drawn here, written only to the game log
(the organiser's), never printed and never sent to a bot, so no bot can compute the
others' hands. A seed the organiser gave is printed, as the organiser knows it anyway.
"""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence, TypeVar

from referee.matches.game import Echo, GameDefinition
from referee.logs.writer import GameLog
from referee.players.human import human_entry
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.players.player import Player
from referee.players.remote_player import RemotePlayer
from referee.settings import TimeLimits

C = TypeVar("C")
R = TypeVar("R")


@dataclass(frozen=True)
class LogOptions:
    path: Path | None = None
    timestamps: bool = True

    def open(self) -> GameLog | None:
        return GameLog.open(self.path, self.timestamps) if self.path else None


class OutputClosed(Exception):
    """The game's account could not be written: its reader is gone (stdout closed, as
    by `| head`). The game stops there."""


def secret_seed() -> int:
    """A random seed over the whole --seed range, too many for a bot to try them all."""
    return secrets.randbelow(2**63)


def seed_words(given: int | None, log_options: LogOptions) -> str:
    """How the account names the seed: a given one as it is, a secret one not at all."""
    if given is not None:
        return f"seed {given}"
    return "secret seed (in the log)" if log_options.path else "secret seed (not kept)"


def player_entry(seat: int, spec: BotSpec, player: Player) -> dict[str, Any]:
    """A seat as the log's header records it, with the name and version from HELLO."""
    entry: dict[str, Any] = {"seat": seat, "name": spec.label, "command": spec.command.text}
    if isinstance(player, RemotePlayer):
        entry["hello"] = {"name": player.hello.name, "version": player.hello.version}
        entry |= player.confinement()
    return entry | human_entry(player)


def write_header(log: GameLog | None, game: GameDefinition[C, R], config: C, seed: int,
                 times: TimeLimits, specs: Sequence[BotSpec],
                 players: Sequence[Player]) -> None:
    """The log's first record: game, seed, settings and seats (enough to replay)."""
    if log is not None:
        log.header(game.name, seed, game.log_settings(config, times),
                   [player_entry(seat, spec, player)
                    for seat, (spec, player) in enumerate(zip(specs, players))])


@contextmanager
def seated(specs: Sequence[BotSpec], launch: LaunchSettings,
           log_options: LogOptions) -> Iterator[tuple[list[Player], GameLog | None]]:
    """Start the bots and open the log; stop and close both afterwards. A game stopped
    on the way is marked so in its log, before its bots are stopped."""
    log = log_options.open()
    try:
        with Lineup(launch) as lineup:
            players = lineup.launch_all(specs)
            try:
                yield players, log
            except BaseException as stop:
                if log is not None:
                    log.interrupted(why_stopped(stop))
                raise
    finally:
        if log is not None:
            log.close()


def why_stopped(stop: BaseException) -> str:
    """What stopped a game, in the words of its log's `interrupted` record. SIGTERM comes
    as a KeyboardInterrupt that names it (referee.cli.main), Ctrl-C as a bare one."""
    if isinstance(stop, KeyboardInterrupt):
        return str(stop) or "SIGINT"
    if isinstance(stop, OutputClosed):
        return "standard output closed"
    return f"an error in the referee ({type(stop).__name__})"


def guarded(echo: Echo) -> Echo:
    """`echo`, raising OutputClosed when its reader is gone (EPIPE)."""
    def write(text: str) -> None:
        try:
            echo(text)
        except BrokenPipeError:
            raise OutputClosed("standard output closed") from None
    return write


def play_game(game: GameDefinition[C, R], specs: Sequence[BotSpec], config: C,
              given_seed: int | None, launch: LaunchSettings, log_options: LogOptions,
              echo: Echo) -> R:
    """One whole game with the given bots (no seed: a secret one); its account goes to
    `echo`."""
    names = [spec.label for spec in specs]
    seed = secret_seed() if given_seed is None else given_seed
    echo = guarded(echo)
    echo(game.heading(config, seed_words(given_seed, log_options)))
    echo("seats: " + ", ".join(f"{seat} {name}" for seat, name in enumerate(names)))
    with seated(specs, launch, log_options) as (players, log):
        write_header(log, game, config, seed, launch.times, specs, players)
        result = game.run(players, config, seed, launch.times, log, echo)
    for line in game.closing(names, result):
        echo(line)
    return result
