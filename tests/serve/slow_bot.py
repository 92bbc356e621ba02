#!/usr/bin/env python3
"""A Rage bot for the live view's tests: bots/rage_random.py, sleeping SECONDS (argv[1],
default 0.02) before each reply, so that a game lasts long enough to be watched; with
--stderr among its arguments it also writes a line to stderr at each request."""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))

from bots.rage_random import RandomBot  # noqa: E402
from bots.sdk import run_bot  # noqa: E402
from referee.games.rage import codec  # noqa: E402

PAUSE = float(sys.argv[1]) if len(sys.argv) > 1 else 0.02
LOUD = "--stderr" in sys.argv[2:]


def _pause() -> None:
    if LOUD:
        print("thinking", file=sys.stderr, flush=True)
    time.sleep(PAUSE)


class SlowBot(RandomBot):
    def _on_bid_request(self, request: codec.BidRequest) -> str:
        _pause()
        return super()._on_bid_request(request)

    def _on_play_request(self, request: codec.PlayRequest) -> str:
        _pause()
        return super()._on_play_request(request)


if __name__ == "__main__":
    run_bot("slow_random", "1.0", SlowBot())
