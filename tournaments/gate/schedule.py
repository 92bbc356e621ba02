"""The gate's deals, pure: which games NEW and BASELINE play on a deal, and the deal's
paired difference from their results.

Bot indices: NEW is 0, BASELINE 1, the opponents (teammates in a cooperative game) 2 on.
Both play the very same games with their own index at the candidate's place:
- competitive (Rage): the table (candidate, o1, ..., o[size-1]) in every seat rotation;
- cooperative (The Game): solo, and with size >= 2 the team (candidate, t1, ...).
The other seats take the opponents in the order given, cycling when there are fewer
than seats: opponents A, B at a table of 5 sit as candidate, A, B, A, B.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from referee.matches.game import Contest
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture, FixtureKind

NEW, BASELINE = 0, 1
ROLES = {NEW: "new", BASELINE: "baseline"}


@dataclass(frozen=True)
class GateTable:
    """The shape of every deal: the game, its contest, the seats and the opponents."""

    game: str
    contest: Contest
    size: int  # seats per table, or players per team
    opponents: int  # how many distinct opponents (bot indices 2 on)

    def others(self) -> tuple[int, ...]:
        """The bot index of each seat beside the candidate's, opponents cycling."""
        return tuple(2 + seat % self.opponents for seat in range(self.size - 1))

    def games_per_deal(self) -> int:
        """Games one deal takes, NEW's and BASELINE's together."""
        if self.contest is Contest.COMPETITIVE:
            return 2 * self.size
        return 2 * (2 if self.size >= 2 else 1)

    def step(self) -> float:
        """The resolution of a deal's difference: a difference of two means of integer
        scores over the candidate's games is a multiple of 1 / those games."""
        return 1 / (self.games_per_deal() // 2)


def deal_fixtures(table: GateTable, deal: int, seed: int, candidate: int) -> list[Fixture]:
    """The games `candidate` (NEW or BASELINE) plays on `deal`, whose seed is `seed`."""
    prefix = f"gate/d{deal:05d}/{ROLES[candidate]}"
    seats = (candidate, *table.others())
    if table.contest is Contest.COMPETITIVE:
        return [Fixture(f"{prefix}/r{rotation}", table.game,
                        tuple(seats[(seat + rotation) % table.size]
                              for seat in range(table.size)),
                        deal, rotation, seed, FixtureKind.TABLE)
                for rotation in range(table.size)]
    games = [Fixture(f"{prefix}/solo", table.game, (candidate,), deal, 0, seed,
                     FixtureKind.SOLO)]
    if table.size >= 2:
        games.append(Fixture(f"{prefix}/team", table.game, seats, deal, 0, seed,
                             FixtureKind.TEAM))
    return games


def candidate_score(fixture: Fixture, record: GameRecord) -> int:
    """The score of the candidate's seat (it holds exactly one)."""
    seat = next(seat for seat, bot in enumerate(fixture.seats) if bot in ROLES)
    return record.scores[seat]


def paired_difference(contest: Contest, new_scores: Sequence[int],
                      baseline_scores: Sequence[int]) -> float:
    """The deal's sample, positive when NEW did better: competitive, NEW's mean score
    over the games minus BASELINE's; cooperative, where the score is the cards the team
    left, BASELINE's mean minus NEW's (fewer left is better)."""
    if len(new_scores) != len(baseline_scores) or not new_scores:
        raise ValueError(f"unpaired deal: {len(new_scores)} games of NEW, "
                         f"{len(baseline_scores)} of BASELINE")
    gain = statistics.fmean(new_scores) - statistics.fmean(baseline_scores)
    return gain if contest is Contest.COMPETITIVE else -gain
