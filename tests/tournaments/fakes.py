"""Deterministic fake games for the tournament tests: no engines, no bot processes."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from referee.errors import Fault
from protocols.faults import FaultKind
from referee.registry.games import AnyGame
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture


TEST_SECRET = bytes(range(32))  # a fixed deal secret, for fixtures made without a store


@dataclass(frozen=True)
class FakeContext:
    """What the fake play functions need: the bot names, a per-game delay, a fixture to
    fail on (a referee bug) and a fixture to be interrupted on (Ctrl-C)."""

    bots: tuple[str, ...]
    delay: float = 0.0
    fail_on: str | None = None
    interrupt_on: str | None = None


def make_spec(game: AnyGame = RAGE, n_bots: int = 5, **options: Any) -> TournamentSpec:
    """A spec with bots named a, b, c, ... running harmless commands."""
    bots = tuple(BotEntry(chr(ord("a") + i), f"python bot_{i}.py") for i in range(n_bots))
    return TournamentSpec.create(game, bots, **options)


def places_of(scores: list[int]) -> tuple[int, ...]:
    """Place per seat, higher score better, equal scores sharing a place."""
    return tuple(1 + sum(other > score for other in scores) for score in scores)


def fake_play(fixture: Fixture, context: FakeContext) -> GameRecord:
    """A made-up game whose result depends on the fixture alone; bot i is stronger with i."""
    if context.delay:
        time.sleep(context.delay)
    if fixture.fixture_id == context.fail_on:
        raise ValueError("engine exploded")
    if fixture.fixture_id == context.interrupt_on:
        raise KeyboardInterrupt
    rng = random.Random(f"{fixture.seed} {fixture.seats}")
    bots = tuple(context.bots[index] for index in fixture.seats)
    if fixture.game == THEGAME.name:
        return _thegame_record(fixture, bots, rng)
    scores = [rng.randint(-30, 30) + 4 * index for index in fixture.seats]
    faults = tuple(Fault(seat, bots[seat], FaultKind.TIMEOUT, "too slow")
                   for seat in range(len(bots)) if rng.random() < 0.03)
    places = list(places_of(scores))
    for fault in faults:  # faulted seats finish last
        places[fault.seat] = len(bots)
    return GameRecord(fixture.fixture_id, fixture.game, fixture.seed, bots, tuple(scores),
                      tuple(places), faults)


def _thegame_record(fixture: Fixture, bots: tuple[str, ...], rng: random.Random) -> GameRecord:
    left = max(0, rng.randint(-5, 40) - 3 * sum(fixture.seats))
    return GameRecord(fixture.fixture_id, fixture.game, fixture.seed, bots,
                      (left,) * len(bots), (1,) * len(bots), won=left == 0, cards_left=left,
                      end_reason="no legal turn" if left else "all cards played")
