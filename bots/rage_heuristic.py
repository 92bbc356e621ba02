#!/usr/bin/env python3
"""Rage bot: bids what its hand is worth and plays to hit the bid exactly.

Bidding sums a rough chance of winning a trick for each card (Jokers and high trumps
count most), scaled for the number of players. In play it takes tricks cheaply while it
needs them and ducks under the current winner once its bid is made.

`--mistakes P` (0 to 1) makes it weaker by a known amount: each bid and play is, with
probability P, a uniformly random legal one instead. An arena's tests and bench rank
such bots, whose true order is known (docs/arena.md). The mistakes are drawn from a
generator reseeded from each dealt hand, so a deal always gets the same moves.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

if not __package__:  # run as a file: the repository's root holds bots/ and protocols/
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))

from bots.rage_sdk import RageBot  # noqa: E402
from bots.sdk import run_bot  # noqa: E402
from referee.games.rage.rules import trick_winner  # noqa: E402
from referee.games.rage.cards import Card, Kind, Play  # noqa: E402
from referee.games.rage import codec  # noqa: E402


class HeuristicBot(RageBot):
    def card_value(self, card: Card) -> float:
        """Chance that this card takes a trick, by rule of thumb."""
        if card.kind is Kind.JOKER:
            return 0.9
        if card.kind is not Kind.COLOUR or card.value is None:
            return 0.0
        if card.colour is self.game.trump:
            return 0.9 if card.value >= 11 else 0.55 if card.value >= 6 else 0.3
        return {15: 0.55, 14: 0.4, 13: 0.25}.get(card.value, 0.0)

    def choose_bid(self, legal: list[int]) -> int:
        crowd = 4 / max(self.game.players, 3)
        estimate = sum(self.card_value(c) for c in self.game.hand) * min(1.0, crowd ** 0.5)
        return min(legal, key=lambda bid: (abs(bid - estimate), bid))

    def strength(self, play: Play) -> float:
        """Order plays from weakest to strongest, for leading and dumping."""
        card = play.card
        if card.kind is Kind.JOKER:
            return 40.0
        if card.kind is not Kind.COLOUR or card.value is None:
            return -1.0 if card.kind is not Kind.MINUS_FIVE else -2.0
        return card.value + (20.0 if card.colour is self.game.trump else 0.0)

    def wins_now(self, play: Play) -> bool:
        plays = [*self.game.trick_plays, play]
        return trick_winner(plays, self.game.trump) == len(plays) - 1

    def choose_play(self, legal: list[Play]) -> Play:
        game = self.game
        bid = game.bids[game.seat]
        wants = bid is None or game.tricks_won[game.seat] < bid
        ordered = sorted(legal, key=self.strength)
        if not game.trick:
            return ordered[-1] if wants else ordered[0]
        winners = [p for p in ordered if self.wins_now(p)]
        if wants:
            return winners[0] if winners else ordered[0]
        losers = [p for p in ordered if p not in winners]
        return losers[-1] if losers else ordered[0]


class MistakenBot(HeuristicBot):
    """The heuristic, but each decision is a random legal one with probability `rate`."""

    def __init__(self, rate: float) -> None:
        super().__init__()
        self.rate = rate
        self.rng = random.Random(0)

    def _on_hand(self, message: codec.Hand) -> None:
        super()._on_hand(message)
        from hashlib import sha256  # here: OpenSSL's load would slow every start
        faces = " ".join(card.face for card in message.cards)
        digest = sha256(f"{self.game.seat} {faces}".encode()).digest()
        self.rng.seed(int.from_bytes(digest[:8], "big"))

    def choose_bid(self, legal: list[int]) -> int:
        if self.rng.random() < self.rate:
            return self.rng.choice(legal)
        return super().choose_bid(legal)

    def choose_play(self, legal: list[Play]) -> Play:
        if self.rng.random() < self.rate:
            return self.rng.choice(legal)
        return super().choose_play(legal)


def mistake_rate(text: str) -> float:
    rate = float(text)
    if not 0 <= rate <= 1:
        raise argparse.ArgumentTypeError(f"a probability from 0 to 1, not {text}")
    return rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The sample Rage heuristic bot.")
    parser.add_argument("--mistakes", type=mistake_rate, default=0.0, metavar="P",
                        help="play a random legal move instead, with probability P")
    rate = parser.parse_args().mistakes
    run_bot("rage_heuristic", "1.0", MistakenBot(rate) if rate else HeuristicBot())
