"""Statistics on hand-computed inputs: means and intervals, ranks, ratings, head-to-head."""

from __future__ import annotations

import math
import random

import pytest

from tournaments.store.records import GameRecord
from tournaments.stats.estimates import (
    competition_ranks, head_to_head, mean_ci, plackett_luce_ratings, t_975, t_cdf,
    wilson_interval,
)


def t_two_sided_coverage(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with integer df, by its closed form (no scipy)."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 1:
        term, total = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + s * total)
    term, total = 1.0, 0.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return s * total


@pytest.mark.parametrize("df", [*range(1, 31), 31, 40, 60, 120, 1000])
def test_t_quantiles_give_95_percent_coverage(df: int) -> None:
    assert t_two_sided_coverage(t_975(df), df) == pytest.approx(0.95, abs=2e-5)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 30, 999, 1000, 1001, 5000, 100_000])
def test_t_cdf_against_the_closed_form_and_the_quantiles(df: int) -> None:
    """The LOS of a pair (tournaments/stats/pairs.py) rests on t_cdf."""
    for t in (0.0, 0.3, 1.0, 2.5, 7.0):
        if df <= 1000:
            assert t_cdf(t, df) == pytest.approx(0.5 + t_two_sided_coverage(t, df) / 2,
                                                 abs=1e-12)
        assert t_cdf(-t, df) == pytest.approx(1 - t_cdf(t, df), abs=1e-12)
    assert t_cdf(t_975(df), df) == pytest.approx(0.975, abs=5e-6)


def test_mean_ci_hand_computed() -> None:
    mean, half = mean_ci([1, 2, 3, 4, 5])  # sd = sqrt(2.5), se = sqrt(0.5)
    assert mean == 3 and half == pytest.approx(2.7764 * math.sqrt(0.5))
    mean, half = mean_ci([2, 4])  # sd = sqrt(2), se = 1
    assert mean == 3 and half == pytest.approx(12.7062)
    assert mean_ci([7]) == (7, None)
    assert mean_ci([5, 5, 5]) == (5, 0)
    with pytest.raises(ValueError):
        mean_ci([])


def test_mean_ci_with_clusters_counts_each_cluster_as_one_draw() -> None:
    values = [30, 10, 20, 0]
    plain = mean_ci(values)
    assert mean_ci(values, ["w", "x", "y", "z"]) == pytest.approx(plain)  # singletons
    # deviations from 15 sum to +10 and -10: se = sqrt(2 / 1 * 200) / 4 = 5, 1 df
    assert mean_ci(values, [1, 1, 2, 2]) == pytest.approx((15, 12.7062 * 5))
    # two draws instead of four: a wider interval than the plain one
    assert mean_ci(values, [1, 1, 2, 2])[1] > plain[1]  # type: ignore[operator]
    assert mean_ci(values, ["one"] * 4) == (15, None)
    with pytest.raises(ValueError, match="3 cluster labels for 4 values"):
        mean_ci(values, [1, 2, 3])


def test_wilson_interval_known_values() -> None:
    p, low, high = wilson_interval(5, 10)
    assert p == 0.5 and low == pytest.approx(0.2366, abs=1e-4)
    assert high == pytest.approx(0.7634, abs=1e-4)
    p, low, high = wilson_interval(0, 10)
    assert (p, low) == (0, 0) and high == pytest.approx(0.2775, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(1, 0)


def test_competition_ranks_share_equal_keys() -> None:
    assert competition_ranks([10, 8, 8, 5], lambda x: x) == [1, 2, 2, 4]
    assert competition_ranks([3, 3, 3], lambda x: x) == [1, 1, 1]
    assert competition_ranks([], lambda x: x) == []


def rage(fid: str, bots: tuple[str, ...], places: tuple[int, ...]) -> GameRecord:
    return GameRecord(fid, "rage", 1, bots, tuple(10 - p for p in places), places)


def test_ratings_order_follows_consistent_places() -> None:
    records = [rage(f"rage/d01/t01/r{i}", ("a", "b", "c"), (1, 2, 3)) for i in range(6)]
    ratings = plackett_luce_ratings(records)
    assert ratings["a"][0] > ratings["b"][0] > ratings["c"][0]
    assert all(sigma < 25 / 3 for _, sigma in ratings.values())


def test_ratings_ignore_completion_order() -> None:
    rng = random.Random(5)
    records = [rage(f"rage/d{d:02d}/t01/r0", ("a", "b", "c"),
                    tuple(rng.sample([1, 2, 3], 3))) for d in range(1, 30)]
    shuffled = records[:]
    rng.shuffle(shuffled)
    assert plackett_luce_ratings(shuffled) == plackett_luce_ratings(records)


def test_ratings_with_a_bot_in_several_seats() -> None:
    # two bots at three seats: a's seats always beat b's
    records = [rage(f"rage/d01/t01/r{i}", ("a", "a", "b"), (1, 1, 3)) for i in range(3)]
    records += [rage(f"rage/d01/t02/r{i}", ("a", "b", "b"), (1, 2, 2)) for i in range(3)]
    ratings = plackett_luce_ratings(records)
    assert ratings["a"][0] > 25 > ratings["b"][0]


def test_a_table_of_one_bot_is_not_rated() -> None:
    alone = [rage("rage/d01/t01/r0", ("a", "a", "a"), (1, 2, 3))]
    assert plackett_luce_ratings(alone) == {}


def test_head_to_head_on_a_tiny_known_set() -> None:
    records = [rage("g1", ("a", "b", "c"), (1, 2, 2)),
               rage("g2", ("a", "b", "a"), (2, 1, 3))]
    shares = head_to_head(records)
    assert shares["a", "b"][0] == pytest.approx(1 / 3) and shares["a", "b"][1] == 3
    assert shares["b", "a"][0] == pytest.approx(2 / 3) and shares["b", "a"][1] == 3
    assert shares["a", "c"] == (1.0, 1) and shares["c", "a"] == (0.0, 1)
    assert shares["b", "c"] == (0.5, 1) and shares["c", "b"] == (0.5, 1)  # tie: half
    assert ("a", "a") not in shares
