"""Random-playout speed of the Rage engine, beside OpenSpiel's Oh-Hell anchor in the same run.

    /tmp/venv/bin/python bench/rage_engine.py [--games N] [--seed S] [--repeats R]

A decision is one bid or one play, chosen uniformly from legal_bids()/legal_plays().
The anchor (`openspiel_ohhell.py 4 50`) runs as a subprocess with $ANCHOR_PYTHON (default
/tmp/anchors/bin/python), alternating with our runs; the medians of each are compared.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.games.rage import Phase, RageConfig, RageState  # noqa: E402

ANCHOR = ROOT / ".." / "shared" / "anchors" / "openspiel_ohhell.py"
ANCHOR_ARGS = ("4", "50")
PLAYERS = 4


def play_random_game(config: RageConfig, seed: int, rng: random.Random) -> int:
    """Play one game to the end with uniform random decisions; return the decision count."""
    state = RageState.new_game(config, seed)
    decisions = 0
    phase = state.phase
    while phase is not Phase.OVER:
        if phase is Phase.BID:
            bids = state.legal_bids()
            state.bid(bids[rng.randrange(len(bids))])
        else:
            plays = state.legal_plays()
            state.play(plays[rng.randrange(len(plays))])
        decisions += 1
        phase = state.phase
    return decisions


def measure_rage(games: int, seed: int) -> tuple[float, float, float]:
    """games/s, decisions/s and decisions/game over `games` random playouts."""
    config = RageConfig(PLAYERS)
    rng = random.Random(seed)
    play_random_game(config, seed, rng)  # warm-up
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        decisions += play_random_game(config, seed + game, rng)
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed, decisions / games


def measure_anchor(python: str) -> float | None:
    """One run of the anchor: its games/s, printing its own line; None if it fails."""
    done = subprocess.run([python, str(ANCHOR.resolve()), *ANCHOR_ARGS],
                          capture_output=True, text=True, timeout=600)
    match = re.search(r"([\d.]+) games/s", done.stdout)
    if done.returncode != 0 or match is None:
        print(f"anchor failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
        return None
    print(f"  {done.stdout.strip()}")
    return float(match.group(1))


def main() -> None:
    """Alternate our runs with the anchor's; print the medians and the ratio line last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; medians count")
    args = parser.parse_args()
    python = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
    anchor_ok = Path(python).exists()
    if not anchor_ok:
        print(f"anchor interpreter {python} is missing (set ANCHOR_PYTHON)")
    ours: list[tuple[float, float, float]] = []
    theirs: list[float] = []
    for _ in range(args.repeats):
        ours.append(measure_rage(args.games, args.seed))
        print(f"  rage {PLAYERS}p: {ours[-1][0]:.1f} games/s")
        anchor = measure_anchor(python) if anchor_ok else None
        anchor_ok = anchor is not None
        if anchor is not None:
            theirs.append(anchor)
    games_s, decisions_s, per_game = (statistics.median(run[i] for run in ours) for i in range(3))
    print(f"rage {PLAYERS}p random playouts (median of {len(ours)}): {games_s:.1f} games/s, "
          f"{decisions_s:.0f} decisions/s, {per_game:.0f} decisions/game")
    ratio = "n/a"
    if anchor_ok and theirs:
        anchor_games = statistics.median(theirs)
        print(f"openspiel oh_hell {PLAYERS}p rage-shaped (median of {len(theirs)}): "
              f"{anchor_games:.1f} games/s")
        ratio = f"{games_s / anchor_games:.3f}"
    print(f"ratio rage_vs_openspiel_games {ratio}")


if __name__ == "__main__":
    main()
