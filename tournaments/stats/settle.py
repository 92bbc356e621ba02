"""When a ranking is settled: the stop rule of `referee tournament --until-settled`
(docs/settle.md).

Each bot's openskill rating is a normal belief about its strength, mu with spread sigma.
Bot a is above bot b with probability Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2)).
The order (by mu) is settled at confidence C when every pair of neighbours in it is
ordered at C or more; with `top` K, when every bot of the first K is above every bot
after them at C or more (the set of the first K is settled, not the order within it).

The rule is checked only at the end of a deal, on the games of the deals played so far
(in fixture-id order, as the standings rate them), so a tournament stops at the first
deal after which the order is settled, whichever order its games finished in: the same
tables with one job or many, and on resume.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Mapping, Sequence

from tournaments.spec.settle_rule import SettleRule
from tournaments.stats.estimates import PlackettLuceRater, normal_cdf
from tournaments.store.records import GameRecord

Ratings = Mapping[str, tuple[float, float]]  # bot: (mu, sigma)


def above(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The probability that the bot rated `a` is stronger than the bot rated `b`."""
    spread = math.hypot(a[1], b[1])
    return normal_cdf((a[0] - b[0]) / spread)


def open_pairs(ratings: Ratings, rule: SettleRule,
               order: Sequence[str] | None = None) -> list[tuple[str, str, float]]:
    """The pairs (higher, lower, probability) the rule still needs, least certain first;
    `order`: the ranking to settle (default: by mu; an arena's ladder ranks by mu - 3
    sigma)."""
    if order is None:
        order = sorted(ratings, key=lambda bot: (-ratings[bot][0], bot))
    found = [(a, b, above(ratings[a], ratings[b])) for a, b in judged_pairs(order, rule)]
    return sorted((pair for pair in found if pair[2] < rule.confidence),
                  key=lambda pair: pair[2])


def judged_pairs(order: Sequence[str], rule: SettleRule) -> list[tuple[str, str]]:
    """The pairs (higher, lower) of `order` the rule judges: its neighbours, or with
    `top` K every one of the first K against every one after them."""
    if rule.top is None:
        return list(zip(order, order[1:]))
    inside, outside = order[:rule.top], order[rule.top:]
    return [(a, b) for a in inside for b in outside]


def is_settled(ratings: Ratings, rule: SettleRule) -> bool:
    return len(ratings) >= 2 and not open_pairs(ratings, rule)


class SettleWatch:
    """Follows a tournament's games as they are stored and finds the first deal after
    which `rule` holds on the games of every deal so far (`settled_at`), rating each deal
    as it completes: the deals in turn, each deal's games in fixture-id order, which is
    the order the standings rate all games in. `ranked`: the bots whose order counts
    (a gauntlet's candidates)."""

    def __init__(self, rule: SettleRule, deal_of: Mapping[str, int],
                 ranked: Sequence[str]) -> None:
        self.rule = rule
        self._deal_of = deal_of
        self._ranked = frozenset(ranked)
        self._games = Counter(deal_of.values())  # games a deal holds
        self._waiting: dict[int, list[GameRecord]] = defaultdict(list)
        self._next = min(self._games, default=1)  # the first deal not yet rated
        self._rater = PlackettLuceRater()
        self.settled_at: int | None = None

    def add(self, record: GameRecord) -> int | None:
        """Take a stored game; the deal the ranking settled after, once it has."""
        deal = self._deal_of.get(record.fixture_id)
        if self.settled_at is None and deal is not None:
            self._waiting[deal].append(record)
            self._rate_complete_deals()
        return self.settled_at

    def ratings(self) -> dict[str, tuple[float, float]]:
        """The ranked bots' ratings over the deals rated so far."""
        return {bot: rating for bot, rating in self._rater.ratings.items()
                if bot in self._ranked}

    def _rate_complete_deals(self) -> None:
        while len(self._waiting.get(self._next, ())) == self._games.get(self._next, -1):
            for record in sorted(self._waiting.pop(self._next), key=_by_fixture):
                self._rater.rate(record)
            if is_settled(self.ratings(), self.rule):
                self.settled_at = self._next
                return
            self._next += 1


def _by_fixture(record: GameRecord) -> str:
    return record.fixture_id


def counted_games(rule: SettleRule | None, deal_of: Mapping[str, int], ranked: Sequence[str],
                  records: Sequence[GameRecord]) -> tuple[list[GameRecord], int | None]:
    """The games the tables count, and the deal the ranking settled after (None: not
    settled, or no rule): under a rule that has settled, the games of the deals up to
    that one; games played after it (in flight as the run stopped) are kept in the db
    and left out."""
    if rule is None:
        return list(records), None
    watch = SettleWatch(rule, deal_of, ranked)
    for record in sorted(records, key=_by_fixture):
        if watch.add(record) is not None:
            break
    if watch.settled_at is None:
        return list(records), None
    last = watch.settled_at
    return [r for r in records if deal_of.get(r.fixture_id, last + 1) <= last], last
