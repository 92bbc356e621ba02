"""A simulated arena: the arena's own matchmaking, ratings and stop rule, over games
whose places are drawn from known strengths instead of played. It checks what
`arena run --until-settled` promises (docs/arena.md, bench/arena_settle.py, and the
tests): that the order it stops on is the true one but for the stated error rate.

Places are drawn by Plackett-Luce, a version's weight exp(strength): the model the
ratings assume. Every rotation of a table draws anew, where a real duplicate deal's
rotations share their hands and so cancel some luck: the simulation is noisier than the
arena, not kinder.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.arena.leaderboard import Tally, unsettled
from tournaments.arena.matchmaking import ladder, plan_round
from tournaments.spec.settle_rule import SettleRule
from tournaments.stats.settle import judged_pairs
from tournaments.store.records import GameRecord


@dataclass(frozen=True)
class Simulated:
    rounds: int
    games: int
    settled: bool
    order: tuple[str, ...]  # the ladder it stopped on, best first
    wrong_pairs: int  # neighbours in that order whose true order is the other way
    pairs: int  # the neighbour pairs the rule judged (all, or top K against the rest)


def simulate(strengths: Mapping[str, float], size: int, rule: SettleRule,
             max_games: int, rng: random.Random, placement: int = 3,
             min_tables: int = 1) -> Simulated:
    """One arena of versions of known `strengths`, run until `rule` holds or `max_games`."""
    counted = Tally()
    rounds = games = 0
    while games < max_games:
        rounds += 1
        entries = counted.entries_of(list(strengths))
        for number, table in enumerate(plan_round(entries, size, placement, rng, min_tables)):
            for rotation in range(size):
                seats = tuple(table[(seat + rotation) % size] for seat in range(size))
                counted.add(rounds, _drawn(f"sim/d1/t{number:04d}/r{rotation}", seats,
                                           strengths, rng))
                games += 1
        if not unsettled(counted.entries_of(list(strengths)), rule):
            return _result(counted, strengths, rule, rounds, games, True)
    return _result(counted, strengths, rule, rounds, games, False)


def _drawn(fixture_id: str, seats: Sequence[str], strengths: Mapping[str, float],
           rng: random.Random) -> GameRecord:
    left, finish = list(seats), []
    while left:
        pick = rng.choices(left, [math.exp(strengths[label]) for label in left])[0]
        finish.append(pick)
        left.remove(pick)
    places = tuple(finish.index(label) + 1 for label in seats)
    return GameRecord(fixture_id, "sim", 0, tuple(seats), tuple(-p for p in places), places)


def _result(counted: Tally, strengths: Mapping[str, float], rule: SettleRule, rounds: int,
            games: int, settled: bool) -> Simulated:
    order = tuple(entry.label for entry in ladder(counted.entries_of(list(strengths))))
    judged = judged_pairs(order, rule)
    wrong = sum(strengths[high] < strengths[low] for high, low in judged)
    return Simulated(rounds, games, settled, order, wrong, len(judged))
