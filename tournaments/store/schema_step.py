"""Schema 3 of a results db, and the step that brings a db of schema 1 or 2 to it.

Schema 3 lets a gauntlet's class change (docs/gauntlet.md): its fixture ids name each
candidate (`c-alice`, not `c01`, which numbered the bots and so changed with the class),
its games table no longer ties a row to one place in the schedule (fixture_index is the
place when the game was stored; the reader orders rows by the schedule of the day), the
bots table keeps a version of each bot, and replaced_games keeps the games of versions
since replaced. The step runs when a run resumes an older db, in the same transaction as
its other checks; reading one (`referee results`) changes nothing, and reads the old ids.
"""

from __future__ import annotations

import json
import sqlite3

from tournaments.schedule.fixtures import fixture_ids
from tournaments.spec.definition import TournamentSpec, canonical_json
from tournaments.store.bots_db import create_bots_table, create_replaced_table

VERSION = "3"


def create_games_table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE games (fixture_id TEXT PRIMARY KEY, "
                 "fixture_index INTEGER NOT NULL, record TEXT NOT NULL)")


def upgrade(conn: sqlite3.Connection, schema: str, stored: TournamentSpec) -> None:
    """Bring a db of `schema` "1" or "2" holding `stored` to schema 3, inside the caller's
    transaction. ValueError for a game row whose record is not JSON."""
    renamed = (dict(zip(fixture_ids(stored, legacy_ids=True), fixture_ids(stored)))
               if stored.references else {})
    conn.execute("ALTER TABLE games RENAME TO games_old")
    create_games_table(conn)
    for fixture_id, index, text in conn.execute(
            "SELECT fixture_id, fixture_index, record FROM games_old").fetchall():
        new_id = renamed.get(fixture_id, fixture_id)
        if new_id != fixture_id:
            text = canonical_json({**json.loads(text), "fixture_id": new_id})
        conn.execute("INSERT INTO games (fixture_id, fixture_index, record) VALUES (?, ?, ?)",
                     (new_id, index, text))
    conn.execute("DROP TABLE games_old")
    _upgrade_bots(conn, schema)
    create_replaced_table(conn)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (stored.fingerprint(),))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (VERSION,))


def _upgrade_bots(conn: sqlite3.Connection, schema: str) -> None:
    """Schema 2's bots become version 1; a schema-1 db gets the table, empty."""
    if schema == "1":
        create_bots_table(conn)
        return
    conn.execute("ALTER TABLE bots RENAME TO bots_old")
    create_bots_table(conn)
    conn.execute("INSERT INTO bots (name, version, role, command, executable, "
                 "executable_sha256, script, script_sha256, hello_name, hello_version) "
                 "SELECT name, 1, role, command, executable, executable_sha256, script, "
                 "script_sha256, hello_name, hello_version FROM bots_old")
    conn.execute("DROP TABLE bots_old")
