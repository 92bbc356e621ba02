"""Each pair of bots that met, compared on the duplicate deals they shared: the share of
their seat pairs in which one placed ahead of the other, with its 95% interval, the Elo
difference that share stands for, and the likelihood of superiority (LOS), as cutechess
and fastchess print them for two-player games.

In a game of N players two bots that sat at one table are compared by their places alone
(ahead 1, tie 1/2, behind 0; a faulted seat placed last), whatever the other N - 2 did: a
pairwise result taken out of a multi-player game. The rotations of one deal share its
cards, so their results are not independent: each deal is one draw (mean_ci's clusters),
and the interval and LOS rest on the number of deals, not of games: both on Student's t
with deals - 1 degrees of freedom, so that an interval reaching below 50% never stands
beside an LOS above 97.5%.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from tournaments.stats.estimates import mean_ci, normal_cdf, t_975, t_cdf, wilson_interval
from tournaments.store.records import GameRecord


@dataclass(frozen=True)
class PairComparison:
    """`bot` against `other`: `share` of their seat pairs `bot` placed ahead in (ties
    half), over `pairs` seat pairs in `deals` deals; its 95% interval (None from one
    deal); `los` the probability that `bot` is truly ahead more often than not."""

    bot: str
    other: str
    deals: int
    pairs: int
    share: float
    low: float | None
    high: float | None
    los: float | None

    @property
    def elo(self) -> float | None:
        return elo_difference(self.share)


def pair_comparisons(records: Iterable[GameRecord]) -> list[PairComparison]:
    """Every pair of bots that sat at one table, the one ahead more often first (on an
    even share, the first in name order)."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    deals: dict[tuple[str, str], list[int]] = defaultdict(list)
    for record in records:
        seated = list(zip(record.bots, record.places))
        for i, (bot_a, place_a) in enumerate(seated):
            for bot_b, place_b in seated[i + 1:]:
                if bot_a == bot_b:
                    continue
                key, ahead = ((bot_a, bot_b), _ahead(place_a, place_b)) if bot_a < bot_b \
                    else ((bot_b, bot_a), _ahead(place_b, place_a))
                values[key].append(ahead)
                deals[key].append(record.seed)
    return [_compared(a, b, values[a, b], deals[a, b]) for a, b in sorted(values)]


def _ahead(place: int, other: int) -> float:
    return 1.0 if place < other else 0.5 if place == other else 0.0


def _compared(bot: str, other: str, values: list[float], deals: list[int]) -> PairComparison:
    share, half = mean_ci(values, deals)
    n = len(set(deals))
    low = high = los = None
    if half == 0:  # every deal alike: no spread to measure (see _alike_deals)
        low, high, los = _alike_deals(share, n)
    elif half is not None:
        se = half / t_975(n - 1)
        los = t_cdf((share - 0.5) / se, n - 1)
        low, high = max(0.0, share - half), min(1.0, share + half)
    if share < 0.5:  # the one ahead more often first
        return PairComparison(other, bot, n, len(values), 1 - share,
                              None if high is None else 1 - high,
                              None if low is None else 1 - low,
                              None if los is None else 1 - los)
    return PairComparison(bot, other, n, len(values), share, low, high, los)


def _alike_deals(share: float, deals: int) -> tuple[float, float, float]:
    """The interval and LOS of `deals` deals that all gave the same share (all won, all
    lost, all tied...). Their spread is zero, so Student's t would give an interval of no
    width and an LOS of 100%: three deals won would read as certainty. The score test
    treats each deal as won or lost instead, as cutechess counts games: Wilson's
    interval, and the LOS of its z under an even share, Phi((share - 1/2) / sqrt(1/4n)),
    so that an interval reaching below 50% still never stands beside an LOS above 97.5%
    (Wilson's interval is that test inverted). Three deals won: 43.9-100%, LOS 95.8%."""
    _, low, high = wilson_interval(share * deals, deals)
    return low, high, normal_cdf((share - 0.5) / math.sqrt(0.25 / deals))


def elo_difference(share: float | None) -> float | None:
    """The Elo difference a share of points stands for (logistic, 400 per factor of 10);
    None at 0 or 1, where it is unbounded."""
    if share is None or not 0.0 < share < 1.0:
        return None
    return -400.0 * math.log10(1.0 / share - 1.0) + 0.0  # + 0.0: no "-0" at an even share
