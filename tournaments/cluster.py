"""Playing a tournament's games on a Dask distributed cluster (`--cluster`; docs/cluster.md).

The coordinator (the `referee tournament` process) keeps the schedule and the results db
and commits each record as it arrives, as with a local pool: only `play_fixture` runs on
the workers, through the runner's executor seam. A worker that dies has its games run
again by Dask on another; a game Dask gives up on (KilledWorker, after a few deaths)
comes back to the runner as a game lost with its pool, which plays it again. Each game's
future gives one record, and the store refuses a second record of a game, so none is
counted twice.

`distributed` is an optional extra (`pip install 'referee[cluster]'`): it is imported
only when a cluster is asked for.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from referee import __version__, bounds
from referee.errors import ConfigError
from referee.players.lineup import sandbox_view
from tournaments.cluster_worker import (
    check_answers, close_bots, keep_to_cpus, worker_problems,
)
from tournaments.play import PlayContext
from tournaments.provenance import BotProvenance

LOCAL = "local:"
SCHEMES = ("tcp://", "tls://")
CONNECT_SECONDS = 10  # to reach a scheduler, and for its first worker to show up
CLOSE_SECONDS = 10  # for every worker thread to close its bots at the end
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

    def executor(self, jobs: int) -> Executor:
        """The runner's executor factory (`jobs` is the cluster's: it has its threads)."""
        # pure=False: a game played again is a new task, never the lost one's result.
        return GameExecutor(self.client.get_executor(pure=False))


def _problems(answer: list[str] | BaseException) -> list[str]:
    """A worker's answer, or the error its check ended with: another referee there?"""
    if isinstance(answer, BaseException):
        return [f"the check could not run there ({type(answer).__name__}: {answer}): is "
                f"referee {__version__} installed there?"]
    return answer


class GameExecutor(Executor):
    """Dask's concurrent.futures executor, as the runner expects it: a game whose worker
    Dask gave up on, or that the cluster dropped, fails as BrokenExecutor (the runner
    plays it again), and shutdown takes cancel_futures."""

    def __init__(self, inner: Executor) -> None:
        self._inner = inner

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        outer: Future[T] = Future()
        self._inner.submit(fn, *args, **kwargs).add_done_callback(
            lambda inner: _settle(inner, outer))
        return outer

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        # Dask's shutdown(wait=False) cancels every game not done.
        self._inner.shutdown(wait=wait and not cancel_futures)


def _settle(inner: Future[T], outer: Future[T]) -> None:
    from distributed.scheduler import KilledWorker
    if inner.cancelled():  # not by the runner: the scheduler dropped it
        outer.set_exception(BrokenExecutor("the Dask cluster dropped the game"))
        return
    error = inner.exception()
    if isinstance(error, KilledWorker):
        outer.set_exception(BrokenExecutor("Dask gave up on the game: its workers died"))
    elif error is not None:
        outer.set_exception(error)
    else:
        outer.set_result(inner.result())


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
        # One thread a worker, as a local pool; no memory limit: the bots' are ours.
        with LocalCluster(  # type: ignore[no-untyped-call]  # distributed's own typing
                n_workers=where.local_workers, threads_per_worker=1, processes=True,
                memory_limit=0, dashboard_address=None, silence_logs=logging.ERROR
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
def _connected(client_class: Any, address: str) -> Iterator[Any]:
    try:
        client = client_class(address, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError) as error:
        raise ConfigError(f"--cluster {address}: cannot reach the Dask scheduler: "
                          f"{error}") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except TimeoutError:
            raise ConfigError(f"--cluster {address}: the Dask scheduler has no workers "
                              f"(none joined in {CONNECT_SECONDS} s)") from None
        yield client
