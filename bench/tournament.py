"""Tournament throughput with the sample Rage bots: jobs 1 against 2, fresh against reused bots.

    /tmp/venv/bin/python bench/tournament.py [--deals N] [--repeats R]

Plays the same small Rage tournament (random, heuristic, first at tables of 4: 12 games a
deal) through `tournaments.session.run_session`, as `referee tournament` does, each time
into a new results db. Configurations alternate within each repeat and the medians are
compared; the last lines are `ratio jobs2_vs_jobs1 X` and `ratio persistent_vs_fresh Y`
(both at jobs 1 and jobs 2: the first ratio uses reused bots, the second jobs 1).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tournaments.config import BotEntry, Game, TournamentSpec  # noqa: E402
from tournaments.session import RunOptions, run_session  # noqa: E402

BOTS = (BotEntry("random", "python bots/rage_random.py"),
        BotEntry("heuristic", "python bots/rage_heuristic.py"),
        BotEntry("first", "stdio:bots/rage_first.sh"))


@dataclass(frozen=True)
class Setup:
    """One measured configuration."""

    jobs: int
    fresh: bool

    @property
    def label(self) -> str:
        return f"jobs {self.jobs}, {'fresh' if self.fresh else 'persistent'} bots"


SETUPS = (Setup(1, False), Setup(2, False), Setup(1, True), Setup(2, True))


def run_once(setup: Setup, deals: int, folder: Path) -> tuple[float, int, str]:
    """Wall seconds, games and the rendered tables of one whole tournament."""
    spec = TournamentSpec.create(Game.RAGE, BOTS, deals=deals, seed=99, table_size=4,
                                 fresh_bots=setup.fresh)
    db = folder / f"{setup.jobs}-{setup.fresh}-{time.monotonic_ns()}.sqlite"
    start = time.perf_counter()
    tables = run_session(spec, RunOptions(db, setup.jobs, progress=False), io.StringIO())
    elapsed = time.perf_counter() - start
    return elapsed, 12 * deals, tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    seconds: dict[Setup, list[float]] = {setup: [] for setup in SETUPS}
    tables: set[str] = set()
    games = 0
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        for _ in range(args.repeats):
            for setup in SETUPS:
                elapsed, games, text = run_once(setup, args.deals, Path(tmp))
                seconds[setup].append(elapsed)
                tables.add(text)
    print(f"{games} Rage games per tournament, median of {args.repeats} runs "
          f"(tables identical in all runs: {len(tables) == 1})")
    median = {setup: statistics.median(values) for setup, values in seconds.items()}
    for setup in SETUPS:
        print(f"{setup.label:<26} {median[setup]:7.2f} s  {games / median[setup]:7.1f} games/s")
    print(f"ratio jobs2_vs_jobs1 {median[Setup(1, False)] / median[Setup(2, False)]:.2f}")
    print(f"ratio persistent_vs_fresh {median[Setup(1, True)] / median[Setup(1, False)]:.2f}")


if __name__ == "__main__":
    main()
