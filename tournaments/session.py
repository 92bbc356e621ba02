"""A whole tournament run as the CLI asks for it: schedule, store, play, tables."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from referee.errors import ConfigError
from tournaments.config import TournamentSpec
from tournaments.play import play_context, play_fixture
from tournaments.progress import StderrProgress
from tournaments.report import OutputFormat, build_tables, render
from tournaments.runner import ExecutorFactory, run_tournament
from tournaments.schedule import fixtures_for
from tournaments.store import ResultStore, default_db_path


def default_jobs() -> int:
    """One worker per core."""
    return os.cpu_count() or 1


@dataclass(frozen=True)
class RunOptions:
    """How to run a tournament; none of it changes the results."""

    db_path: Path | None = None  # None: results/<game>-<fingerprint>.sqlite
    jobs: int = field(default_factory=default_jobs)
    fmt: OutputFormat = OutputFormat.TEXT
    progress: bool = True
    transport: str = "ipc"
    executor_factory: ExecutorFactory | None = None  # None: a local process pool


def run_session(spec: TournamentSpec, options: RunOptions,
                stream: TextIO | None = None) -> str:
    """Play every game of `spec` not yet stored, then return the rendered tables.

    Progress goes to `stream` (standard error by default). A db holding a different
    tournament is refused with a ConfigError; running again on the same db resumes.
    """
    if options.jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {options.jobs}")
    db_path = options.db_path or default_db_path(spec)
    context = play_context(spec, db_path, options.transport)
    fixtures = fixtures_for(spec)
    err = stream if stream is not None else sys.stderr
    with ResultStore(db_path, spec) as store:
        err.write(f"results: {db_path} (game logs in {context.logs.name}/)\n")
        left = len(fixtures) - len(store.done())
        # More workers than games left would only start idle processes.
        jobs = max(1, min(options.jobs, left))
        progress = StderrProgress(spec.game.value, err) if options.progress else None
        run_tournament(spec, fixtures, store, play_fixture, context, jobs,
                       options.executor_factory, progress)
        return _render(store, options.fmt)


def results_tables(db_path: Path, fmt: OutputFormat) -> str:
    """The tables of a results db made earlier (finished or not)."""
    with ResultStore.open_existing(db_path) as store:
        return _render(store, fmt)


def _render(store: ResultStore, fmt: OutputFormat) -> str:
    tables = build_tables(store.spec.game, store.records(), store.spec.bot_names)
    return render(tables, fmt)
