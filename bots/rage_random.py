#!/usr/bin/env python3
"""Rage bot: a uniformly random legal bid and play.

It needs no game state: every BID? and PLAY? request lists the legal choices, so it
speaks the protocol by hand (bots.sdk does the connection) and skips the SDK's tracking.
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

from bots.sdk import run_bot  # noqa: E402
from protocols.rage import BID_REQUEST, PLAY_REQUEST  # noqa: E402


class RandomBot:
    def __init__(self) -> None:
        self.seat = 0
        self.rng = random.Random(0)

    def on_line(self, line: str) -> str | None:
        keyword, _, rest = line.partition(" ")
        if keyword == PLAY_REQUEST or keyword == BID_REQUEST:
            return self.rng.choice(rest.split())
        if keyword == "GAME":
            self.seat = int(next(w for w in rest.split() if w.startswith("seat="))[5:])
        elif keyword == "HAND":
            digest = hashlib.sha256(f"{self.seat} {rest}".encode()).digest()
            self.rng.seed(int.from_bytes(digest[:8], "big"))
        return None


if __name__ == "__main__":
    run_bot("rage_random", "1.0", RandomBot())
