#!/usr/bin/env python3
"""The Game Extreme bot: a uniformly random legal turn of the minimum length, no hints.

Its generator is reseeded from the dealt hand and seat, so the same deal always gets the
same turns: games are reproducible whether the bot process is fresh or reused.
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

if not __package__:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.sdk import run_bot  # noqa: E402
from bots.thegame_sdk import TheGameBot, TurnRequest  # noqa: E402
from referee.games.thegame.codec import Hand  # noqa: E402
from referee.games.thegame.rules import Turn  # noqa: E402


class RandomBot(TheGameBot):
    """A random shortest legal turn, reseeded at every deal; never talks."""

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)

    def _on_hand(self, message: Hand) -> None:
        super()._on_hand(message)
        deal = f"{self.game.seat} {' '.join(map(str, self.game.hand))}"
        self.rng.seed(int.from_bytes(hashlib.sha256(deal.encode()).digest()[:8], "big"))

    def choose_turn(self, request: TurnRequest) -> Turn:
        """A random choice among the shortest legal turns."""
        turns = self.game.shortest_legal_turns()
        if not turns:
            raise RuntimeError(f"no legal turn in {self.position()}: the tracked state is off")
        return self.rng.choice(turns)


if __name__ == "__main__":
    run_bot("thegame_random", "1.0", RandomBot())
