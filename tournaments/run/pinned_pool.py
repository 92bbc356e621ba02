"""A local process pool whose workers, with the bots they start, each keep to their own
CPUs: the executor a tournament runs on unless it is given a cluster."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from types import FrameType
from typing import Any

from referee.logs import unfinished
from referee.processes.live_bots import quit_on_sigterm
from referee.processes.stderr_sink import drop_visits
from referee.processes.rlimits import die_with_parent


END_GRACE = 5.0  # seconds a worker has to end its game once told to


def cpu_shares(cpus: Sequence[int], jobs: int) -> list[frozenset[int]]:
    """The CPUs of each of `jobs` workers: one each (shared round-robin when there are
    more workers than CPUs), or an equal interleaved share when there are fewer."""
    if jobs >= len(cpus):
        return [frozenset({cpus[worker % len(cpus)]}) for worker in range(jobs)]
    return [frozenset(cpus[worker::jobs]) for worker in range(jobs)]


def pinned_process_pool(jobs: int) -> Executor:
    """A local process pool in which each worker, and the bots it starts, keeps to its own
    CPUs. A game is a ping-pong between the referee and its bots; kept on one core it
    avoids cross-core wake-ups and cache traffic (bench/tournament.py: jobs 2 about 15%
    faster on 2 cores). Bots inherit the affinity, so every game gets an equal share."""
    if not hasattr(os, "sched_setaffinity"):
        return ProcessPoolExecutor(jobs, initializer=_start_plain_worker,
                                   initargs=(os.getpid(),))
    shares = cpu_shares(sorted(os.sched_getaffinity(0)), jobs)
    counter = multiprocessing.Value("i", 0)
    return ProcessPoolExecutor(jobs, initializer=_start_worker,
                               initargs=(os.getpid(), counter, shares))


def _start_plain_worker(parent: int) -> None:
    """A pool worker dies with the referee (even SIGKILLed: its bots then die with it),
    and SIGTERMed it removes the files of the game it was playing, kills its bots and ends
    quietly (the pool's way to end it, and end_running_games')."""
    die_with_parent(parent)
    quit_on_sigterm()
    ending = signal.getsignal(signal.SIGTERM)
    assert callable(ending)
    ended: list[int] = []

    def end(signum: int, frame: FrameType | None) -> None:
        # Once only: a worker gets SIGTERM twice when its group is sent one too (kill -TERM
        # -PGID, systemd), and a second run inside the first waited for ever on the lock
        # of an Event the first held (drop_visits'), the referee's exit with it.
        if ended:
            return
        ended.append(signum)
        drop_visits()  # first: a seat's stderr file is made as its bot's pipe ends
        unfinished.remove_all()
        ending(signum, frame)  # kills the bots' groups, then this process

    signal.signal(signal.SIGTERM, end)


def _start_worker(parent: int, counter: Any, shares: list[frozenset[int]]) -> None:
    """A plain worker that keeps, with its bots, to its share of the CPUs."""
    _start_plain_worker(parent)
    # `counter` is a multiprocessing.Value: its typing is not public.
    with counter.get_lock():
        worker = counter.value
        counter.value += 1
    os.sched_setaffinity(0, shares[worker % len(shares)])


def end_running_games(executor: Executor) -> None:
    """End at once the games a local pool is playing: SIGTERM each worker, which kills
    its bots' groups and ends (quit_on_sigterm). Its workers ignore Ctrl-C, so that the
    referee alone decides how to stop; left to shutdown(), a stop would wait for every
    game in flight to be played to its end (minutes, with slow bots), only to discard it.
    A cluster's executor (cluster.py) is left to its own shutdown, which cancels.

    A worker still alive after END_GRACE seconds is killed: a SIGTERM that reaches a
    worker just forked, before Python has set up its signals in the child, is dropped
    there, and the worker then waits for ever on the queue's lock that a sibling ended
    while holding it; the pool's shutdown joins it, and the referee hung (a review: 1 in
    about 90 stops by SIGINT then SIGTERM to the group). Such a worker plays no game."""
    if not isinstance(executor, ProcessPoolExecutor):
        return
    # The pool's processes by pid: private, but the one handle on them CPython 3.11 has
    # (3.14's terminate_workers() is this).
    workers = list((getattr(executor, "_processes", None) or {}).values())
    for worker in workers:
        _signal(worker, "terminate")
    # Their sentinels: waiting on them reaps none, which the pool's own thread does.
    alive = {worker.sentinel: worker for worker in workers if _signal(worker, "is_alive")}
    deadline = time.monotonic() + END_GRACE
    while alive and time.monotonic() < deadline:
        for ended in multiprocessing.connection.wait(list(alive), deadline - time.monotonic()):
            del alive[ended]
    for worker in alive.values():
        _signal(worker, "kill")


def _signal(worker: Any, how: str) -> bool:
    """worker.terminate(), .kill() or .is_alive(); False where it is gone or closed."""
    try:
        return bool(getattr(worker, how)())
    except (OSError, ValueError, AttributeError):
        return False
