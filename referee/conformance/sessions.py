"""Playing the suite's games: the bot under check in one seat, sample bots in the others,
started and refereed by the real machinery (Lineup, the game's own match).

The processes are reused from game to game, as a tournament's persistent bots are; one
that faulted (and so was killed) is started afresh for the next game.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee.conformance.recording import RecordingPlayer, Reply
from referee.conformance.setups import AnyGame, Setup
from referee.errors import BotFault, Fault
from referee.players.lineup import BotSpec, FaultedPlayer, LaunchSettings, Lineup, unique_labels
from referee.players.player import Player
from referee.players.remote_player import RemotePlayer


@dataclass
class Bench:
    """What every session of one check run shares, and what they found."""

    game: AnyGame
    bot: BotSpec
    opponents: Sequence[BotSpec]  # cycled through the other seats
    launch: LaunchSettings
    replies: list[Reply] = field(default_factory=list)
    faults: list[tuple[str, Fault]] = field(default_factory=list)  # (check name, bot's fault)

    def others(self, count: int) -> list[BotSpec]:
        """The first `count` bots of the other seats, named `other-NAME` (numbered where
        repeated); the same names whatever the count."""
        most = self.game.seats.stop - 2
        cycled = [self.opponents[i % len(self.opponents)] for i in range(max(most, count))]
        labels = unique_labels([f"other-{spec.label}" for spec in cycled])
        return [replace(spec, label=label) for spec, label in zip(cycled, labels)][:count]


@dataclass(frozen=True)
class Started:
    """The bot's player, and how long its start took (from spawn to HELLO or its fault)."""

    player: Player
    seconds: float

    @property
    def fault(self) -> BotFault | None:
        return self.player.error if isinstance(self.player, FaultedPlayer) else None


def start_bot(lineup: Lineup, spec: BotSpec, stderr: Path | None = None) -> Started:
    start = time.monotonic()
    player = lineup.launch(spec, stderr)
    return Started(player, time.monotonic() - start)


class Pool:
    """The game sessions' processes: the bot's and the others', each started when first
    needed and again after it was closed (a fault kills a bot)."""

    def __init__(self, bench: Bench, lineup: Lineup) -> None:
        self.bench = bench
        self.lineup = lineup
        self.first: Started | None = None  # the bot's first start: the HELLO check's
        self._bot: Player | None = None
        self._others: list[Player] = []

    def seated(self, players: int, seat: int) -> list[Player]:
        """Players for one game: the bot (recording its replies) at `seat`."""
        others = [self._other(index, spec)
                  for index, spec in enumerate(self.bench.others(players - 1))]
        own = RecordingPlayer(self._own(), self.bench.replies)
        return [*others[:seat], own, *others[seat:]]

    def _own(self) -> Player:
        if self._bot is None or not _usable(self._bot):
            started = start_bot(self.lineup, self.bench.bot)
            self.first = self.first or started
            self._bot = started.player
        return self._bot

    def _other(self, index: int, spec: BotSpec) -> Player:
        if index == len(self._others):
            self._others.append(self.lineup.launch(spec))
        elif not _usable(self._others[index]):
            self._others[index] = self.lineup.launch(spec)
        return self._others[index]


def _usable(player: Player) -> bool:
    return isinstance(player, RemotePlayer) and not player.closed


@dataclass(frozen=True)
class GameRun:
    faults: list[Fault]  # those charged to the bot
    requests: int  # the bot's requests answered in this game
    seconds: float


def play_setup(bench: Bench, pool: Pool, setup: Setup, name: str) -> GameRun:
    """One whole game of `setup`, with the pool's processes."""
    begin = time.monotonic()
    config = bench.game.configure(setup.players, setup.options)
    players = pool.seated(setup.players, setup.seat)
    answered = len(bench.replies)
    result = bench.game.run(players, config, setup.seed, bench.launch.times, None)
    faults = bot_faults(bench, result, setup.seat)
    bench.faults.extend((name, fault) for fault in faults)
    return GameRun(faults, len(bench.replies) - answered, time.monotonic() - begin)


def bot_faults(bench: Bench, result: object, seat: int) -> list[Fault]:
    """The faults the game charged to the bot's seat."""
    return [f for f in bench.game.outcome(result).faults if f.seat == seat]
