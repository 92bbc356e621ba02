"""Which tables an arena's next round plays (docs/arena.md, "Matchmaking").

What it follows:
- CodinGame's arena and Halite rate with TrueSkill, and seat a player with opponents near
  it on the ladder, since a game between near equals says most about their order;
- Halite, and CodinGame's placement, first play a new submission against opponents from
  the whole ladder, so that it finds its level in few games;
- openskill's ordinal, mu - 3 sigma, is the conservative score the leaderboard ranks by
  (leaderboard.py), and the order the tables are chosen along.

A round seats every active version at least once, so none is left out of play. Versions
still in placement each get a table with opponents drawn from across the ladder. Then
the neighbour pairs of the ladder are taken least certain first (the probability that
the higher is stronger, closest to a coin toss), and each pair not yet seated gets the
table of `size` consecutive versions around it. The result is a pure function of the
ratings and the random stream, so a simulation (bench/arena_settle.py) plays exactly
what `arena run` plays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.stats.settle import above

Rating = tuple[float, float]  # (mu, sigma)


@dataclass(frozen=True)
class Entry:
    """An active version as matchmaking sees it."""

    label: str
    rating: Rating
    tables: int  # tables it has played (each table: every seat rotation of one deal)


def conservative(rating: Rating) -> float:
    """openskill's ordinal: the strength the version is 99.7% sure to have at least."""
    return rating[0] - 3 * rating[1]


def ladder(entries: Sequence[Entry]) -> list[Entry]:
    """The leaderboard's order: conservative score, best first, then label."""
    return sorted(entries, key=lambda entry: (-conservative(entry.rating), entry.label))


def plan_round(entries: Sequence[Entry], size: int, placement: int, rng: random.Random,
               min_tables: int = 1) -> list[tuple[str, ...]]:
    """The tables of the next round, each `size` distinct labels. Needs `size` entries.
    Passes over the ladder are repeated until the round holds `min_tables` tables, so
    that a small arena still gives every worker games to play."""
    if len(entries) < size:
        raise ValueError(f"{len(entries)} active versions cannot fill a table of {size}")
    order = ladder(entries)
    tables = [_placement_table(entry, order, size, rng)
              for entry in order if entry.tables < placement]
    pairs = _pairs_least_certain_first(order)
    seated = {label for table in tables for label in table}
    while True:
        tables += _one_pass(order, pairs, size, seated)
        if len(tables) >= min_tables:
            return tables
        seated = set()


def _one_pass(order: Sequence[Entry], pairs: Sequence[int], size: int,
              seated: set[str]) -> list[tuple[str, ...]]:
    """Tables around the pairs in turn, until every version is seated."""
    tables = []
    for index in pairs:
        if {order[index].label, order[index + 1].label} <= seated:
            continue
        table = _window(order, index, size, seated)
        tables.append(table)
        seated.update(table)
    return tables


def _placement_table(entry: Entry, order: Sequence[Entry], size: int,
                     rng: random.Random) -> tuple[str, ...]:
    """`entry` with one opponent from each of `size - 1` bands of the ladder, top to
    bottom, so that its first games span every level."""
    others = [other.label for other in order if other.label != entry.label]
    bands = [others[len(others) * b // (size - 1):len(others) * (b + 1) // (size - 1)]
             for b in range(size - 1)]
    return (entry.label, *(rng.choice(band) for band in bands))


def _pairs_least_certain_first(order: Sequence[Entry]) -> list[int]:
    """The ladder's neighbour pairs (by the higher one's place), least certain first."""
    doubt = [abs(above(order[i].rating, order[i + 1].rating) - 0.5)
             for i in range(len(order) - 1)]
    return sorted(range(len(order) - 1), key=lambda i: (doubt[i], i))


def _window(order: Sequence[Entry], index: int, size: int,
            seated: set[str]) -> tuple[str, ...]:
    """`size` consecutive versions holding the pair at `index`: of the windows that do,
    the one seating most versions not yet seated, then the one centred on the pair."""
    first = max(0, index + 2 - size)
    last = min(index, len(order) - size)
    centre = index + 0.5 - (size - 1) / 2

    def merit(start: int) -> tuple[int, float]:
        fresh = sum(entry.label not in seated for entry in order[start:start + size])
        return -fresh, abs(start - centre)

    start = min(range(first, last + 1), key=merit)
    return tuple(entry.label for entry in order[start:start + size])
