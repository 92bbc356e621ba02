"""An arena's leaderboard: every version's rating over the games counted so far.

Ratings are openskill's Plackett-Luce, as tournaments rate (tournaments/stats/
estimates.py), over every counted game in the order played (round, then fixture id), so
the leaderboard is the same whenever and however often it is built. A faulted seat
places last in its game (docs/rules.md, R9: the game's fault policy), so a version that
faults sinks as one that loses. Active versions are ranked by the conservative score mu - 3
sigma (openskill's ordinal): a version is not placed above another on luck alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tournaments.arena.matchmaking import Entry, Rating, conservative, ladder
from tournaments.arena.store import ACTIVE, Version
from tournaments.spec.settle_rule import SettleRule
from tournaments.stats.estimates import PlackettLuceRater
from tournaments.stats.settle import open_pairs
from tournaments.store.records import GameRecord


@dataclass(frozen=True)
class Standing:
    version: Version
    rank: int | None  # active versions only
    games: int
    tables: int
    rating: Rating
    faulted_games: int
    fault_kinds: tuple[tuple[str, int], ...]  # kind, count; most first

    @property
    def score(self) -> float:
        return conservative(self.rating)


class Tally:
    """Ratings, games, tables and faults per version label, fed game by game."""

    def __init__(self) -> None:
        self.rater = PlackettLuceRater()
        self.games: Counter[str] = Counter()
        self.tables: Counter[str] = Counter()
        self.faulted: Counter[str] = Counter()
        self.kinds: dict[str, Counter[str]] = {}
        self._tables_seen: set[tuple[int, str, str]] = set()
        self.total = 0  # games counted

    def add(self, round_number: int, record: GameRecord) -> None:
        self.rater.rate(record)
        self.total += 1
        table = record.fixture_id.rsplit("/", 1)[0]  # the id less its rotation
        for label in set(record.bots):
            self.games[label] += 1
            if (round_number, table, label) not in self._tables_seen:
                self._tables_seen.add((round_number, table, label))
                self.tables[label] += 1
        for label in {record.bots[fault.seat] for fault in record.faults}:
            self.faulted[label] += 1
        for fault in record.faults:
            self.kinds.setdefault(record.bots[fault.seat], Counter())[fault.kind.value] += 1

    def rating(self, label: str) -> Rating:
        return self.rater.rating_of(label)

    def entries(self, versions: Iterable[Version]) -> list[Entry]:
        return self.entries_of([version.label for version in versions])

    def entries_of(self, labels: Iterable[str]) -> list[Entry]:
        return [Entry(label, self.rating(label), self.tables[label]) for label in labels]


def tally(games: Iterable[tuple[int, GameRecord]]) -> Tally:
    counted = Tally()
    for round_number, record in games:
        counted.add(round_number, record)
    return counted


def standings(versions: Sequence[Version], counted: Tally) -> list[Standing]:
    """Every version: the active ones in ladder order with their ranks, then the rest
    (retired and refused) by contestant and version."""
    active = [v for v in versions if v.status == ACTIVE]
    by_label = {v.label: v for v in versions}
    ranked = [by_label[entry.label] for entry in ladder(counted.entries(active))]
    rest = [v for v in versions if v.status != ACTIVE]
    return ([_standing(v, rank, counted) for rank, v in enumerate(ranked, start=1)]
            + [_standing(v, None, counted) for v in rest])


def _standing(version: Version, rank: int | None, counted: Tally) -> Standing:
    kinds = counted.kinds.get(version.label, Counter())
    return Standing(version, rank, counted.games[version.label],
                    counted.tables[version.label], counted.rating(version.label),
                    counted.faulted[version.label], tuple(kinds.most_common()))


def unsettled(entries: Sequence[Entry], rule: SettleRule) -> list[tuple[str, str, float]]:
    """The ladder's pairs that `rule` still needs (higher, lower, probability), least
    certain first; none once the order (or the top K) is settled at its confidence.
    `arena run` and the simulation (simulated.py) both stop by it. The caller sees to it
    that `rule.top` is below the versions ranked."""
    order = [entry.label for entry in ladder(entries)]
    return open_pairs({entry.label: entry.rating for entry in entries}, rule, order)
