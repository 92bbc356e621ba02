"""--disqualify-after N: a bot with N faulted games plays no further games.

The coordinator counts each bot's faulted games in the stored records (a resumed run's
too) and marks the bot disqualified in every fixture it submits from then on. The worker
then starts no process for it: its seat faults at once (FaultKind.DISQUALIFIED), and the
game's own fault policy handles that seat like any other fault. Games already submitted
when the bot reached N are played as scheduled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from referee.errors import BotDisqualified
from protocols.faults import FaultKind
from referee.players.lineup import FaultedPlayer
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture


class Disqualification:
    """Faulted games per bot, and the fixtures that seat the bots that have too many."""

    def __init__(self, after: int | None, bots: Sequence[str],
                 records: Iterable[GameRecord] = ()) -> None:
        self.after = after
        self._index = {name: index for index, name in enumerate(bots)}
        self.faulted: Counter[int] = Counter()  # faulted games by bot index
        for record in records:
            self.count(record)

    def count(self, record: GameRecord) -> None:
        """Count a stored game: one faulted game per bot that faulted in any of its seats."""
        for name in faulted_bots(record):
            self.faulted[self._index[name]] += 1

    @property
    def disqualified(self) -> frozenset[int]:
        """The bot indices that may not play again."""
        if self.after is None:
            return frozenset()
        return frozenset(bot for bot, games in self.faulted.items() if games >= self.after)

    def seat(self, fixture: Fixture) -> Fixture:
        """`fixture` with its disqualified bots marked, as it is about to be submitted."""
        barred = self.disqualified.intersection(fixture.seats)
        return fixture if barred == fixture.disqualified else replace(
            fixture, disqualified=barred)


def faulted_bots(record: GameRecord) -> set[str]:
    """The bots charged with a fault in `record`."""
    return {record.bots[fault.seat] for fault in record.faults}


def disqualified_bots(record: GameRecord, bots: Sequence[str]) -> frozenset[int]:
    """The indices of the bots `record` seated as disqualified (to play it again alike)."""
    return frozenset(bots.index(record.bots[fault.seat]) for fault in record.faults
                     if fault.kind is FaultKind.DISQUALIFIED)


def disqualified_player(name: str, after: int | None) -> FaultedPlayer:
    """The seat of a disqualified bot: no process, a fault at its first exchange."""
    return FaultedPlayer(name, BotDisqualified(f"disqualified after {after} faulted games"))
