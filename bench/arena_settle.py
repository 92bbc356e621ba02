"""How often the ladder `referee arena run --until-settled` stops on is wrong, and how
soon it stops (docs/arena.md): simulated arenas of versions of known strength, run by
the arena's own matchmaking, ratings and stop rule (tournaments/arena/simulated.py).

    python bench/arena_settle.py [--arenas N] [--versions V] [--step S] [--max-games G]
                                 [--top K]

Prints, per confidence, the share of judged pairs the stopped ladder gets wrong (its
neighbours, or with --top every first-K version against every other), the share of arenas
with any pair wrong, the share that settled within G games and the median games they
played; and `ratio arena_pair_error_over_allowed_CONF VALUE`, the pair error over
1 - confidence (below 1: within what the rule promises).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.arena.simulated import simulate  # noqa: E402
from tournaments.spec.settle_rule import SettleRule  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arenas", type=int, default=200)
    parser.add_argument("--versions", type=int, default=8)
    parser.add_argument("--step", type=float, default=0.5, help="strength between neighbours")
    parser.add_argument("--max-games", type=int, default=8000)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--top", type=int, default=None)
    parser.add_argument("--confidences", default="0.8,0.9,0.95")
    args = parser.parse_args()
    strengths = {f"v{i:03d}": -i * args.step for i in range(args.versions)}
    print(f"{args.arenas} arenas of {args.versions} versions, strength step {args.step}, "
          f"tables of {args.size}, at most {args.max_games} games, top {args.top}")
    print("| confidence | settled | median games | wrong pairs | any pair wrong | seconds |")
    print("|---|---|---|---|---|---|")
    for confidence in (float(c) for c in args.confidences.split(",")):
        rng = random.Random(1)
        started = time.perf_counter()
        runs = [simulate(strengths, args.size, SettleRule(confidence, args.top),
                         args.max_games, rng) for _ in range(args.arenas)]
        settled = [run for run in runs if run.settled]
        judged = sum(run.pairs for run in settled) or 1
        error = sum(run.wrong_pairs for run in settled) / judged
        anyone = sum(run.wrong_pairs > 0 for run in settled) / max(1, len(settled))
        median = statistics.median(run.games for run in settled) if settled else "-"
        print(f"| {confidence:.2f} | {len(settled)} of {args.arenas} | {median} | "
              f"{error:.4f} | {anyone:.3f} | {time.perf_counter() - started:.0f} |")
        print(f"ratio arena_pair_error_over_allowed_{confidence:g} "
              f"{error / (1 - confidence):.3f}")


if __name__ == "__main__":
    main()
