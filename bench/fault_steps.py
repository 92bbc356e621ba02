#!/usr/bin/env python3
"""What finding a fault's step costs (referee/viewer/fault_steps.py): a tournament reads
each faulted game's log once more, after the game, to number its fault as `referee view`
does. Measured against playing that very game in-process (bots as functions, the log
on): the cheapest a game can be, so the ratio is an upper bound of the share a real
game, with bot processes and their round trips, pays for it. Worst case: the fault is
in the last round, so the log read back holds a whole game.

    python bench/fault_steps.py [GAMES]

Ends with `ratio fault_steps_vs_inprocess_game VALUE` (lower is better).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.errors import BotCrashed  # noqa: E402
from referee.games.rage.definition import RAGE  # noqa: E402
from referee.logs.writer import GameLog  # noqa: E402
from referee.matches.game import Options  # noqa: E402
from referee.matches.logged_game import write_header  # noqa: E402
from referee.players.lineup import bot_specs  # noqa: E402
from referee.players.player import FunctionPlayer  # noqa: E402
from referee.settings import TimeLimits  # noqa: E402
from referee.viewer.fault_steps import with_steps  # noqa: E402


def first_option(crash_in_round: int | None) -> FunctionPlayer:
    """A bot that answers each request with its first option, and dies at the first
    request of round `crash_in_round`."""
    state = {"round": 0}

    def handler(line: str) -> str | None:
        words = line.split()
        if words[0] == "ROUND":
            state["round"] = int(words[1])
        if words[0] in ("BID?", "PLAY?"):
            if state["round"] == crash_in_round:
                raise BotCrashed("bot exited with code 1", 1)
            return words[1]
        return None
    return FunctionPlayer("bot", handler)


def one_game(path: Path, seed: int) -> tuple[float, float]:
    """Seconds to play the game, and to number its fault from its log."""
    config = RAGE.configure(4, Options.of(RAGE, {}))
    times = TimeLimits()
    players = [first_option(10)] + [first_option(None) for _ in range(3)]
    specs = bot_specs([f"{name}=true" for name in "abcd"])
    start = time.perf_counter()
    with closing(GameLog.open(path, True)) as log:
        write_header(log, RAGE, config, seed, times, specs, players)
        faults = RAGE.outcome(RAGE.run(players, config, seed, times, log)).faults
    played = time.perf_counter() - start
    start = time.perf_counter()
    numbered = with_steps(faults, path)
    found = time.perf_counter() - start
    assert numbered[0].step is not None and numbered[0].where == "round 10, bidding"
    return played, found


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as folder:
        runs = [one_game(Path(folder) / f"g{seed}.jsonl.gz", seed) for seed in range(games)]
    played = statistics.median(run[0] for run in runs)
    found = statistics.median(run[1] for run in runs)
    print(f"{games} games, medians: played in-process {played * 1000:.1f} ms, "
          f"its fault's step found in {found * 1000:.1f} ms")
    print(f"ratio fault_steps_vs_inprocess_game {found / played:.3f}")


if __name__ == "__main__":
    main()
