"""`referee arena run`: plan a round, play it, count it, and stop when asked to.

A run first finishes a round left planned by a run that was killed (its results db
resumes it), then plans each next round from the leaderboard as it stands. It stops
after the round in which it has played `games` games or more, or, under a settle rule,
after the first round at whose end the ladder's order (or its top K) is settled
(docs/arena.md); with neither, it plays until interrupted.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TextIO

from referee.errors import ConfigError
from tournaments.arena.leaderboard import Standing, Tally, standings, tally, unsettled
from tournaments.arena.matchmaking import plan_round
from tournaments.arena.rounds import play_round
from tournaments.arena.store import CHANGED, DB, PLANNED, ArenaDb, Round, round_db
from tournaments.arena.submissions import current_sha256
from referee import words
from tournaments.run.cluster import open_cluster
from tournaments.run.session import RunOptions
from tournaments.spec.settle_rule import SettleRule
from tournaments.store.records import GameRecord
from tournaments.store.run_lock import run_lock


@dataclass(frozen=True)
class StopRule:
    games: int | None = None  # this run stops once it has played this many or more
    settle: SettleRule | None = None


@dataclass(frozen=True)
class RunSummary:
    rounds: int
    games: int
    settled_after: int | None  # the round after which the ladder was settled
    ladder: list[Standing]
    open_pairs: list[tuple[str, str, float]]  # under a settle rule: those left at the end


def run_arena(db: ArenaDb, stop: StopRule, options: RunOptions, out: TextIO,
              clock: Callable[[], float] = time.monotonic) -> RunSummary:
    """Play rounds in the arena of `db` until `stop` says; a line a round to `out`."""
    with run_lock(db.folder / DB, elsewhere=""), _workers(options) as options:
        counted = tally(db.games())
        rounds = games = 0
        while True:
            _set_aside_changed(db, out)
            _abandon_unplayable(db, out)
            ladder = _ranked(db, counted)  # as submits and set-asides left it
            _check_playable(db, ladder, stop)
            started = clock()
            current = _next_round(db, counted, ladder, options.jobs)
            records = play_round(db, current, options)
            for record in sorted(records, key=lambda r: r.fixture_id):
                counted.add(current.number, record)
            rounds, games = rounds + 1, games + len(records)
            ladder = _ranked(db, counted)
            pairs = None if stop.settle is None else unsettled(
                counted.entries(s.version for s in ladder), stop.settle)
            out.write(_round_line(current, records, clock() - started, pairs) + "\n")
            out.flush()
            if pairs == []:
                return RunSummary(rounds, games, current.number, ladder, [])
            if stop.games is not None and games >= stop.games:
                return RunSummary(rounds, games, None, ladder, pairs or [])


@contextmanager
def _workers(options: RunOptions) -> Iterator[RunOptions]:
    """The options every round plays with: a cluster is opened once for the whole run
    (a local one takes seconds to start), and sizes the rounds by its threads."""
    if options.cluster is None:
        yield options
        return
    with open_cluster(options.cluster) as cluster:
        yield replace(options, cluster=None, open_cluster=cluster, jobs=cluster.threads)


def _set_aside_changed(db: ArenaDb, out: TextIO) -> None:
    """An active version whose files are no longer the ones submitted (a command's
    script edited in place, a frozen folder written to) plays no more: its games so far
    stay, and its contestant submits again."""
    for version in db.active():
        now = current_sha256(version)
        if now != version.sha256:
            found = "gone" if now is None else f"sha256 {now[:12]}"
            report = (f"its files changed after it was submitted (sha256 "
                      f"{version.sha256[:12]}, now {found}): seated no more")
            db.set_status(version, CHANGED, report)
            out.write(f"{version.label}: {report}; `referee arena submit` adds a new "
                      "version\n")


def _abandon_unplayable(db: ArenaDb, out: TextIO) -> None:
    """A round left planned by a killed run that seats a version set aside since (its
    files changed) cannot be played as planned, nor resumed: that version's process
    would not be the one submitted. It is abandoned, never counted, and a new round
    planned; its results db stays in rounds/ as it was."""
    changed = {version.label for version in db.versions() if version.status == CHANGED}
    for planned in (r for r in db.rounds() if r.status == PLANNED):
        gone = sorted({label for table in planned.tables for label in table} & changed)
        if gone:
            db.abandon_round(planned.number)
            out.write(f"round {planned.number}: abandoned, not counted: it seats "
                      f"{', '.join(gone)}, whose files changed; "
                      f"its games so far stay in {round_db(db.folder, planned.number)}\n")


def _ranked(db: ArenaDb, counted: Tally) -> list[Standing]:
    return [s for s in standings(db.versions(), counted) if s.rank is not None]


def _check_playable(db: ArenaDb, ladder: Sequence[Standing], stop: StopRule) -> None:
    size = db.settings.table_size
    if len(ladder) < size:
        raise ConfigError(f"{db.folder}: {words.counted(len(ladder), 'active version')}; "
                          f"tables of {size} need {size} "
                          "(`referee arena submit` adds one)")
    top = None if stop.settle is None else stop.settle.top
    if top is not None and top >= len(ladder):
        raise ConfigError(f"--top {top} needs more than "
                          f"{words.counted(top, 'active version')}; the arena has "
                          f"{len(ladder)}")


def _next_round(db: ArenaDb, counted: Tally, ladder: Sequence[Standing],
                min_tables: int) -> Round:
    """The round a killed run left planned, else a new one planned from the ladder."""
    planned = [r for r in db.rounds() if r.status == PLANNED]
    if planned:
        return planned[0]
    rng = random.Random(f"arena round {len(db.rounds()) + 1}")  # the same ladder, the same plan
    entries = counted.entries(s.version for s in ladder)
    return db.plan(plan_round(entries, db.settings.table_size, db.settings.placement, rng,
                              min_tables))


def _round_line(played: Round, records: Sequence[GameRecord], seconds: float,
                pairs: list[tuple[str, str, float]] | None) -> str:
    faults = sum(len(record.faults) for record in records)
    line = (f"round {played.number}: {words.counted(len(played.tables), 'table')}, "
            f"{words.counted(len(records), 'game')}, {words.counted(faults, 'fault')}, "
            f"{seconds:.1f} s")
    if pairs is None:
        return line
    if not pairs:
        return line + "; settled"
    return line + "; " + pairs_open(pairs)


def pairs_open(pairs: Sequence[tuple[str, str, float]]) -> str:
    """How far the ladder is from settled: its open pairs, and the least certain. The
    ladder ranks by mu - 3 sigma, the chance by mu: a version placed above may be the
    likelier weaker one (under 50%), so the words say what the percentage is."""
    high, low, p = pairs[0]
    return (f"{words.counted(len(pairs), 'pair')} open, least certain: "
            f"{high} above {low} (the chance {high} is the stronger: {p:.0%})")
