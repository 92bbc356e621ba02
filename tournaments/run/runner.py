"""Running a tournament's fixtures on an executor, storing each game as it finishes."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import (
    FIRST_COMPLETED, BrokenExecutor, Executor, Future, ProcessPoolExecutor, wait,
)
from typing import TypeVar

from referee.errors import ConfigError
from referee.processes.live_bots import REGISTRY
from tournaments.run.disqualify import Disqualification
from tournaments.spec.definition import TournamentSpec
from tournaments.run.held_stops import stops_held
from tournaments.run.pinned_pool import end_running_games
from tournaments.run.progress import Progress
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture
from tournaments.store.results_db import ResultStore
from tournaments.stats.settle import SettleWatch

C = TypeVar("C")
# Called in a worker: plays one fixture. Must be a picklable module-level function.
PlayFunction = Callable[[Fixture, C], GameRecord]
# Makes the executor from the job count; the seam for cluster executors (for dask:
# `lambda jobs: client.get_executor()`, a concurrent.futures-compatible executor).
ExecutorFactory = Callable[[int], Executor]
# A worker that dies (OOM killer, a stray kill) breaks its whole pool; its games are
# played again in a new one. More deaths than this in one run mean something kills
# workers on purpose or always: stop rather than loop.
MAX_POOL_RESTARTS = 3


class PlayFailed(RuntimeError):
    """The play function raised or returned a wrong record: a referee bug, not a bot fault."""

    def __init__(self, fixture: Fixture, problem: str) -> None:
        super().__init__(f"referee bug while playing fixture {fixture.fixture_id}: {problem}")
        self.fixture = fixture


class Interrupted(Exception):
    """Ctrl-C (or SIGTERM) stopped the run: every finished game is stored."""

    def __init__(self, played: int, scheduled: int, signal_name: str = "SIGINT") -> None:
        super().__init__(f"interrupted after {played} of {scheduled} games; run the same "
                         "command again to resume")
        self.played, self.scheduled = played, scheduled
        self.signal_name = signal_name


class WorkersKeepDying(RuntimeError):
    """The worker processes died more often than MAX_POOL_RESTARTS in one run."""

    def __init__(self, breaks: int, in_flight: Sequence[Fixture]) -> None:
        games = ", ".join(fixture.fixture_id for fixture in in_flight)
        super().__init__(f"a worker process keeps dying: the pool broke {breaks} times "
                         f"(games in flight the last time: {games}); every finished game "
                         "is stored, and running the same command again resumes")
        self.breaks = breaks
        self.in_flight = tuple(in_flight)  # the games lost when the pool last broke


def run_tournament(spec: TournamentSpec, fixtures: Sequence[Fixture], store: ResultStore,
                   play: PlayFunction[C], context: C, jobs: int,
                   executor_factory: ExecutorFactory | None = None,
                   progress: Progress | None = None) -> None:
    """Play every fixture not yet in the store, in the order given (a session gives play
    order, tournaments/schedule/play_order.py), storing each record as soon as it is done.

    Resumable: stored fixtures are skipped, and each record is committed on its own, so an
    interruption (Ctrl-C, SIGKILL) loses at most the games in flight. On a play error the
    games already running are still stored, then PlayFailed is raised. A worker that dies
    breaks its pool: the games it lost are played again in a new pool, up to
    MAX_POOL_RESTARTS times per run, then WorkersKeepDying is raised. Under the spec's
    disqualify_after, a bot with that many faulted games is seated as disqualified in
    every game submitted afterwards (tournaments/run/disqualify.py).
    """
    if store.fingerprint != spec.fingerprint():
        raise ConfigError(f"{store.path} holds a different tournament than the one to run")
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs}")
    done = store.done()
    pending = [fixture for fixture in fixtures if fixture.fixture_id not in done]
    stored = store.records() if done else []
    if progress is not None:
        faults = sum(len(record.faults) for record in stored)
        progress.start(len(fixtures), len(fixtures) - len(pending), faults)
    disqualification = Disqualification(spec.fault_policy.disqualify_after, spec.bot_names, stored)
    watch = _settle_watch(spec, fixtures, stored)
    if watch is not None and watch.settled_at is not None:
        pending = []  # settled before it stopped: nothing more is counted
    try:
        if pending:
            _run(pending, store, play, context, jobs, executor_factory, progress,
                 disqualification, watch)
    except KeyboardInterrupt as stop:  # SIGTERM arrives as one too (referee.cli.main)
        raise Interrupted(len(store.done()), len(fixtures), str(stop) or "SIGINT") from None
    finally:
        if progress is not None:
            progress.finish()


def _settle_watch(spec: TournamentSpec, fixtures: Sequence[Fixture],
                  stored: Sequence[GameRecord]) -> SettleWatch | None:
    """Under the spec's settle rule, the watch over its games, fed the stored ones."""
    if spec.settle is None:
        return None
    watch = SettleWatch(spec.settle, {f.fixture_id: f.deal for f in fixtures},
                        [spec.bot_names[index] for index in spec.candidates])
    for record in stored:
        watch.add(record)
    return watch


def _run(pending: list[Fixture], store: ResultStore, play: PlayFunction[C], context: C,
         jobs: int, executor_factory: ExecutorFactory | None,
         progress: Progress | None, disqualification: Disqualification,
         watch: SettleWatch | None = None) -> None:
    queue = deque(pending)
    rank = {fixture.fixture_id: number for number, fixture in enumerate(pending)}
    breaks = 0
    # A game submitted ahead of a free worker keeps it busy, but is seated before the
    # games in flight are counted: under disqualification no game runs ahead, so with one
    # job a bot plays exactly its allowed faulted games.
    window = jobs if disqualification.after is not None else 2 * jobs
    while queue:
        executor = (executor_factory or _process_pool)(jobs)
        try:
            lost = _drain(executor, queue, store, play, context, window, progress,
                          disqualification, watch)
        except BaseException:  # KeyboardInterrupt too: drop queued games, keep the store as is
            # Waiting joins the pool's manager thread now. Left to the interpreter's exit, it
            # races the pool's atexit hook, which may write to a pipe the thread has just
            # closed: "OSError: Bad file descriptor" and a traceback (CPython 3.11). The
            # games in flight are ended first: their results would be dropped anyway.
            end_running_games(executor)
            executor.shutdown(wait=True, cancel_futures=True)
            raise
        executor.shutdown(wait=True)
        if lost and watch is not None and watch.settled_at is not None:
            return  # settled: the games a broken pool lost are not counted anyway
        if lost:
            breaks += 1
            lost.sort(key=lambda fixture: rank[fixture.fixture_id])
            if breaks > MAX_POOL_RESTARTS:
                raise WorkersKeepDying(breaks, lost)
            queue.extendleft(reversed(lost))  # replayed first, in the order given


def _drain(executor: Executor, queue: deque[Fixture], store: ResultStore,
           play: PlayFunction[C], context: C, window: int,
           progress: Progress | None, disqualification: Disqualification,
           watch: SettleWatch | None = None) -> list[Fixture]:
    """Play from `queue` until it is empty or the pool breaks; return the games the broken
    pool lost (the queue keeps the games not yet started)."""
    # At most `window` games are submitted at a time, so stopping cancels little.
    running: dict[Future[GameRecord], Fixture] = {}
    failure: PlayFailed | None = None
    lost: list[Fixture] = []
    while True:
        while failure is None and not lost and len(running) < window and queue:
            fixture = disqualification.seat(queue.popleft())
            try:
                with stops_held():  # the first submit forks the pool's workers
                    future = executor.submit(play, fixture, context)
                running[future] = fixture
            except BrokenExecutor:
                lost.append(fixture)
        if not running:
            break
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        REGISTRY.reap_orphans()  # as PID 1 (a container) it gets its workers' orphans
        for future in finished:
            fixture = running.pop(future)
            try:
                record = _record_of(future, fixture)
            except BrokenExecutor:
                lost.append(fixture)
                continue
            except PlayFailed as error:
                failure = failure or error
                continue
            if store.add(record):
                disqualification.count(record)
                if progress is not None:
                    progress.advance(record)
                if watch is not None and watch.add(record) is not None:
                    queue.clear()  # settled: the games in flight finish, none starts
    if failure is not None:
        raise failure
    return lost


def _record_of(future: Future[GameRecord], fixture: Fixture) -> GameRecord:
    try:
        record = future.result()
    except BrokenExecutor:
        raise  # the worker died, not the game: the caller plays it again in a new pool
    except Exception as error:
        raise PlayFailed(fixture, f"{type(error).__name__}: {error}") from error
    if not isinstance(record, GameRecord) or record.fixture_id != fixture.fixture_id:
        raise PlayFailed(fixture, f"the play function returned {record!r:.200}")
    return record


def _process_pool(jobs: int) -> Executor:
    return ProcessPoolExecutor(max_workers=jobs)
