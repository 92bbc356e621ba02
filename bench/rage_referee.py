#!/usr/bin/env python3
"""Decisions per second through the whole referee: 4 sample random bots over ZeroMQ ipc.

Bot start-up is excluded: the bots are started once and play GAMES games in a row (the
protocol's new-game message). The cost of one decision is set beside the bare ZeroMQ
round trip of ../shared/anchors/zmq_floor.py, measured in the same run with the anchor
interpreter ($ANCHOR_PYTHON, default /tmp/anchors/bin/python; see shared/anchors/README).

    python bench/rage_referee.py [GAMES]

Ends with `ratio rage_decision_vs_zmq_roundtrip VALUE` (lower is better; target <= 1.5).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.games.rage import RageConfig  # noqa: E402
from referee.lineup import LaunchSettings, Lineup, bot_specs  # noqa: E402
from referee.rage_match import RageMatch  # noqa: E402

ANCHOR = ROOT.parent / "shared" / "anchors" / "zmq_floor.py"
ANCHOR_PYTHON = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")


def referee_us_per_decision(games: int) -> float:
    """Microseconds per bid or play, averaged over `games` whole games."""
    launch = LaunchSettings()
    specs = bot_specs([f"python {ROOT / 'bots' / 'rage_random.py'}"] * 4)
    config = RageConfig(4)
    decisions, elapsed = 0, 0.0
    with Lineup(launch) as lineup:
        players = lineup.launch_all(specs)
        for seed in range(games):
            match = RageMatch(players, config, seed, launch.times)
            start = time.perf_counter()
            result = match.run()
            elapsed += time.perf_counter() - start
            assert not result.faults, result.faults
            decisions += config.players * sum(range(1, 11)) + config.players * 10
    print(f"referee: {games} games, {decisions / elapsed:,.0f} decisions/s, "
          f"{elapsed / decisions * 1e6:.1f} us per decision")
    return elapsed / decisions * 1e6


def anchor_ipc_us() -> float | None:
    if not (Path(ANCHOR_PYTHON).exists() and ANCHOR.exists()):
        print(f"anchor skipped: needs {ANCHOR_PYTHON} with pyzmq and {ANCHOR}")
        return None
    out = subprocess.run([ANCHOR_PYTHON, str(ANCHOR), "20000"], capture_output=True,
                         text=True, check=True).stdout
    print("anchor:", " | ".join(out.strip().splitlines()))
    found = re.search(r"zmq ipc\s+round trip:\s+([\d.]+) us", out)
    return float(found.group(1)) if found else None


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    ours = referee_us_per_decision(games)
    floor = anchor_ipc_us()
    ratio = f"{ours / floor:.2f}" if floor else "n/a"
    print(f"ratio rage_decision_vs_zmq_roundtrip {ratio}")


if __name__ == "__main__":
    main()
