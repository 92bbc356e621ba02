#!/usr/bin/env python3
"""Rage bot: a uniformly random legal bid and play.

Its generator is reseeded from each dealt hand, so the same deal always gets the same
moves: games are reproducible whether the bot process is fresh or reused.
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

if not __package__:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.rage_sdk import RageBot  # noqa: E402
from bots.sdk import run_bot  # noqa: E402
from protocols.rage import Message  # noqa: E402
from referee.games.rage_cards import Play  # noqa: E402


class RandomBot(RageBot):
    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)

    def _on_hand(self, message: Message) -> None:
        super()._on_hand(message)
        digest = hashlib.sha256(f"{self.game.seat} {' '.join(message.words)}".encode()).digest()
        self.rng.seed(int.from_bytes(digest[:8], "big"))

    def choose_bid(self, legal: list[int]) -> int:
        return self.rng.choice(legal)

    def choose_play(self, legal: list[Play]) -> Play:
        return self.rng.choice(legal)


if __name__ == "__main__":
    run_bot("rage_random", "1.0", RandomBot())
