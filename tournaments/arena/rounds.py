"""Playing one round of an arena: its tables as a tournament of chosen tables.

A round is a tournament whose tables are the ones matchmaking chose (TournamentSpec.
tables), one deal for all of them, each table in every seat rotation, with its own
results db in rounds/. So everything a tournament does, a round does: the sandbox and
limits, --jobs and --cluster, a fresh process for every game (no process plays two
rotations of a deal), resume after a kill, logs, and `referee results`, `show`, `view`
and `reproduce` on its db.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import replace

from tournaments.arena.store import ArenaDb, Round, Version, round_db, round_title
from tournaments.run.session import RunOptions, played_session
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.store.records import GameRecord


def round_spec(db: ArenaDb, played: Round, versions: Mapping[str, Version]) -> TournamentSpec:
    """The tournament a round plays: its versions as bots, its tables, one deal."""
    labels = sorted({label for table in played.tables for label in table})
    index = {label: number for number, label in enumerate(labels)}
    bots = tuple(BotEntry(label, versions[label].command, dir=versions[label].folder)
                 for label in labels)
    settings = db.settings
    return TournamentSpec.create(
        settings.game, bots, deals=1, seed=played.number, size=settings.table_size,
        time_limits=settings.time_limits, resource_limits=settings.resource_limits,
        options=dict(settings.options),
        fresh_bots=True, title=round_title(db.folder, played.number),
        tables=tuple(tuple(index[label] for label in table) for table in played.tables))


def play_round(db: ArenaDb, played: Round, options: RunOptions) -> list[GameRecord]:
    """Play (or resume) a round's games and count them in the arena; its records."""
    by_label = {version.label: version for version in db.versions()}
    spec = round_spec(db, played, by_label)
    path = round_db(db.folder, played.number)
    quiet = io.StringIO()  # the tournament's own lines; the arena prints one a round
    with played_session(spec, replace(options, db_path=path, progress=False),
                        quiet) as (store, _):
        records = store.records()
    db.count_round(played.number, records)
    return records
