#!/usr/bin/env python3
"""Rage bot: a uniformly random legal bid and play.

It needs no game state: every BID? and PLAY? request lists the legal choices, so it skips
the SDK's tracking and routes only the four lines it reads (bots.sdk decodes them and does
the connection). Its generator is reseeded from each dealt hand, so the same deal always
gets the same moves: games are reproducible whether the bot process is fresh or reused.
"""

from __future__ import annotations

import os
import random
import sys

try:  # CPython's own SHA-256, the same digest: hashlib would load OpenSSL first (~3 ms a start)
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # another Python
    from hashlib import sha256

if not __package__:  # run as a file: the repository's root holds bots/ and protocols/
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))

from bots.sdk import MessageBot, run_bot  # noqa: E402
from referee.games.rage import codec  # noqa: E402


class RandomBot(MessageBot):
    def __init__(self) -> None:
        super().__init__()
        self.seat = 0
        self.rng = random.Random(0)
        self.route(codec.BidRequest, self._on_bid_request)
        self.route(codec.PlayRequest, self._on_play_request)
        self.route(codec.Game, self._on_game)
        self.route(codec.Hand, self._on_hand)

    def _on_bid_request(self, request: codec.BidRequest) -> str:
        return codec.bid_reply(self.rng.choice(request.bids))

    def _on_play_request(self, request: codec.PlayRequest) -> str:
        return codec.play_reply(self.rng.choice(request.plays))

    def _on_game(self, message: codec.Game) -> None:
        self.seat = message.seat

    def _on_hand(self, message: codec.Hand) -> None:
        faces = " ".join([card.face for card in message.cards])
        digest = sha256(f"{self.seat} {faces}".encode()).digest()
        self.rng.seed(int.from_bytes(digest[:8], "big"))


if __name__ == "__main__":
    run_bot("rage_random", "1.0", RandomBot())
