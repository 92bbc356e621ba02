"""`arena run --until-settled` keeps its word (issue 31, docs/arena.md): arenas of
versions of known strength, run by the arena's own matchmaking, ratings and stop rule
(tournaments/arena/simulated.py), stop on the true order but for the stated error rate.
Seeded, so every figure is the same on every run; bench/arena_settle.py runs more."""

from __future__ import annotations

import math
import random

from tournaments.arena.simulated import simulate
from tournaments.spec.settle_rule import SettleRule

ARENAS = 60
Z = 3.0  # binomial standard errors of margin: sampling noise, not a fudge


def strengths(n: int, step: float) -> dict[str, float]:
    return {f"v{i:02d}": -i * step for i in range(n)}


def within_allowed(wrong: int, judged: int, confidence: float) -> bool:
    allowed = 1 - confidence
    return wrong / judged <= allowed + Z * math.sqrt(allowed * confidence / judged)


def test_the_settled_order_is_wrong_no_more_often_than_the_confidence_allows() -> None:
    rng = random.Random(3)
    rule = SettleRule(0.8)
    runs = [simulate(strengths(6, 0.5), 4, rule, 3000, rng) for _ in range(ARENAS)]
    settled = [run for run in runs if run.settled]
    assert len(settled) >= 0.9 * ARENAS
    judged = sum(run.pairs for run in settled)
    assert within_allowed(sum(run.wrong_pairs for run in settled), judged, 0.8)


def test_the_top_k_rule_judges_the_first_k_against_the_rest() -> None:
    rng = random.Random(4)
    runs = [simulate(strengths(7, 0.5), 4, SettleRule(0.8, top=2), 3000, rng)
            for _ in range(ARENAS // 2)]
    settled = [run for run in runs if run.settled]
    assert len(settled) >= 0.9 * len(runs)
    assert all(run.pairs == 2 * 5 for run in settled)
    judged = sum(run.pairs for run in settled)
    assert within_allowed(sum(run.wrong_pairs for run in settled), judged, 0.8)


def test_versions_of_known_strength_are_ranked_in_their_true_order() -> None:
    """Far enough apart, and played long enough, the ladder is the true order."""
    run = simulate(strengths(8, 1.0), 4, SettleRule(0.99), 4000, random.Random(5))
    assert run.order == tuple(strengths(8, 1.0))


def test_equal_versions_do_not_settle_at_high_confidence() -> None:
    """Two copies of one strength have no true order: the pair stays open to the cap."""
    even = {"a": 0.0, "b": 0.0, "c": -3.0, "d": -6.0}
    run = simulate(even, 3, SettleRule(0.99), 600, random.Random(6))
    assert not run.settled and run.games >= 600
