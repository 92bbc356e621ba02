"""Playing a tournament's games on a Dask distributed cluster (`--cluster`; docs/cluster.md).

The coordinator (the `referee tournament` process) keeps the schedule and the results db
and commits each record as it arrives, as with a local pool: only `play_fixture` runs on
the workers, through the runner's executor seam. A worker that dies has its games run
again by Dask on another; a game Dask gives up on (KilledWorker, after a few deaths)
comes back to the runner as a game lost with its pool, which plays it again. Each game's
future gives one record, and the store refuses a second record of a game, so none is
counted twice.

A Dask task costs a few milliseconds of CPU, so a task plays a batch of up to
GAMES_PER_TASK games (cluster_worker.run_calls) and its records are committed as its
batch arrives; a batch lost with its worker is played again whole, its games unstored.

`distributed` is an optional extra (`pip install 'referee[cluster]'`): it is imported
only when a cluster is asked for.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future, wait as wait_for
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, ParamSpec, TypeVar

from referee import __version__, bounds
from referee.errors import ConfigError
from referee.players.lineup import sandbox_view
from tournaments.run.cluster_worker import (
    CallResult, check_answers, close_bots, keep_to_cpus, run_calls, worker_problems,
)
from tournaments.run.cluster_probe import probe_scheduler
from tournaments.run.fixture_play import PlayContext
from tournaments.store.provenance import BotProvenance

LOCAL = "local:"
SCHEMES = ("tcp://", "tls://")
CONNECT_SECONDS = 10  # to reach a scheduler, and for its first worker to show up
CLOSE_SECONDS = 10  # for every worker thread to close its bots at the end
# Games a Dask task plays in turn: a task's own CPU (the scheduler's and the client's) is
# shared by that many games, and a worker that finishes early waits for at most that
# many games of another's at the end (docs/cluster.md, "Cost", measures both sides).
GAMES_PER_TASK = 8
# Dask's timers that a local cluster of ours needs slower or not at all: the event loop's
# tick, the system monitor and the workers' stack sampling serve a dashboard and a
# profile that a local cluster has none of, and they take CPU from the games on the
# same cores (docs/cluster.md, "Cost"). Heartbeats and work stealing stay as they are.
QUIET_DASK = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.profile.enabled": False,
}
# What the fork server of a local cluster imports once for all its workers: Dask's own
# list, and what a game needs (the rest of Dask's list: tornado, msgpack, ...: imported
# with distributed).
FORK_SERVER_IMPORTS = ["distributed", "tournaments.run.cluster_worker",
                       "tournaments.run.fixture_play",
                       "referee.registry.games"]
P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class ClusterAddress:
    """Where to play: an existing scheduler's address, or a local cluster's size."""

    scheduler: str | None = None
    local_workers: int | None = None


def parse_cluster(text: str) -> ClusterAddress:
    """`tcp://HOST:PORT` (or tls://) or `local:N`; ConfigError for anything else."""
    if text.startswith(SCHEMES) and len(text) > len("tcp://"):
        return ClusterAddress(scheduler=text)
    if text.startswith(LOCAL):
        count = text.removeprefix(LOCAL)
        if count.isdigit() and bounds.JOBS.least <= int(count) <= bounds.JOBS.most:
            return ClusterAddress(local_workers=int(count))
        raise ConfigError(f"--cluster {text}: local:N wants N to be "
                          f"{bounds.JOBS.describe()}")
    raise ConfigError(f"--cluster {text}: give a Dask scheduler's address, "
                      "tcp://HOST:PORT, or local:N for N local worker processes")


class Cluster:
    """A Dask client: its workers' thread count, and executors that play on them."""

    def __init__(self, client: Any, local: bool = False) -> None:
        self.client = client
        self.local = local  # started for this run, on this machine

    @property
    def threads(self) -> int:
        """Games played at once: every worker thread of the cluster."""
        return sum(self.client.nthreads().values())

    def check(self, context: PlayContext, bots: Sequence[BotProvenance]) -> None:
        """Each worker checks the referee's version, the bots' files against `bots`
        (the coordinator's), that its bots are sandboxed as the coordinator's would be,
        and the logs folder: ConfigError naming the first worker and bot that differ."""
        sandboxed = sandbox_view(context.launch_settings()) is not None
        answers = self.client.run(worker_problems, context, tuple(bots), __version__,
                                  sandboxed, on_error="return")
        check_answers({address: _problems(answer) for address, answer in answers.items()})

    def keep_to_cpus(self, shares: Sequence[frozenset[int]]) -> None:
        """Worker N of a local cluster keeps to CPUs shares[N] (see cluster_worker)."""
        self.client.run(keep_to_cpus, tuple(shares))

    def close_bots(self) -> None:
        """Have every worker thread close the bots it keeps for its next game: the
        workers outlive the tournament. A cluster gone meanwhile has none left."""
        try:
            self.client.run(close_bots, seconds=CLOSE_SECONDS, on_error="ignore")
        except (OSError, TimeoutError):
            pass

    def jobs(self, batches: bool) -> int:
        """Games to keep in flight: GAMES_PER_TASK per thread with `batches`, else one
        (--disqualify-after: no game runs ahead of the faults counted so far)."""
        return self.threads * (GAMES_PER_TASK if batches else 1)

    def executor(self, jobs: int) -> Executor:
        """The runner's executor factory: `jobs` games in flight (the runner keeps twice
        as many submitted), played in batches on the cluster's threads."""
        threads = self.threads
        # pure=False: a game played again is a new task, never the lost one's result.
        return GameExecutor(self.client.get_executor(pure=False), threads,
                            max(1, jobs // threads))


def _problems(answer: list[str] | BaseException) -> list[str]:
    """A worker's answer, or the error its check ended with: another referee there?"""
    if isinstance(answer, BaseException):
        return [f"the check could not run there ({type(answer).__name__}: {answer}): is "
                f"referee {__version__} installed there?"]
    return answer


@dataclass(frozen=True)
class _Game:
    """A submitted call, and the future the runner holds for it."""

    outer: Future[Any]
    function: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class GameExecutor(Executor):
    """Dask's concurrent.futures executor (`inner`), as the runner expects it, playing
    games in batches of up to `batch` (cluster_worker.run_calls).

    Each of the `threads` worker threads is kept busy with a task, and has at most one
    more queued (a full batch, so a queued task is never a lone game while games are
    plenty). Each game's future settles with its own record or error. A batch whose
    worker Dask gave up on, or that the cluster dropped, fails each of its games as
    BrokenExecutor (the runner plays them again); shutdown takes cancel_futures."""

    def __init__(self, inner: Executor, threads: int, batch: int) -> None:
        self._inner = inner
        self._threads = threads
        self._batch = batch
        self._lock = threading.Lock()
        self._waiting: deque[_Game] = deque()  # submitted, not yet sent to a worker
        self._tasks = 0  # batches sent and not settled
        self._unsettled: set[Future[Any]] = set()
        self._closed = False

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        outer: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit a game after shutdown")
            self._waiting.append(_Game(outer, fn, args, kwargs))
            self._unsettled.add(outer)
        self._send()
        return outer

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            unsent = list(self._waiting) if cancel_futures or not wait else []
            for game in unsent:
                self._waiting.remove(game)
                self._settled(game.outer).cancel()
            left = list(self._unsettled)
        if wait and not cancel_futures:
            wait_for(left)
        # Dask's shutdown(wait=False) cancels every batch not done.
        self._inner.shutdown(wait=wait and not cancel_futures)

    def _send(self) -> None:
        """Send batches while a thread would otherwise idle, or a full batch can queue."""
        while True:
            with self._lock:
                batch = self._next_batch()
                if not batch:
                    return
                self._tasks += 1
            calls = [(game.args, game.kwargs) for game in batch]
            try:
                task = self._inner.submit(run_calls, batch[0].function, calls)
            except Exception as error:  # e.g. the client closed: each game's error
                self._settle(batch, None, error)
                continue
            task.add_done_callback(partial(self._settle, batch))

    def _next_batch(self) -> list[_Game]:
        """The next batch to send, or none (called with the lock held)."""
        waiting = self._waiting
        idle = self._tasks < self._threads
        if not waiting or not (idle or (self._tasks < 2 * self._threads
                                        and len(waiting) >= self._batch)):
            return []
        batch = [waiting.popleft()]
        while waiting and len(batch) < self._batch and \
                waiting[0].function is batch[0].function:
            batch.append(waiting.popleft())
        return batch

    def _settle(self, batch: list[_Game], task: Future[list[CallResult]] | None,
                error: BaseException | None = None) -> None:
        """A batch is done: settle each game's future, then send more."""
        with self._lock:
            self._tasks -= 1
            closed = self._closed
            outers = [self._settled(game.outer) for game in batch]
        if task is not None:
            error = _lost(task, closed)
        for outer, outcome in zip(outers, _outcomes(task, error, len(batch))):
            if outcome is None:
                outer.cancel()
            elif outcome[0]:
                outer.set_result(outcome[1])
            else:
                outer.set_exception(outcome[1])
        self._send()

    def _settled(self, outer: Future[Any]) -> Future[Any]:
        self._unsettled.discard(outer)
        return outer


def _lost(task: Future[list[CallResult]], closed: bool) -> BaseException | None:
    """Why a batch gave no outcomes: None if it did, or was cancelled by shutdown."""
    from distributed.scheduler import KilledWorker
    if task.cancelled():  # by shutdown, or else the scheduler dropped it
        return None if closed else BrokenExecutor("the Dask cluster dropped the games")
    error = task.exception()
    if isinstance(error, KilledWorker):
        return BrokenExecutor("Dask gave up on the games: their workers died")
    return error


def _outcomes(task: Future[list[CallResult]] | None, error: BaseException | None,
              games: int) -> Sequence[CallResult | None]:
    """Each game's outcome; None: cancelled."""
    if error is not None:
        return [(False, error)] * games
    if task is None or task.cancelled():
        return [None] * games
    return task.result()



@contextmanager
def open_cluster(text: str) -> Iterator[Cluster]:
    """A client of the cluster `text` names (parse_cluster), with at least one worker;
    a local cluster is started, and stopped on leaving. ConfigError when `distributed`
    is missing or the scheduler cannot be reached."""
    where = parse_cluster(text)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("--cluster needs Dask's distributed package: pip install "
                          "'referee[cluster]'") from None
    if where.local_workers is not None:
        # One thread a worker, as a local pool; no memory limit: the bots' are ours. No
        # dashboard, and the scheduler's HTTP server (health checks) on a free port of
        # this machine's own: at Dask's 8787, a second run warned that it was taken.
        # Dask's own logs only if critical: a worker's heartbeat racing the scheduler's
        # close logged a traceback at ERROR now and then after a run that went well;
        # what fails, the coordinator says in one line.
        with _quiet_dask(), _forked_workers(), LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=where.local_workers, threads_per_worker=1, processes=True,
                memory_limit=0, dashboard_address=None, silence_logs=logging.CRITICAL,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}
        ) as local, Client(local) as client:  # type: ignore[no-untyped-call]
            yield Cluster(client, local=True)  # its workers, and their bots, end with it
        return
    with _connected(Client, text) as client:
        cluster = Cluster(client)
        try:
            yield cluster
        finally:
            cluster.close_bots()


@contextmanager
def _quiet_dask() -> Iterator[None]:
    """QUIET_DASK for the servers made meanwhile: the scheduler, and each nanny, which
    hands its settings to the worker it starts (and to one restarted after a death)."""
    import dask
    with dask.config.set(QUIET_DASK):
        yield


@contextmanager
def _forked_workers() -> Iterator[None]:
    """Local workers (and those restarted after a death) forked from one fork server that
    has imported Dask and the games once, instead of each starting a new interpreter
    that imports them all again (Dask's default, spawn): a second or so of CPU a worker,
    on the cores the games need."""
    import dask
    from distributed.utils import get_mp_context
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        context = get_mp_context()  # type: ignore[no-untyped-call]  # sets Dask's list
        context.set_forkserver_preload(FORK_SERVER_IMPORTS)  # then ours
        yield


@contextmanager
def _connected(client_class: Any, address: str) -> Iterator[Any]:
    """A client of the scheduler at `address`, once a probe found one there (a port of
    another protocol made Dask's client hang or fail with a traceback: cluster_probe)."""
    probe_scheduler(address)
    try:
        client = client_class(address, timeout=CONNECT_SECONDS)
    except Exception as error:  # whatever a peer that greets as Dask then does
        raise ConfigError(f"--cluster {address}: cannot reach the Dask scheduler: "
                          f"{type(error).__name__}: {error}"[:300]) from None
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except TimeoutError:
            raise ConfigError(f"--cluster {address}: the Dask scheduler has no workers "
                              f"(none joined in {CONNECT_SECONDS} s)") from None
        yield client
