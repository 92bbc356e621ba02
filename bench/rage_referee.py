#!/usr/bin/env python3
"""Decisions per second through the whole referee: 4 sample random bots over ZeroMQ ipc.

Bot start-up is excluded: the bots are started once and play GAMES games in a row (the
protocol's new-game message). The cost of one decision is set beside the bare ZeroMQ
round trip of ../shared/anchors/zmq_floor.py, run with the anchor interpreter
($ANCHOR_PYTHON, default /tmp/anchors/bin/python; see shared/anchors/README).

    python bench/rage_referee.py [GAMES] [--repeats R]

Ours and the anchor alternate, R runs each (default 3), and the medians are compared:
on a small VM the cost of waking a process on the other CPU comes and goes, and
alternating exposes both to the same spells. Three comparisons:

- one CPU: each side, with all its processes and threads, pinned to one CPU (as
  tournament workers run). No wake-up crosses CPUs; what is left is the work done per
  decision. The referee does not poll there (referee/transport/busy_wait.py).
- unpinned: the referee as it runs by default, polling briefly before it sleeps.
- unpinned, no polling (--busy-wait-us 0): every wait sleeps, as the anchor's does.

Ends with `ratio rage_decision_vs_zmq_roundtrip VALUE` (unpinned, default settings;
lower is better; target <= 1.5).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.games.rage import RageConfig  # noqa: E402
from referee.players.lineup import LaunchSettings, Lineup, bot_specs  # noqa: E402
from referee.matches.rage_match import RageMatch  # noqa: E402

ANCHOR = ROOT.parent / "shared" / "anchors" / "zmq_floor.py"
ANCHOR_PYTHON = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
ANCHOR_ROUND_TRIPS = "20000"
PLAYERS = 4
DECISIONS_PER_GAME = PLAYERS * sum(range(1, 11)) + PLAYERS * 10  # plays + bids


def referee_us_per_decision(games: int, busy_wait: float | None = None) -> float:
    """Microseconds per bid or play, averaged over `games` whole games (this process)."""
    launch = LaunchSettings(busy_wait=busy_wait)
    specs = bot_specs([f"python {ROOT / 'bots' / 'rage_random.py'}"] * PLAYERS)
    config = RageConfig(PLAYERS)
    elapsed = 0.0
    with Lineup(launch) as lineup:
        players = lineup.launch_all(specs)
        for seed in range(games):
            match = RageMatch(players, config, seed, launch.times)
            start = time.perf_counter()
            result = match.run()
            elapsed += time.perf_counter() - start
            assert not result.faults, result.faults
    return elapsed / (games * DECISIONS_PER_GAME) * 1e6


def pinned_to(cpu: int | None) -> Callable[[], None] | None:
    """A preexec_fn putting the child (and all it starts) on one CPU, or None."""
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def run_ours(games: int, cpu: int | None, busy_wait_us: int | None) -> float:
    """One measurement in a fresh process (so both sides start alike)."""
    polling = [] if busy_wait_us is None else ["--busy-wait-us", str(busy_wait_us)]
    done = subprocess.run([sys.executable, __file__, str(games), "--worker", *polling],
                          capture_output=True, text=True, check=True,
                          preexec_fn=pinned_to(cpu))
    return float(done.stdout.split()[-1])


def run_anchor(cpu: int | None) -> float | None:
    """One run of the anchor: its ipc round trip in microseconds."""
    done = subprocess.run([ANCHOR_PYTHON, str(ANCHOR), ANCHOR_ROUND_TRIPS],
                          capture_output=True, text=True, check=True,
                          preexec_fn=pinned_to(cpu))
    found = re.search(r"zmq ipc\s+round trip:\s+([\d.]+) us", done.stdout)
    return float(found.group(1)) if found else None


def compare(label: str, games: int, repeats: int, cpu: int | None,
            busy_wait_us: int | None = None) -> float | None:
    """Alternate ours and the anchor; print both medians; return ours / anchor."""
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(repeats):
        ours.append(run_ours(games, cpu, busy_wait_us))
        anchor = run_anchor(cpu)
        if anchor is not None:
            floor.append(anchor)
    mine = statistics.median(ours)
    print(f"{label}: referee {mine:.1f} us per decision ({1e6 / mine:,.0f} decisions/s; "
          f"runs {', '.join(f'{v:.0f}' for v in ours)})")
    if not floor:
        print(f"{label}: anchor gave no ipc figure")
        return None
    bare = statistics.median(floor)
    print(f"{label}: zmq ipc round trip {bare:.1f} us (runs "
          f"{', '.join(f'{v:.0f}' for v in floor)}); ratio {mine / bare:.2f}")
    return mine / bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--busy-wait-us", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        polling = None if args.busy_wait_us is None else args.busy_wait_us / 1e6
        print(f"us_per_decision {referee_us_per_decision(args.games, polling):.2f}")
        return
    if not (Path(ANCHOR_PYTHON).exists() and ANCHOR.exists()):
        print(f"anchor skipped: needs {ANCHOR_PYTHON} with pyzmq and {ANCHOR}")
        print(f"referee: {referee_us_per_decision(args.games):.1f} us per decision")
        print("ratio rage_decision_vs_zmq_roundtrip n/a")
        return
    cpus = sorted(os.sched_getaffinity(0))
    compare(f"one CPU (cpu {cpus[-1]})", args.games, args.repeats, cpus[-1])
    ratio = compare("unpinned", args.games, args.repeats, None)
    compare("unpinned, no polling", args.games, args.repeats, None, busy_wait_us=0)
    print(f"ratio rage_decision_vs_zmq_roundtrip {ratio:.2f}" if ratio else
          "ratio rage_decision_vs_zmq_roundtrip n/a")


if __name__ == "__main__":
    main()
