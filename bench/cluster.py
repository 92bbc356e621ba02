"""A tournament on a local Dask cluster of 2 workers against a local pool of 2 jobs.

    .venv/bin/python bench/cluster.py [--deals N] [--repeats R]

Plays the same Rage tournament (random, heuristic, first at a table of 3: 3 games a
deal, reused bots, no sandbox: the bots' start is not what is compared) through
`tournaments.run.session.run_session`, as `referee tournament` does, with `--jobs 2` and with
`--cluster local:2`, each time into a new results db copied from one unplayed db (so
every run plays the same deals). The cluster's wall time includes starting and stopping
it, as a user's run would. Setups alternate within each repeat and the medians are
compared. `ratio cluster_vs_jobs X` is the jobs run's time over the cluster run's (1.0:
as fast; the target is at least 0.9). The cluster costs a few seconds whatever the
size (starting the workers, which import the referee, and stopping them), so the same
is measured on a quarter of the deals too, and `ratio cluster_vs_jobs_per_game Y` is the
ratio of the extra time each setup takes for the extra games: the speed once running.
Wall-clock figures: run it on an otherwise idle machine. Each run's CPU seconds (the
bench's process tree: coordinator, workers, bots; bench/proc_tree.py) are printed too:
on a loaded machine the CPU a setup spends beyond the games is the steadier figure.
`--games-per-task N` plays N games a Dask task (tournaments/run/cluster.py GAMES_PER_TASK).

The steadiest figure is `running CPU ms/game`: the CPU each kind of process used from
the first game submitted to the last one done (neither start nor stop), per game:
the coordinator (with a local cluster's scheduler and nannies), the workers (a Dask
worker's event loop and its game thread; a pool worker), the bots and their hubs; and
that stretch's wall seconds (`running wall`: the rest of a run's is its start and stop).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tournaments.run.cluster  # noqa: E402
from bench.proc_tree import (  # noqa: E402
    PROC, TICKS, cpu_seconds, descendants, process_ticks,
)
from bench.tournament import BOTS  # noqa: E402  the same three sample bots
from referee.processes.sandbox import SandboxMode, SandboxSettings  # noqa: E402
from referee.games.rage.definition import RAGE  # noqa: E402
from tournaments.run.pinned_pool import pinned_process_pool  # noqa: E402
from tournaments.run.session import RunOptions, run_session  # noqa: E402
from tournaments.spec.definition import TournamentSpec  # noqa: E402
from tournaments.store.results_db import ResultStore  # noqa: E402

NOTED: list[dict[str, int]] = []  # each run's running CPU by role, and wall (Running)
SETUPS: dict[str, dict[str, Any]] = {"jobs 2": {"jobs": 2}, "cluster local:2": {"cluster": "local:2"}}
ROLES = ("coordinator", "workers", "bots")


def role_ticks() -> dict[str, int]:
    """CPU clock ticks so far of the bench's processes by role (each process's own and
    its reaped children's)."""
    ticks = dict.fromkeys(ROLES, 0)
    for pid in descendants(os.getpid()):
        try:
            command = (PROC / str(pid) / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        role = "coordinator" if pid == os.getpid() else \
            "bots" if b"bots/" in command or b"referee.processes" in command else "workers"
        ticks[role] += process_ticks(pid)
    return ticks


class Running(Executor):
    """An executor as it is, that notes the CPU by role between its first game and its
    shutdown, once every game is done."""

    def __init__(self, inner: Executor, noted: list[dict[str, int]]) -> None:
        self._inner = inner
        self._noted = noted
        self._start: dict[str, int] | None = None
        self._started = 0.0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self._start is None:
            self._start, self._started = role_ticks(), time.perf_counter()
        return self._inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._start is not None and wait and not cancel_futures:
            end = role_ticks()
            used = {role: end[role] - self._start[role] for role in ROLES}
            wall_ms = round(1000 * (time.perf_counter() - self._started))
            self._noted.append({**used, "total": sum(used.values()), "wall_ms": wall_ms})
        self._inner.shutdown(wait=wait, cancel_futures=cancel_futures)


def noting_running_cpu(noted: list[dict[str, int]]) -> None:
    """Have both setups' executors note their running CPU into `noted`."""
    cluster_executor = tournaments.run.cluster.Cluster.executor

    def executor(cluster: tournaments.run.cluster.Cluster, jobs: int) -> Executor:
        return Running(cluster_executor(cluster, jobs), noted)

    setattr(tournaments.run.cluster.Cluster, "executor", executor)
    SETUPS["jobs 2"]["executor_factory"] = (
        lambda jobs: Running(pinned_process_pool(jobs), noted))


def tournament(deals: int) -> TournamentSpec:
    return TournamentSpec.create(RAGE, BOTS, deals=deals, seed=7, size=3)


def run_once(setup: str, deals: int, folder: Path,
             unplayed: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one whole tournament into a new db, and its tables."""
    db = folder / f"{time.monotonic_ns()}.sqlite"
    shutil.copyfile(unplayed, db)
    options = RunOptions(db, progress=False, sandbox=SandboxSettings(SandboxMode.OFF),
                         **SETUPS[setup])
    cpu, start = cpu_seconds(os.getpid()), time.perf_counter()
    tables = run_session(tournament(deals), options, io.StringIO())
    return time.perf_counter() - start, cpu_seconds(os.getpid()) - cpu, tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games-per-task", type=int,
                        default=tournaments.run.cluster.GAMES_PER_TASK)
    args = parser.parse_args()
    tournaments.run.cluster.GAMES_PER_TASK = args.games_per_task
    noting_running_cpu(NOTED)
    small = max(1, args.deals // 4)
    full, short = measure(args.deals, args.repeats), measure(small, args.repeats)
    extra = {setup: full[setup] - short[setup] for setup in SETUPS}
    print(f"ratio cluster_vs_jobs {full['jobs 2'] / full['cluster local:2']:.2f}")
    print(f"ratio cluster_vs_jobs_per_game {extra['jobs 2'] / extra['cluster local:2']:.2f}")


def measure(deals: int, repeats: int) -> dict[str, float]:
    """The median wall seconds of each setup on `deals` deals, printed with its runs."""
    walls: dict[str, list[float]] = {setup: [] for setup in SETUPS}
    cpus: dict[str, list[float]] = {setup: [] for setup in SETUPS}
    running: dict[str, list[dict[str, int]]] = {setup: [] for setup in SETUPS}
    tables: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        unplayed = Path(tmp) / "unplayed.sqlite"
        ResultStore(unplayed, tournament(deals)).close()
        for _ in range(repeats):
            for setup in SETUPS:
                wall, cpu, table = run_once(setup, deals, Path(tmp), unplayed)
                walls[setup].append(wall)
                cpus[setup].append(cpu)
                running[setup].append(NOTED.pop())
                tables.add(table)
    games = 3 * deals
    print(f"{games} Rage games per tournament, median of {repeats} runs "
          f"(tables identical in all runs: {len(tables) == 1})")
    median = {setup: statistics.median(values) for setup, values in walls.items()}
    for setup, wall in median.items():
        print(f"{setup:<16} {wall:6.2f} s wall {games / wall:6.1f} games/s  "
              f"(runs: {_runs(walls[setup])}) CPU {statistics.median(cpus[setup]):6.2f} s "
              f"(runs: {_runs(cpus[setup])})")
    for setup, notes in running.items():
        print(f"{setup:<16} running CPU ms/game: " + ", ".join(
            f"{role} {_per_game([note[role] for note in notes], games)}"
            for role in (*ROLES, "total"))
            + f"; running wall {_runs([note['wall_ms'] / 1000 for note in notes])} s")
    return median


def _per_game(ticks: list[int], games: int) -> str:
    """The median of `ticks` in milliseconds a game, with the range of the runs."""
    ms = sorted(1000 * tick / TICKS / games for tick in ticks)
    return f"{statistics.median(ms):.1f} ({ms[0]:.1f}-{ms[-1]:.1f})"


def _runs(values: list[float]) -> str:
    return ", ".join(f"{value:.2f}" for value in values)


if __name__ == "__main__":
    main()
