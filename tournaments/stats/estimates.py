"""Pure statistics for the report: means with confidence intervals, ratings, head-to-head."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from openskill.models import PlackettLuce

from tournaments.store.records import GameRecord

T = TypeVar("T")
Z_975 = 1.959963984540054  # the standard normal's 97.5% quantile
# Student t 97.5% quantiles (two-sided 95%) for 1..30 degrees of freedom.
_T_975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
          2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
          2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t_975(df: int) -> float:
    """The Student t quantile for a two-sided 95% interval with `df` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df <= len(_T_975):
        return _T_975[df - 1]
    # Cornish-Fisher expansion around the normal quantile: error < 1e-5 beyond 30 df.
    z = Z_975
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def normal_cdf(z: float) -> float:
    """P(Z <= z) for the standard normal distribution."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom: exact, by the finite
    series in cos(theta), theta = atan(t / sqrt(df)) (Abramowitz and Stegun 26.7.3-4);
    beyond 1000 degrees of freedom, where the series grows long, the normal distribution
    at t (1 - 1/(4 df)) / sqrt(1 + t^2 / (2 df)), within 1e-7 of it."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df > 1000:
        return normal_cdf(t * (1.0 - 1.0 / (4 * df)) / math.sqrt(1.0 + t * t / (2 * df)))
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    term, total = 1.0, 1.0
    for k in range(1 + df % 2, df - 1, 2):  # odd df: k = 2, 4, ...; even: k = 1, 3, ...
        term *= cos2 * k / (k + 1)
        total += term
    if df % 2:
        inside = (theta + (math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0)) \
            * 2.0 / math.pi
    else:
        inside = math.sin(theta) * total
    return 0.5 + 0.5 * inside  # inside = P(|T| < |t|), with t's sign


def mean_ci(values: Sequence[float],
            clusters: Sequence[Hashable] | None = None) -> tuple[float, float | None]:
    """Mean and the half width of its 95% Student t interval (None for a single value).

    With `clusters` (a label per value), values that share a label count as one draw:
    the standard error is the cluster-robust one, sum the deviations within each cluster
    and treat those sums as independent, with (clusters - 1) degrees of freedom. Without,
    every value is its own cluster, which is the plain Student t interval.
    """
    if not values:
        raise ValueError("the mean of no values is undefined")
    if clusters is not None and len(clusters) != len(values):
        raise ValueError(f"{len(clusters)} cluster labels for {len(values)} values")
    mean = statistics.fmean(values)
    sums: dict[Hashable, float] = {}
    for label, value in zip(range(len(values)) if clusters is None else clusters, values):
        sums[label] = sums.get(label, 0.0) + (value - mean)
    n = len(sums)
    if n == 1:
        return mean, None
    variance = n / (n - 1) * math.fsum(s * s for s in sums.values()) / len(values) ** 2
    return mean, t_975(n - 1) * math.sqrt(variance)


def wilson_interval(successes: float, trials: int) -> tuple[float, float, float]:
    """Proportion with its 95% Wilson score interval: (p, low, high). Sound near 0 and 1.
    `successes` may be fractional (a share of points, ties counting half)."""
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, "
                         f"not {successes}/{trials}")
    p, z2 = successes / trials, Z_975**2
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (Z_975 / (1 + z2 / trials)) * math.sqrt(p * (1 - p) / trials
                                                   + z2 / (4 * trials**2))
    return p, max(0.0, centre - half), min(1.0, centre + half)


def competition_ranks(items: Sequence[T], key: Callable[[T], object]) -> list[int]:
    """Ranks "1224" for items already sorted best first: equal keys share a rank."""
    ranks: list[int] = []
    for position, item in enumerate(items):
        if position and key(item) == key(items[position - 1]):
            ranks.append(ranks[-1])
        else:
            ranks.append(position + 1)
    return ranks


def plackett_luce_ratings(records: Iterable[GameRecord]) -> dict[str, tuple[float, float]]:
    """openskill Plackett-Luce rating (mu, sigma) per bot, from the games' places.

    Games are rated in fixture-id order (ids sort in fixture order), never completion order,
    so a resumed run rates exactly like an uninterrupted one.
    """
    rater = PlackettLuceRater()
    for record in sorted(records, key=lambda item: item.fixture_id):
        rater.rate(record)
    return rater.ratings


class PlackettLuceRater:
    """Ratings built game by game, in the order given (plackett_luce_ratings gives
    fixture-id order; the settle rule feeds whole deals in turn, which is the same order).

    A bot filling several seats at one table: every seat is rated as its own team holding
    the bot's current rating, and the seats' updates are summed (mu) and multiplied (sigma
    ratio) into the bot's rating. Skipping such games would rate nothing at all when there
    are fewer bots than seats; the seat-against-itself comparisons push the two seats in
    opposite directions and so nearly cancel in the sum, while each seat's comparisons
    against the other bots count like one game each. Tables of a single bot say nothing
    and are skipped.
    """

    def __init__(self) -> None:
        self._model = PlackettLuce()
        self.ratings: dict[str, tuple[float, float]] = {}

    def rating_of(self, bot: str) -> tuple[float, float]:
        """`bot`'s rating; the model's prior for a bot not rated yet."""
        return self.ratings.get(bot, (self._model.mu, self._model.sigma))

    def rate(self, record: GameRecord) -> None:
        if len(set(record.bots)) < 2:
            return
        model = self._model
        before = [self.ratings.get(bot, (model.mu, model.sigma)) for bot in record.bots]
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
        updated = model.rate(teams, ranks=[float(place) for place in record.places])
        after = [(team[0].mu, team[0].sigma) for team in updated]
        self.ratings.update(_merge_seats(record.bots, before, after))


def _merge_seats(bots: Sequence[str], before: Sequence[tuple[float, float]],
                 after: Sequence[tuple[float, float]]) -> dict[str, tuple[float, float]]:
    merged: dict[str, tuple[float, float]] = {}
    for bot, (old_mu, old_sigma), (new_mu, new_sigma) in zip(bots, before, after):
        mu, sigma = merged.get(bot, (old_mu, old_sigma))
        merged[bot] = (mu + new_mu - old_mu, sigma * new_sigma / old_sigma)
    return merged


def head_to_head(records: Iterable[GameRecord]) -> dict[tuple[str, str], tuple[float, int]]:
    """For each ordered pair (A, B): (share of A-seat/B-seat pairs where A placed strictly
    better than B, ties counting half; number of such seat pairs) over games where both sat.
    Seats of the same bot are never compared with each other."""
    wins: dict[tuple[str, str], float] = defaultdict(float)
    pairs: dict[tuple[str, str], int] = defaultdict(int)
    for record in records:
        seated = list(zip(record.bots, record.places))
        for bot_a, place_a in seated:
            for bot_b, place_b in seated:
                if bot_a == bot_b:
                    continue
                pairs[bot_a, bot_b] += 1
                wins[bot_a, bot_b] += 1.0 if place_a < place_b else (
                    0.5 if place_a == place_b else 0.0)
    return {pair: (wins[pair] / count, count) for pair, count in pairs.items()}
