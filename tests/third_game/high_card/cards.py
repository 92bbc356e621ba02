"""The cards: 1 to 20, three to a hand."""

from __future__ import annotations

import random

HAND = 3
DECK = range(1, 21)


def deal(players: int, seed: int) -> list[list[int]]:
    """Each seat's hand, sorted, from the seed."""
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    return [sorted(cards[seat * HAND:(seat + 1) * HAND]) for seat in range(players)]
