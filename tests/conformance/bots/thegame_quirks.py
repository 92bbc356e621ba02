#!/usr/bin/env python3
"""The sample bot thegame_random with one quirk: `thegame_quirks.py MODE ARG`. It borrows
the sample bot's legal turns, so that only its quirk can fail a check.

  numbers N        in games of N players, its hints say a number ("good:a 42")
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bots.sdk import run_bot  # noqa: E402
from bots.thegame_random import RandomBot  # noqa: E402
from referee.games.thegame import codec  # noqa: E402


class NumericHints(RandomBot):
    def __init__(self, players: int) -> None:
        super().__init__()
        self.players = players

    def _on_hints_request(self, request: codec.HintsRequest) -> str:
        if self.game.players == self.players:
            return "good:a 42"
        return super()._on_hints_request(request)


if __name__ == "__main__":
    mode, players = sys.argv[1:]
    assert mode == "numbers", mode
    run_bot("thegame_quirks", "1.0", NumericHints(int(players)))
