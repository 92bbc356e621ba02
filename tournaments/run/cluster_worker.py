"""What runs on each Dask worker: a batch of games, the check before a cluster
tournament's first game, and the closing of its bots after the last.

A Dask task's bookkeeping (scheduler, client and worker) costs a fair share of a fast
game's CPU (docs/cluster.md, "What runs where"); a task therefore plays several games in
turn (`run_calls`) and answers each game's record or error on its own.

A game played on a worker must be the game the coordinator scheduled: the same referee,
the same bot files (by sha256, as tournaments/store/provenance.py hashes them on the
coordinator), a sandbox that can start there, and a logs folder it can write. Each worker
runs `worker_problems` (through Dask's `client.run`) and says what differs; the
coordinator turns the first problem into one error naming the worker and the bot.

A worker thread keeps the bots of its last games running, for its next (fixture_play.py's
BotPool, one per thread). A worker outlives the tournament, so at the end each of its
threads is made to close its pool (`close_bots`): no bot is left waiting. This module
imports nothing of Dask: the worker hands itself in.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee import __version__
from referee.errors import ConfigError
from referee.players.lineup import sandbox_view
from tournaments.run.fixture_play import PlayContext, close_worker_pool
from tournaments.store.provenance import BotProvenance, bots_provenance, short_hash


# One call of a batch: its positional and keyword arguments.
Call = tuple[tuple[Any, ...], dict[str, Any]]
# What a call gave: (True, its result) or (False, the exception it raised).
CallResult = tuple[bool, Any]


def run_calls(function: Callable[..., Any], calls: Sequence[Call]) -> list[CallResult]:
    """In a worker: `function` called with each of `calls` in turn, each call's outcome
    apart, so that one game's error (a referee bug) loses none of the others."""
    outcomes: list[CallResult] = []
    for args, kwargs in calls:
        try:
            outcomes.append((True, function(*args, **kwargs)))
        except Exception as error:  # sent back as that call's own error
            outcomes.append((False, _picklable(error)))
    return outcomes


def _picklable(error: Exception) -> Exception:
    """`error`, or, if it would not survive the trip back, its type and words."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # any pickling failure: send the words
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def worker_problems(context: PlayContext, bots: Sequence[BotProvenance], version: str,
                    sandboxed: bool) -> list[str]:
    """In a worker: how this machine differs from the coordinator, whose bots are `bots`,
    whose referee is `version` and whose bots would be `sandboxed` or not (bot paths
    resolve from the worker's folder, as the bots it starts do); empty when it can play
    the tournament's games as the coordinator would."""
    problems = []
    if version != __version__:
        problems.append(f"the referee here is version {__version__}, the coordinator's "
                        f"{version}")
    try:
        here = bots_provenance(context.spec.bots, context.bots)
    except ConfigError as error:  # a program not on PATH, a file it cannot read
        problems.append(str(error))
        here = ()
    for theirs, ours in zip(bots, here):
        problems += _differences(theirs, ours)
    try:
        if (sandbox_view(context.launch_settings()) is not None) != sandboxed:
            problems.append(f"bots would run {_sandbox_words(not sandboxed)} here, "
                            f"{_sandbox_words(sandboxed)} on the coordinator")
    except ConfigError as error:  # e.g. --sandbox on, and no sandbox here
        problems.append(str(error))
    try:
        context.logs.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        problems.append(f"cannot make the game-logs folder {context.logs}: "
                        f"{error.strerror or error}")
    return problems


def keep_to_cpus(shares: Sequence[frozenset[int]], dask_worker: Any) -> None:
    """In worker number N of a local cluster (`client.run` hands it in): keep, with the
    threads it will start and their bots, which inherit it, to shares[N], as a local
    pool's worker does (tournaments/run/session.py, pinned_process_pool). Every thread is
    pinned, as sched_setaffinity pins one thread."""
    share = shares[int(dask_worker.name) % len(shares)]
    for thread in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(thread), share)
        except ProcessLookupError:  # a thread that ended meanwhile
            continue


def _sandbox_words(sandboxed: bool) -> str:
    return "sandboxed" if sandboxed else "without a sandbox (--sandbox auto found none)"


def _differences(theirs: BotProvenance, ours: BotProvenance) -> list[str]:
    bot = f"bot {theirs.name!r}"
    found = []
    if ours.hashes.executable != theirs.hashes.executable:
        found.append(f"{bot}: its executable {ours.executable} has sha256 "
                     f"{short_hash(ours.hashes.executable)} here, "
                     f"{short_hash(theirs.hashes.executable)} on the coordinator "
                     f"({theirs.executable})")
    if theirs.script is not None and ours.script is None:
        found.append(f"{bot}: its script is missing here (on the coordinator: "
                     f"{theirs.script})")
    elif ours.hashes.script != theirs.hashes.script:
        found.append(f"{bot}: its script {ours.script} has sha256 "
                     f"{short_hash(ours.hashes.script)} here, "
                     f"{short_hash(theirs.hashes.script)} on the coordinator "
                     f"({theirs.script})")
    return found


def check_answers(answers: Mapping[str, Sequence[str]]) -> None:
    """The workers' answers (address: problems): ConfigError with the first problem of
    the first worker that has one, and how many more there are."""
    troubled = sorted((address, problems) for address, problems in answers.items()
                      if problems)
    if not troubled:
        return
    address, problems = troubled[0]
    more = len(problems) - 1 + sum(len(others) for _, others in troubled[1:])
    also = f" (and {more} more problem{'s' * (more != 1)} on the cluster's workers)" \
        if more else ""
    raise ConfigError(f"Dask worker {address}: {problems[0]}{also}")


async def close_bots(dask_worker: Any, seconds: float) -> int:
    """In a worker (`client.run` hands it in as `dask_worker`): close the bots kept by each
    of its task threads, each of which must run the closing itself (the pools are
    thread-local). A barrier holds each closing until all have started, so they run on
    as many distinct threads; a thread still busy after `seconds` (a game cancelled by
    an interrupt, finishing) keeps its pool. Returns the threads that closed theirs."""
    threads = int(dask_worker.state.nthreads)
    barrier = threading.Barrier(threads, timeout=seconds)

    def close_this_threads_bots() -> None:
        close_worker_pool()
        barrier.wait()

    executor = dask_worker.executors["default"]
    closings = [asyncio.wrap_future(executor.submit(close_this_threads_bots))
                for _ in range(threads)]
    outcomes = await asyncio.gather(*closings, return_exceptions=True)
    return sum(not isinstance(outcome, BaseException) for outcome in outcomes)
