#!/usr/bin/env python3
"""How long a game waits for its bots, and what finding a bot's processes costs.

    python bench/startup.py [--repeats R] [--extra N]

Time to first move: 4 sample Python bots (rage_random.py, over ZeroMQ, sandboxed where
bubblewrap works, as tournaments run them) are started and a game of Rage begins; the
time from the first start to the first move's reply. Sequential starts each bot and waits
for its HELLO before the next (as the referee did); parallel starts all, then waits for
every HELLO together (Lineup.launch_many). Alternating, R times each, in one run.

Process scans: the /proc sweep for a bot's tag (what the kill of an unsandboxed bot
without a cgroup still does) with the machine as it is and with N more processes
(sleeps, killed at the end); beside it the one read of /proc/loadavg that replaced the
walk over /proc at every start (the RLIMIT_NPROC base).

Ends with `ratio first_move_parallel VALUE` (parallel over sequential median) and
`ratio proc_sweep_more_processes VALUE` (sweep with N more processes over without).
Medians and ranges; the machine is shared and noisy, so compare only within one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.games.rage.rules import RageConfig  # noqa: E402
from referee.games.rage import match as rage_match  # noqa: E402
from referee.players.lineup import BotSpec, LaunchSettings, Lineup  # noqa: E402
from referee.players.player import Player  # noqa: E402
from referee.processes import tagged_kill  # noqa: E402
from referee.processes.bot_command import parse_bot_command  # noqa: E402
from referee.processes.rlimits import machine_thread_count  # noqa: E402
from referee.settings import TimeLimits  # noqa: E402

BOT = f"python {ROOT / 'bots' / 'rage_random.py'}"
SEATS = 4
SETTINGS = LaunchSettings(TimeLimits(startup=30.0, move=5.0))


def first_move_ms(parallel: bool) -> float:
    """From the first bot's start to the first reply of the game."""
    specs = [BotSpec(parse_bot_command(BOT), f"b{i}") for i in range(SEATS)]
    with Lineup(SETTINGS) as lineup:
        began = time.perf_counter()
        players = lineup.launch_all(specs) if parallel else [lineup.launch(s) for s in specs]
        replied: list[float] = []
        for player in players:
            _time_replies(player, replied)
        match = rage_match.RageMatch(players, RageConfig(SEATS), 1, SETTINGS.times)
        match.run()
        match.table.detach()
        return (min(replied) - began) * 1000


def _time_replies(player: Player, replied: list[float]) -> None:
    ask = player.ask

    def timed(line: str, preamble: object = ()) -> str:
        reply = ask(line, preamble)  # type: ignore[arg-type]
        replied.append(time.perf_counter())
        return reply

    player.ask = timed  # type: ignore[method-assign]


def sweep_ms() -> float:
    """One /proc sweep for a tag no process has (a kill that finds no escapee)."""
    return _best_ms(lambda: tagged_kill.kill_tagged({b"REFEREE_PROCESS_TAG=bench"}))


def loadavg_ms() -> float:
    return _best_ms(machine_thread_count)


def _best_ms(work: Callable[[], object], runs: int = 20) -> float:
    """The median of `runs` timings of `work`, in ms."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def process_count() -> int:
    return sum(entry.isdigit() for entry in os.listdir("/proc"))


def summary(name: str, values: list[float], unit: str) -> float:
    median = statistics.median(values)
    print(f"{name}: median {median:.1f} {unit} (range {min(values):.1f}-{max(values):.1f}, "
          f"n={len(values)})")
    return median


def scans(extra: int) -> float:
    """Sweep and loadavg costs now and with `extra` more processes; the sweep's growth."""
    base = process_count()
    before, read = sweep_ms(), loadavg_ms()
    print(f"proc sweep at {base} processes: {before:.2f} ms; /proc/loadavg read: {read:.3f} ms")
    sleepers = [subprocess.Popen(["sleep", "600"]) for _ in range(extra)]
    try:
        more = process_count()
        after, read = sweep_ms(), loadavg_ms()
        print(f"proc sweep at {more} processes: {after:.2f} ms; /proc/loadavg read: "
              f"{read:.3f} ms")
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
    return after / before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--extra", type=int, default=400)
    args = parser.parse_args()
    runs: dict[str, list[float]] = {"sequential": [], "parallel": []}
    for _ in range(args.repeats):
        for name in runs:  # alternating: both see the same spells of noise
            runs[name].append(first_move_ms(name == "parallel"))
    median = {name: summary(f"first move {name}", v, "ms") for name, v in runs.items()}
    growth = scans(args.extra)
    print(f"ratio first_move_parallel {median['parallel'] / median['sequential']:.3f}")
    print(f"ratio proc_sweep_more_processes {growth:.3f}")


if __name__ == "__main__":
    main()
