"""A whole tournament run as the CLI asks for it: schedule, store, play, tables."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from referee.processes.live_bots import quit_on_sigterm
from referee.processes.rlimits import die_with_parent
from referee.errors import ConfigError
from referee.processes.sandbox import SandboxSettings
from tournaments.spec.definition import TournamentSpec
from tournaments.run.fixture_play import PlayContext, play_context, play_fixture
from tournaments.run.progress import Progress, StandingsEvery, StderrProgress
from tournaments.store.backup import back_up
from tournaments.output.bot_report import all_faults, bot_games, fault_list
from tournaments.output.bots_table import bots_table
from tournaments.run.cluster import open_cluster
from tournaments.output.formats import OutputFormat
from tournaments.output.metadata import Metadata
from tournaments.output.render import Rendered, render, select
from tournaments.store.provenance import BotProvenance, bots_provenance
from tournaments.store.records import GameRecord
from tournaments.output.tables import Table, build_tables
from tournaments.run.runner import ExecutorFactory, run_tournament
from tournaments.schedule.play_order import play_order, window_deals
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import ResultStore, default_db_path


# A class of 30 bots at tables of 4 is 143,840 games a deal: a schedule that big is
# refused unless asked for, before anything is written.
DEFAULT_MAX_GAMES = 20_000


def default_jobs() -> int:
    """One worker per core."""
    return os.cpu_count() or 1


@dataclass(frozen=True)
class RunOptions:
    """How to run a tournament; none of it changes the results."""

    db_path: Path | None = None  # None: results/<game>-<fingerprint>.sqlite
    jobs: int = field(default_factory=default_jobs)
    fmt: OutputFormat = OutputFormat.TEXT
    table: str | None = None  # the one table to write; None: all (csv: the first)
    progress: bool = True
    transport: str = "ipc"
    busy_wait: float | None = None  # seconds a wait for a bot polls first (busy_wait.py)
    sandbox: SandboxSettings = SandboxSettings()
    persistent_bots: bool = False  # sandboxed bots play many games (they can remember)
    max_games: int = DEFAULT_MAX_GAMES  # a bigger schedule is refused before it starts
    executor_factory: ExecutorFactory | None = None  # None: pinned_process_pool
    standings_every: int | None = None  # with progress: the standings every N games
    restart: bool = False  # move an existing db and its logs to a backup, start over
    fail_on_fault: bool = False  # FaultsFound, with the tables, if any stored game faulted
    cluster: str | None = None  # a Dask cluster to play on (tournaments/run/cluster.py)
    # Workers that each keep their own bots (None: jobs), which size play order's windows.
    pools: int | None = None


class FaultsFound(Exception):
    """--fail-on-fault: the tournament ran, and `faults` faults are among its games."""

    def __init__(self, tables: str, faults: int) -> None:
        super().__init__(f"{faults} fault{'s' if faults != 1 else ''} in this tournament's "
                         "games (--fail-on-fault); `referee results DB --faults` lists them")
        self.tables = tables
        self.faults = faults


def run_session(spec: TournamentSpec, options: RunOptions,
                stream: TextIO | None = None) -> str:
    """Play every game of `spec` not yet stored, then return the rendered tables.

    Progress goes to `stream` (standard error by default). A db holding a different
    tournament, or a bot whose files changed since, is refused with a ConfigError;
    running again on the same db resumes; `options.restart` starts over. With
    `fail_on_fault`, a tournament with faults raises FaultsFound, which holds the tables.
    """
    if options.jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {options.jobs}")
    _check_size(spec, options.max_games)
    select(_tables(spec, [], options.fmt), options.table)  # a bad name before any game
    db_path = options.db_path or default_db_path(spec)
    context = play_context(spec, db_path, options.transport, busy_wait=options.busy_wait,
                           sandbox=options.sandbox, persistent_bots=options.persistent_bots)
    bots = bots_provenance(spec.bots, context.bots)  # every file read before any game
    context = replace(context, hashes=tuple(bot.hashes for bot in bots))
    err = stream if stream is not None else sys.stderr
    with _on_workers(options, context, bots) as options, \
            _open_new(db_path, spec, options.restart, err) as store:
        # The db's secret: a resumed run plays the deals the interrupted one began.
        fixtures = fixtures_for(spec, store.deal_secret)
        if store.claim_bots(bots):
            err.write(f"note: {db_path} was made before bots' files were recorded: they "
                      "are recorded as they are now, so its earlier games are unchecked\n")
        err.write(f"results: {db_path} (game logs in {context.logs.name}/)\n")
        left = len(fixtures) - len(store.done())
        err.write(f"{spec.game.name}: {len(fixtures):,} games scheduled, {left:,} to play\n")
        # More workers than games left would only start idle processes.
        jobs = max(1, min(options.jobs, left))
        progress = _progress(store, options, err)
        # Played in play order, its windows sized by the workers asked for (not by the
        # games left: a resumed run plays as the first did); ids, and so the stored
        # records, stay in fixture order.
        order = play_order(fixtures, window_deals(options.pools or options.jobs))
        run_tournament(spec, order, store, play_fixture, context, jobs,
                       options.executor_factory or pinned_process_pool, progress)
        records = store.records()
        tables = _render(store, records, options.fmt, options.table, err)
        faults = sum(len(record.faults) for record in records)
    if options.fail_on_fault and faults:
        raise FaultsFound(tables, faults)
    return tables


@contextmanager
def _on_workers(options: RunOptions, context: PlayContext,
                bots: Sequence[BotProvenance]) -> Iterator[RunOptions]:
    """`options` as they are, or, with a cluster, playing on its executors with all its
    threads, once its workers have checked they can play these bots' games."""
    if options.cluster is None:
        yield options
        return
    with open_cluster(options.cluster) as cluster:
        cluster.check(context, bots)
        if cluster.local and hasattr(os, "sched_setaffinity"):  # as a local pool's
            cluster.keep_to_cpus(cpu_shares(sorted(os.sched_getaffinity(0)),
                                            cluster.threads))
        batches = context.spec.fault_policy.disqualify_after is None
        yield replace(options, jobs=cluster.jobs(batches), executor_factory=cluster.executor,
                      pools=cluster.threads)


def _open_new(db_path: Path, spec: TournamentSpec, restart: bool,
              err: TextIO) -> ResultStore:
    """The store to play into, the old one backed up first with `restart`."""
    if restart:
        _restart(db_path, err)
    return _open(lambda: ResultStore(db_path, spec), db_path)


def _restart(db_path: Path, err: TextIO) -> None:
    folder = back_up(db_path)
    if folder is not None:
        err.write(f"restart: the old results are kept in {folder}/ (`referee results "
                  f"{folder / db_path.name}` shows them)\n")


def _check_size(spec: TournamentSpec, max_games: int) -> None:
    if spec.games > max_games:
        raise ConfigError(
            f"this tournament would play {spec.games:,} games, more than --max-games "
            f"{max_games:,}: to grade bots against a few, mark those --reference (each "
            "other bot then plays with them only); or give fewer bots or deals, a smaller "
            "table or team size, or a larger --max-games")


def results_tables(db_path: Path, fmt: OutputFormat, bot: str | None = None,
                   faults: bool = False, table: str | None = None,
                   stream: TextIO | None = None) -> str:
    """The tables of a results db made earlier (finished or not) and its bots; with
    `bot`, that bot's provenance and games instead, and with `faults`, every fault
    (ConfigError for an unknown bot or table). What belongs on standard error goes to
    `stream` (by default, there)."""
    err = stream if stream is not None else sys.stderr
    with _open(lambda: ResultStore.open_existing(db_path), db_path) as store:
        records, folder = store.records(), db_path.resolve().parent
        if bot is None and not faults:
            return _render(store, records, fmt, table, err)
        tables: list[Table] = []
        if bot is not None:
            games = bot_games(records, bot, store.spec.bot_names, folder)  # checks the name
            tables += [bots_table(store.spec, store.bots(), only=bot), games]
        if faults:
            tables.append(all_faults(records, folder))
        return _written(render(tables, metadata(store.spec, len(records)), fmt, table), err)


def _open(opener: Callable[[], ResultStore], path: Path) -> ResultStore:
    """The store, with a file system or SQLite failure as a one-line ConfigError."""
    try:
        return opener()
    except (OSError, sqlite3.Error) as error:
        raise ConfigError(f"cannot use {path} as a results db: {error}") from None


def _progress(store: ResultStore, options: RunOptions, err: TextIO) -> Progress | None:
    if not options.progress:
        return None
    shown = StderrProgress(store.spec.game.name, err)
    if options.standings_every is None:
        return shown
    return StandingsEvery(shown, options.standings_every, lambda: _standings(store))


def _standings(store: ResultStore) -> str:
    """The ranking table of the games stored so far, as text."""
    records = store.records()
    ranking = _tables(store.spec, records, OutputFormat.TEXT)[:1]
    return render(ranking, metadata(store.spec, len(records)), OutputFormat.TEXT).out


def _render(store: ResultStore, records: Sequence[GameRecord], fmt: OutputFormat,
            table: str | None, err: TextIO) -> str:
    """The tournament's tables of `records` (the store's) and where its bots came from:
    the same after a run and from `referee results`."""
    rendered = render(_tables(store.spec, records, fmt, store.bots()),
                      metadata(store.spec, len(records)), fmt, table)
    return _written(rendered, err)


def _tables(spec: TournamentSpec, records: Sequence[GameRecord], fmt: OutputFormat,
            bots: Mapping[str, BotProvenance] | None = None) -> list[Table]:
    """The tournament's tables, the ranking first, then the bots; a page to publish lists
    every fault, bot by bot, too."""
    tables = build_tables(spec.game, records, spec.bot_names, _reference_names(spec))
    tables.append(bots_table(spec, bots or {}))
    return tables + ([fault_list(records)] if fmt is OutputFormat.HTML else [])


def _written(rendered: Rendered, err: TextIO) -> str:
    """Standard output's part; the rest is written to `err` now."""
    err.write(rendered.err)
    return rendered.out


def _reference_names(spec: TournamentSpec) -> list[str]:
    return [spec.bot_names[index] for index in spec.references]


def metadata(spec: TournamentSpec, games_played: int) -> Metadata:
    """What the outputs say beside the tables: the settings, and how far the run got."""
    return Metadata(
        game=spec.game.name, game_title=spec.game.title, seed=spec.seed, deals=spec.deals,
        size_key=spec.size_key, size=spec.size,
        limits={**spec.time_limits.to_json(), "clock": spec.time_limits.clock.value},
        resources=dict(spec.resource_limits.to_json()), options=spec.options.to_json(),
        bots=spec.bot_names, references=tuple(_reference_names(spec)),
        games_played=games_played, games_scheduled=spec.games)


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
    and SIGTERMed it kills its bots and ends quietly (the pool's way to end it)."""
    die_with_parent(parent)
    quit_on_sigterm()


def _start_worker(parent: int, counter: Any, shares: list[frozenset[int]]) -> None:
    """A plain worker that keeps, with its bots, to its share of the CPUs."""
    _start_plain_worker(parent)
    # `counter` is a multiprocessing.Value: its typing is not public.
    with counter.get_lock():
        worker = counter.value
        counter.value += 1
    os.sched_setaffinity(0, shares[worker % len(shares)])
