"""Tournament throughput with the sample Rage bots: jobs 1 against 2, fresh against reused bots.

    /tmp/venv/bin/python bench/tournament.py [--deals N] [--repeats R]

Plays the same small Rage tournament (random, heuristic, first at tables of 4: 12 games a
deal) through `tournaments.session.run_session`, as `referee tournament` does, each time
into a new results db (copied from one unplayed db, so every run has its deal secret and
plays the same deals). Configurations alternate within each repeat and the medians are
compared; the last lines are `ratio jobs2_vs_jobs1 X` (reused bots) and
`ratio persistent_vs_fresh Y` (jobs 1). Also shown: jobs 2 on a plain, unpinned process
pool, and both without the referee's polling before it sleeps (--busy-wait-us 0; see
referee/transport/busy_wait.py: pinned workers have one CPU each and never poll). Wall-clock
figures: run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import io
import resource
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.registry.rage import RAGE
from tournaments.spec import BotEntry, TournamentSpec  # noqa: E402
from tournaments.session import RunOptions, run_session  # noqa: E402
from tournaments.store import ResultStore  # noqa: E402

BOTS = (BotEntry("random", "python bots/rage_random.py"),
        BotEntry("heuristic", "python bots/rage_heuristic.py"),
        BotEntry("first", "stdio:bots/rage_first.sh"))


@dataclass(frozen=True)
class Setup:
    """One measured configuration."""

    jobs: int
    fresh: bool
    pinned: bool = True  # the default local pool: each worker on its own CPUs
    polling: bool = True  # the default: polling before sleeping where it has the CPUs

    @property
    def label(self) -> str:
        pool = "" if self.pinned else ", unpinned"
        polling = "" if self.polling else ", no polling"
        return (f"jobs {self.jobs}, {'fresh' if self.fresh else 'persistent'} "
                f"bots{pool}{polling}")


PERSISTENT_1, PERSISTENT_2, FRESH_1 = Setup(1, False), Setup(2, False), Setup(1, True)
UNPINNED_2 = Setup(2, False, pinned=False)
SETUPS = (PERSISTENT_1, PERSISTENT_2, UNPINNED_2, FRESH_1,
          Setup(1, False, polling=False), Setup(2, False, pinned=False, polling=False))


@dataclass(frozen=True)
class Run:
    """One whole tournament: wall and CPU seconds (all processes), games, its tables."""

    wall: float
    cpu: float
    games: int
    tables: str


def cpu_seconds() -> float:
    """CPU of this process and of every reaped descendant (workers reap their bots)."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                         resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def tournament(deals: int, fresh: bool = False) -> TournamentSpec:
    """The measured tournament (fresh_bots is no part of its definition)."""
    return TournamentSpec.create(RAGE, BOTS, deals=deals, seed=99, size=4,
                                 fresh_bots=fresh)


def unplayed_db(deals: int, folder: Path) -> Path:
    """A results db of the tournament with no game played: its deal secret for every run."""
    path = folder / "unplayed.sqlite"
    ResultStore(path, tournament(deals)).close()
    return path


def run_once(setup: Setup, deals: int, folder: Path, unplayed: Path) -> Run:
    """Play the whole tournament once into a new db."""
    spec = tournament(deals, setup.fresh)
    db = folder / f"{setup.jobs}-{setup.fresh}-{time.monotonic_ns()}.sqlite"
    shutil.copyfile(unplayed, db)
    cpu, start = cpu_seconds(), time.perf_counter()
    factory = None if setup.pinned else ProcessPoolExecutor
    options = RunOptions(db, setup.jobs, progress=False, executor_factory=factory,
                         busy_wait=None if setup.polling else 0.0)
    tables = run_session(spec, options, io.StringIO())
    return Run(time.perf_counter() - start, cpu_seconds() - cpu, 12 * deals, tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs: dict[Setup, list[Run]] = {setup: [] for setup in SETUPS}
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        unplayed = unplayed_db(args.deals, Path(tmp))
        for _ in range(args.repeats):
            for setup in SETUPS:
                runs[setup].append(run_once(setup, args.deals, Path(tmp), unplayed))
    games = 12 * args.deals
    same = len({run.tables for values in runs.values() for run in values}) == 1
    print(f"{games} Rage games per tournament, median of {args.repeats} runs "
          f"(tables identical in all runs: {same})")
    median = {setup: statistics.median(run.wall for run in values)
              for setup, values in runs.items()}
    for setup in SETUPS:
        cpu = statistics.median(run.cpu for run in runs[setup])
        # cpu/wall above 1 at jobs 1: one game keeps more than a core busy (referee,
        # bots and ZeroMQ I/O threads overlap), which caps what a second core can add.
        print(f"{setup.label:<48} {median[setup]:6.2f} s wall {games / median[setup]:6.1f} "
              f"games/s  {1000 * cpu / games:5.1f} ms cpu/game  cpu/wall "
              f"{cpu / median[setup]:4.2f}")
    print(f"(unpinned jobs 2 vs jobs 1: {median[PERSISTENT_1] / median[UNPINNED_2]:.2f})")
    print(f"ratio jobs2_vs_jobs1 {median[PERSISTENT_1] / median[PERSISTENT_2]:.2f}")
    print(f"ratio persistent_vs_fresh {median[FRESH_1] / median[PERSISTENT_1]:.2f}")


if __name__ == "__main__":
    main()
