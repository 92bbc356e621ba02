#!/usr/bin/env python3
"""What the bubblewrap sandbox costs: bot start-up, and a whole game's decisions.

    python bench/sandbox.py [--repeats R] [--games G]

Start-up: launch one sample Python bot (rage_random.py, over ZeroMQ) and complete its
HELLO, sandboxed and not, alternating, R times each. Decisions: one process of each of 4
sample bots plays G games of Rage in a row (start-up excluded), sandboxed and not,
alternating. Medians and ranges are printed; the machine is shared and noisy, so compare
only within one run. The anchor for start-up is the same bot without a sandbox; for
decisions, the same game without one (see bench/rage_referee.py for the ZeroMQ floor).

Ends with `ratio sandbox_startup VALUE` and `ratio sandbox_decision VALUE` (sandboxed
over unsandboxed; 1.0 means free).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.games.rage import match as rage_match  # noqa: E402
from referee.processes.bot_command import parse_bot_command  # noqa: E402
from referee.games.rage.rules import RageConfig  # noqa: E402
from referee.players.lineup import BotSpec, LaunchSettings, Lineup  # noqa: E402
from referee.processes.sandbox import SandboxMode, SandboxSettings, sandbox_problem  # noqa: E402
from referee.settings import TimeLimits  # noqa: E402

BOT = f"python {ROOT / 'bots' / 'rage_random.py'}"
MODES = {"sandboxed": SandboxMode.ON, "unsandboxed": SandboxMode.OFF}


def settings(mode: SandboxMode) -> LaunchSettings:
    return LaunchSettings(TimeLimits(startup=30.0, move=5.0), sandbox=SandboxSettings(mode))


def startup_seconds(mode: SandboxMode) -> float:
    """One bot started and greeted."""
    with Lineup(settings(mode)) as lineup:
        start = time.perf_counter()
        lineup.launch(BotSpec(parse_bot_command(BOT), "bot"))
        return time.perf_counter() - start


def decision_microseconds(mode: SandboxMode, games: int) -> float:
    """Mean time per decision over `games` games by the same 4 bot processes."""
    config = RageConfig(4)
    with Lineup(settings(mode)) as lineup:
        players = lineup.launch_all([BotSpec(parse_bot_command(BOT), f"b{i}")
                                     for i in range(4)])
        decisions, spent = 0, 0.0
        for seed in range(games):
            match = rage_match.RageMatch(players, config, seed, settings(mode).times)
            start = time.perf_counter()
            match.run()
            spent += time.perf_counter() - start
            match.table.detach()
            decisions += 4 * 10 + 4 * sum(range(1, 11))  # bids and plays of 10 rounds
    return spent / decisions * 1e6


def summary(name: str, values: list[float], unit: str) -> float:
    median = statistics.median(values)
    print(f"{name}: median {median:.1f} {unit} (range {min(values):.1f}-{max(values):.1f}, "
          f"n={len(values)})")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem is not None:
        sys.exit(f"bench/sandbox.py: no sandbox here: {problem}")
    starts: dict[str, list[float]] = {name: [] for name in MODES}
    decisions: dict[str, list[float]] = {name: [] for name in MODES}
    for _ in range(args.repeats):
        for name, mode in MODES.items():  # alternating: both see the same spells of noise
            starts[name].append(startup_seconds(mode) * 1000)
            decisions[name].append(decision_microseconds(mode, args.games))
    start = {n: summary(f"start-up {n}", v, "ms") for n, v in starts.items()}
    decide = {n: summary(f"decision {n}", v, "us") for n, v in decisions.items()}
    print(f"ratio sandbox_startup {start['sandboxed'] / start['unsandboxed']:.3f}")
    print(f"ratio sandbox_decision {decide['sandboxed'] / decide['unsandboxed']:.3f}")


if __name__ == "__main__":
    main()
