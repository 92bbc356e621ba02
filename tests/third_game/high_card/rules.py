"""One trick of "highest card wins": two to four players each get three cards from 1 to
20; in seat order each plays one, seen by all; the highest wins the trick and scores 1.
A faulted seat places last. The engine judges every play; nothing else does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from referee.errors import RuleError
from tests.third_game.high_card.cards import deal


@dataclass(frozen=True)
class Config:
    players: int


# The events, as every seat's view and the codec see them.
Dealt = NamedTuple("Dealt", [("seat", int), ("hand", tuple[int, ...])])
Played = NamedTuple("Played", [("seat", int), ("card", int)])
Event = Dealt | Played


class HighCardState:
    def __init__(self, config: Config, seed: int) -> None:
        self.hands = deal(config.players, seed)
        self.played: list[int] = []
        self.events: list[Event] = [Dealt(s, tuple(h)) for s, h in enumerate(self.hands)]

    @property
    def to_play(self) -> int | None:
        """The seat to play, or None once every seat has."""
        return len(self.played) if len(self.played) < len(self.hands) else None

    def legal_plays(self) -> tuple[int, ...]:
        seat = self.to_play
        return () if seat is None else tuple(self.hands[seat])

    def play(self, card: int) -> None:
        """RuleError unless `card` is in the hand of the seat to play."""
        if card not in self.legal_plays():
            raise RuleError(f"card {card} is not in the hand")
        seat = len(self.played)
        self.played.append(card)
        self.events.append(Played(seat, card))


def scores_and_places(played: Sequence[int], faulted: frozenset[int]) -> tuple[tuple[int, ...],
                                                                             tuple[int, ...]]:
    winner = max(range(len(played)), key=lambda seat: played[seat])
    scores = tuple(int(seat == winner) for seat in range(len(played)))
    places = tuple(len(played) if seat in faulted else 1 if seat == winner else 2
                   for seat in range(len(played)))
    return scores, places
