"""A whole tournament run as the CLI asks for it: schedule, store, play, then the tables
(tournaments/output/results.py)."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from referee.words import counted
from referee.errors import ConfigError
from referee.players.remote_seats import RemoteSettings
from referee.processes.sandbox import SandboxSettings
from referee.reproduce import command_hint
from tournaments.output.formats import OutputFormat
from tournaments.output.render import select
from tournaments.output.results import opened, rendered_results, result_tables, standings
from tournaments.run.cluster import Cluster, open_cluster
from tournaments.run.fixture_play import PlayContext, play_context, play_fixture
from tournaments.run.pinned_pool import cpu_shares, pinned_process_pool
from tournaments.run.progress import Progress, StandingsEvery, StderrProgress
from tournaments.run.runner import ExecutorFactory, run_tournament
from tournaments.schedule.fixtures import fixtures_for
from tournaments.schedule.play_order import play_order, window_deals
from tournaments.spec.definition import TournamentSpec
from tournaments.store.backup import back_up
from tournaments.store.provenance import BotProvenance, bots_provenance
from tournaments.store.results_db import (
    Claim, LeftOut, ResultStore, check_results_db, default_db_path,
)
from tournaments.store.run_lock import run_lock


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
    open_cluster: Cluster | None = None  # one already open, kept open after the run
    remote: RemoteSettings | None = None  # remote seats' --listen: one worker, no cluster
    # Workers that each keep their own bots (None: jobs), which size play order's windows.
    pools: int | None = None


class FaultsFound(Exception):
    """--fail-on-fault: the tournament ran, and `faults` faults are among its games."""

    def __init__(self, tables: str, faults: int, db_path: Path,
                 first: tuple[str, int] | None = None) -> None:
        again = "" if first is None else \
            f"; the first: {command_hint(first[1], db_path, first[0])}"
        super().__init__(f"{counted(faults, 'fault')} in this tournament's "
                         f"games (--fail-on-fault); `referee results "
                         f"{shlex.quote(str(db_path))} --faults` lists them{again}")
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
    select(result_tables(spec, [], options.fmt), options.table)  # a bad name before any game
    err = stream if stream is not None else sys.stderr
    with played_session(spec, options, err) as (store, db_path):
        records = store.records()
        tables = rendered_results(store, records, options.fmt, options.table, err)
        faults = sum(len(record.faults) for record in records)
    if options.fail_on_fault and faults:
        first = next(((r.fixture_id, f.seat) for r in records for f in r.faults), None)
        raise FaultsFound(tables, faults, db_path, first)
    return tables


@contextmanager
def played_session(spec: TournamentSpec, options: RunOptions,
                   err: TextIO) -> Iterator[tuple[ResultStore, Path]]:
    """Play every game of `spec` not yet stored (as run_session does), then yield the
    store, still locked, and its path: for the tables, or for an arena's round."""
    if options.jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {options.jobs}")
    _check_size(spec, options.max_games)
    db_path = options.db_path or default_db_path(spec)
    if options.remote is not None and (options.cluster is not None or options.jobs > 1):
        raise ConfigError("remote seats are served by one worker, which listens on "
                          "--listen: give --jobs 1, and no --cluster")
    context = play_context(spec, db_path, options.transport, busy_wait=options.busy_wait,
                           sandbox=options.sandbox, persistent_bots=options.persistent_bots,
                           remote=options.remote)
    bots = bots_provenance(spec.bots, context.bots)  # every file read before any game
    context = replace(context, hashes=tuple(bot.hashes for bot in bots))
    if db_path.exists():  # a file given as --db by mistake is refused before a lock
        check_results_db(db_path)  # file is made beside it
    with run_lock(db_path), _on_workers(options, context, bots) as options, \
            _open_new(db_path, spec, options.restart, err) as store:
        # The db's secret: a resumed run plays the deals the interrupted one began.
        fixtures = fixtures_for(spec, store.deal_secret)
        claim = store.claim_bots(bots)
        if claim.unchecked:
            err.write(f"note: {db_path} was made before bots' files were recorded: they "
                      "are recorded as they are now, so its earlier games are unchecked\n")
        err.write("".join(f"{line}\n" for line in class_changes(claim, store.left_out())))
        context = replace(context, versions=tuple(claim.versions[name]
                                                  for name in spec.bot_names))
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
        yield store, db_path


def class_changes(claim: Claim, left_out: Sequence[LeftOut]) -> list[str]:
    """What a gauntlet's run says of its class as the db had it: candidates new, their
    files changed, or gone."""
    lines = [f"class: {name} is new: its games are played" for name in claim.added]
    lines += [f"class: {name}'s files or command changed: version {old + 1} plays its games "
              f"again; {_staying(moved, old)}" for name, old, moved in claim.replaced]
    lines += [f"class: {gone.bot} is no longer in the class: {_staying(gone.games)}"
              for gone in left_out if gone.removed]
    return lines


def _staying(games: int, version: int | None = None) -> str:
    """Games the db keeps and no longer counts: "its 1 game of version 2 stays in
    the db, not counted"."""
    which = "" if version is None else f" of version {version}"
    verb = "stays" if games == 1 else "stay"
    return f"its {counted(games, 'game')}{which} {verb} in the db, not counted"


@contextmanager
def _on_workers(options: RunOptions, context: PlayContext,
                bots: Sequence[BotProvenance]) -> Iterator[RunOptions]:
    """`options` as they are, or, with a cluster, playing on its executors with all its
    threads, once its workers have checked they can play these bots' games. A cluster
    already open (an arena's, for all its rounds) stays open after."""
    if options.open_cluster is not None:
        yield _playing_on(options.open_cluster, options, context, bots)
    elif options.cluster is not None:
        with open_cluster(options.cluster) as cluster:
            yield _playing_on(cluster, options, context, bots)
    else:
        yield options


def _playing_on(cluster: Cluster, options: RunOptions, context: PlayContext,
                bots: Sequence[BotProvenance]) -> RunOptions:
    cluster.check(context, bots)
    if cluster.local and hasattr(os, "sched_setaffinity"):  # as a local pool's
        cluster.keep_to_cpus(cpu_shares(sorted(os.sched_getaffinity(0)), cluster.threads))
    batches = context.spec.fault_policy.disqualify_after is None
    return replace(options, jobs=cluster.jobs(batches), executor_factory=cluster.executor,
                   pools=cluster.threads)


def _open_new(db_path: Path, spec: TournamentSpec, restart: bool,
              err: TextIO) -> ResultStore:
    """The store to play into, the old one backed up first with `restart`."""
    if restart:
        _restart(db_path, err)
    return opened(lambda: ResultStore(db_path, spec), db_path)


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


def _progress(store: ResultStore, options: RunOptions, err: TextIO) -> Progress | None:
    if not options.progress:
        return None
    shown = StderrProgress(store.spec.game.name, err)
    if options.standings_every is None:
        return shown
    return StandingsEvery(shown, options.standings_every, lambda: standings(store))
