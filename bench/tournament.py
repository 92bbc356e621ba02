"""Tournament throughput with the sample Rage bots, beside the bare ZeroMQ round trip.

    /tmp/venv/bin/python bench/tournament.py [--deals N] [--repeats R] [--extra]

Plays the same Rage tournament (random, heuristic, first at tables of 4: 12 games a deal;
34 deals by default, 408 games, so each setting's figure rests on at least 400 games)
through `tournaments.run.session.run_session`, as `referee tournament` does, each time into
a new results db (copied from one unplayed db, so every run has its deal secret and plays
the same deals). Settings:

- the default: `referee tournament` as it runs with no options: one worker per core,
  sandboxed bots reused, but no process for two games of a deal (tournaments/
  idle_bots.py), the games in play order (tournaments/schedule/play_order.py: windows of at least
  16 deals per worker, so on 2 cores the 34 deals here are one window); where there is
  no sandbox, the pool reuses bots for any game: the first line says which;
- --persistent-bots, one worker per core, and with one worker (jobs 1);
- with --extra, also a plain unpinned process pool and no polling before sleeping
  (--busy-wait-us 0; see referee/transport/busy_wait.py).

Within each repeat the settings alternate with one run of the anchor,
../shared/anchors/zmq_floor.py ($ANCHOR_PYTHON, default /tmp/anchors/bin/python), whose
ipc round trip gives the floor: no referee on C cores can make more than C / round trip
decisions a second. Medians and ranges are printed; the machine is shared and noisy, so
compare only within one run. Each setting's line also gives the bot processes started
per seat played (counted in the forked workers' Lineup.launch_many). Ends with

  ratio floor_fraction VALUE             default setting: decisions/s / (cores / round trip)
                                         (a bot process per deal window or so: start-up
                                         counts)
  ratio floor_fraction_persistent VALUE  the same with --persistent-bots (decisions only)
  ratio jobs<C>_vs_jobs1 VALUE           persistent bots: wall of jobs 1 / jobs C
  ratio persistent_vs_fresh VALUE        one worker per core: wall default / persistent
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.games.rage.rules import cards_in_round  # noqa: E402
from referee.players.lineup import Lineup  # noqa: E402
from referee.processes.sandbox import sandbox_problem  # noqa: E402
from referee.games.rage.definition import RAGE  # noqa: E402
from tournaments.spec.definition import BotEntry, TournamentSpec  # noqa: E402
from tournaments.run.session import RunOptions, run_session  # noqa: E402
from tournaments.store.results_db import ResultStore  # noqa: E402

BOTS = (BotEntry("random", "python bots/rage_random.py"),
        BotEntry("heuristic", "python bots/rage_heuristic.py"),
        BotEntry("first", "stdio:bots/rage_first.sh"))
SIZE, ROUNDS, GAMES_PER_DEAL = 4, 10, 12
# Every seat bids once and plays each card of every round, fallback moves included.
DECISIONS_PER_GAME = sum(SIZE * (1 + cards_in_round(r)) for r in range(1, ROUNDS + 1))
MIN_GAMES = 400
ANCHOR = ROOT.parent / "shared" / "anchors" / "zmq_floor.py"
ANCHOR_PYTHON = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
ANCHOR_ROUND_TRIPS = "20000"
CPUS = os.sched_getaffinity(0)
CORES = len(CPUS)


@dataclass(frozen=True)
class Setup:
    """One measured configuration."""

    jobs: int
    persistent: bool  # --persistent-bots: sandboxed bots play many games
    pinned: bool = True  # the default local pool: each worker on its own CPUs
    polling: bool = True  # the default: polling before sleeping where it has the CPUs

    @property
    def label(self) -> str:
        bots = "persistent bots" if self.persistent else "default (a deal once a bot)"
        pool = "" if self.pinned else ", unpinned"
        polling = "" if self.polling else ", no polling"
        return f"jobs {self.jobs}, {bots}{pool}{polling}"


DEFAULT = Setup(CORES, persistent=False)
PERSISTENT, PERSISTENT_1 = Setup(CORES, persistent=True), Setup(1, persistent=True)
SETUPS = (DEFAULT, PERSISTENT, PERSISTENT_1)
EXTRA = (Setup(CORES, True, pinned=False), Setup(1, True, polling=False),
         Setup(CORES, True, pinned=False, polling=False))


@dataclass(frozen=True)
class Run:
    """One whole tournament: wall seconds, busy CPU seconds (cpu_seconds), games, its
    tables, and the bot processes started (None where they could not be counted)."""

    wall: float
    cpu: float
    games: int
    tables: str
    starts: int | None = None

    @property
    def decisions_per_s(self) -> float:
        return self.games * DECISIONS_PER_GAME / self.wall


# Bot processes started, counted in Lineup.launch_many by every worker. The workers are
# forked from this process, so they inherit the counting method and the shared counter;
# with another start method there is no count.
STARTS = multiprocessing.Value("q", 0)
COUNTED = multiprocessing.get_start_method() == "fork"
_launch_many = Lineup.launch_many


def _counted_launch_many(self: Lineup, launches: Sequence[object]) -> object:
    with STARTS.get_lock():
        STARTS.value += len(launches)
    return _launch_many(self, launches)  # type: ignore[arg-type]


Lineup.launch_many = _counted_launch_many  # type: ignore[method-assign,assignment]


def cpu_seconds() -> float:
    """Busy seconds of this process's CPUs, from /proc/stat: everything that ran on them.

    Not getrusage: a sandboxed bot is reaped by its sandbox's pid 1, which dies without
    waiting, so no ancestor of ours ever counts the bots' CPU (it read 25 ms a game where
    the CPUs were busy 80). On a shared machine this counts others too: run it quiet."""
    busy = 0
    with open("/proc/stat") as stat:
        for line in stat:
            name, *ticks = line.split()
            if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in CPUS:
                user, nice, system, _idle, _iowait, irq, softirq = map(int, ticks[:7])
                busy += user + nice + system + irq + softirq
    return busy / os.sysconf("SC_CLK_TCK")


def tournament(deals: int) -> TournamentSpec:
    """The measured tournament."""
    return TournamentSpec.create(RAGE, BOTS, deals=deals, seed=99, size=SIZE)


def unplayed_db(deals: int, folder: Path) -> Path:
    """A results db of the tournament with no game played: its deal secret for every run."""
    path = folder / "unplayed.sqlite"
    ResultStore(path, tournament(deals)).close()
    return path


def run_once(setup: Setup, deals: int, folder: Path, unplayed: Path) -> Run:
    """Play the whole tournament once into a new db (its logs beside it)."""
    db = folder / f"{setup.jobs}-{setup.persistent}-{time.monotonic_ns()}" / "results.sqlite"
    db.parent.mkdir()
    shutil.copyfile(unplayed, db)
    starts = STARTS.value
    cpu, start = cpu_seconds(), time.perf_counter()
    factory = None if setup.pinned else ProcessPoolExecutor
    options = RunOptions(db, setup.jobs, progress=False, executor_factory=factory,
                         busy_wait=None if setup.polling else 0.0,
                         persistent_bots=setup.persistent)
    tables = run_session(tournament(deals), options, io.StringIO())
    run = Run(time.perf_counter() - start, cpu_seconds() - cpu, GAMES_PER_DEAL * deals, tables,
              STARTS.value - starts if COUNTED else None)
    shutil.rmtree(db.parent)  # 400 games' logs are ~70 MB
    return run


def round_trip_us() -> float | None:
    """One run of the anchor: its ipc round trip in microseconds (None without it)."""
    if not (ANCHOR.exists() and Path(ANCHOR_PYTHON).exists()):
        return None
    done = subprocess.run([ANCHOR_PYTHON, str(ANCHOR), ANCHOR_ROUND_TRIPS],
                          capture_output=True, text=True, check=True)
    found = re.search(r"zmq ipc\s+round trip:\s+([\d.]+) us", done.stdout)
    return float(found.group(1)) if found else None


def spread(values: Sequence[float], digits: int = 1) -> str:
    """`median [min-max]` of a few runs."""
    return (f"{statistics.median(values):.{digits}f} "
            f"[{min(values):.{digits}f}-{max(values):.{digits}f}]")


def floor_fraction(decisions_per_s: float, round_trip: float | None) -> str:
    """decisions/s over the floor's CORES / round trip, or n/a without the anchor."""
    return "n/a" if round_trip is None else f"{decisions_per_s * round_trip / 1e6 / CORES:.3f}"


def starts_per_seat(values: Sequence[Run]) -> str:
    """Bot processes started per seat played (median of the runs)."""
    counted = [run.starts / (run.games * SIZE) for run in values if run.starts is not None]
    return f"{statistics.median(counted):.3f} starts/seat" if counted else "starts n/a"


def report(runs: dict[Setup, list[Run]], floors: list[float], deals: int) -> None:
    games = GAMES_PER_DEAL * deals
    same = len({run.tables for values in runs.values() for run in values}) == 1
    sandbox = "off: bots are reused" if sandbox_problem() else "on"
    repeats = len(next(iter(runs.values())))
    print(f"{games} Rage games per run, {repeats} runs per setting, {CORES} cores, sandbox "
          f"{sandbox} (tables identical in all runs: {same})")
    if games < MIN_GAMES:
        print(f"(fewer than {MIN_GAMES} games a run: a smoke run, not a figure)")
    floor = statistics.median(floors) if floors else None
    if floor is not None:
        print(f"zmq ipc round trip {spread(floors)} us: floor {CORES / floor * 1e6:,.0f} "
              f"decisions/s on {CORES} cores")
    for setup, values in runs.items():
        decisions = statistics.median(run.decisions_per_s for run in values)
        cpu = statistics.median(run.cpu for run in values)
        wall = statistics.median(run.wall for run in values)
        # cpu/wall: how busy the CPUs were, of CORES at most. Below CORES at jobs CORES:
        # waiting (start-up, the parent); at jobs 1 above 1: one game keeps more than a
        # core busy (referee, bots and ZeroMQ I/O threads overlap).
        print(f"{setup.label:<50} {spread([run.wall for run in values])} s wall, "
              f"{spread([run.decisions_per_s for run in values], 0)} decisions/s, "
              f"{1000 * cpu / games:5.1f} ms cpu/game, cpu/wall {cpu / wall:4.2f}, "
              f"floor fraction {floor_fraction(decisions, floor)}, {starts_per_seat(values)}")
    median = {setup: statistics.median(run.wall for run in values)
              for setup, values in runs.items()}
    decisions_of = {setup: statistics.median(run.decisions_per_s for run in values)
                    for setup, values in runs.items()}
    # The default starts a new sandboxed bot where one would see a deal again: the
    # start-ups are its difference from the persistent setting, whose floor fraction is
    # the cost of the decisions themselves.
    startup = (median[DEFAULT] - median[PERSISTENT]) / games
    print(f"bot start-up: {1000 * startup:.1f} ms a game (default wall - persistent wall, "
          f"per game), {100 * startup * games / median[DEFAULT]:.0f}% of the default's wall; "
          "floor_fraction counts it, floor_fraction_persistent does not")
    print(f"ratio floor_fraction {floor_fraction(decisions_of[DEFAULT], floor)}")
    print(f"ratio floor_fraction_persistent {floor_fraction(decisions_of[PERSISTENT], floor)}")
    print(f"ratio jobs{CORES}_vs_jobs1 {median[PERSISTENT_1] / median[PERSISTENT]:.2f}")
    print(f"ratio persistent_vs_fresh {median[DEFAULT] / median[PERSISTENT]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=-(-MIN_GAMES // GAMES_PER_DEAL))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--extra", action="store_true",
                        help="also an unpinned pool and no polling before sleeping")
    args = parser.parse_args()
    setups = SETUPS + EXTRA if args.extra else SETUPS
    runs: dict[Setup, list[Run]] = {setup: [] for setup in setups}
    floors: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        unplayed = unplayed_db(args.deals, Path(tmp))
        for _ in range(args.repeats):
            for setup in setups:
                runs[setup].append(run_once(setup, args.deals, Path(tmp), unplayed))
            floor = round_trip_us()
            if floor is not None:
                floors.append(floor)
    if not floors:
        print(f"anchor skipped: needs {ANCHOR_PYTHON} with pyzmq and {ANCHOR}")
    report(runs, floors, args.deals)


if __name__ == "__main__":
    main()
