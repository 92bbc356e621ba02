"""The bots table of a results db: each bot's name, role, command, the files it runs with
their sha256, the name and version its first HELLO gave, and its version in this db.

A resume compares the bots' files now with these rows (`changed_bot`). In a round robin a
bot rebuilt since is refused, naming the bot and the file, rather than mixed with its old
games. In a gauntlet (schema 3) a candidate rebuilt since gets a row of its own with the
next version, and its games of the older version move to the replaced_games table: kept
as history, no longer counted, and played again with the new version.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import replace

from tournaments.store.provenance import BotProvenance, short_hash
from tournaments.store.records import BotHashes, GameRecord

TABLE = "bots"
# Schema 2's columns; schema 3 adds the version (and keys rows by name and version).
COLUMNS_2 = {"name", "role", "command", "executable", "executable_sha256", "script",
             "script_sha256", "hello_name", "hello_version"}
COLUMNS = COLUMNS_2 | {"version"}
REPLACED = "replaced_games"
REPLACED_COLUMNS = {"fixture_id", "bot", "version", "record"}
_SELECT = ("SELECT name, role, command, executable, executable_sha256, script, "
           "script_sha256, hello_name, hello_version")


def create_bots_table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE bots (name TEXT NOT NULL, version INTEGER NOT NULL, "
                 "role TEXT NOT NULL, command TEXT NOT NULL, executable TEXT NOT NULL, "
                 "executable_sha256 TEXT NOT NULL, script TEXT, script_sha256 TEXT, "
                 "hello_name TEXT, hello_version TEXT, PRIMARY KEY (name, version))")


def create_replaced_table(conn: sqlite3.Connection) -> None:
    """The games of a gauntlet's candidates played with a version since replaced."""
    conn.execute("CREATE TABLE replaced_games (fixture_id TEXT NOT NULL, bot TEXT NOT NULL, "
                 "version INTEGER NOT NULL, record TEXT NOT NULL, "
                 "PRIMARY KEY (fixture_id, version))")


def read_bots(conn: sqlite3.Connection, versioned: bool = True) -> dict[str, BotProvenance]:
    """The latest version of every bot, by name (`versioned`: False for a schema-2 db,
    whose bots have no version); ValueError for a row whose values have the wrong types."""
    latest: dict[str, BotProvenance] = {}
    for bot in read_versions(conn, versioned):
        latest[bot.name] = bot  # rows come in version order
    return latest


def read_versions(conn: sqlite3.Connection, versioned: bool = True) -> list[BotProvenance]:
    """Every row, by name then version."""
    if not versioned:
        return [_bot((*row, 1)) for row in conn.execute(f"{_SELECT} FROM bots ORDER BY name")]
    return [_bot(row) for row in conn.execute(
        f"{_SELECT}, version FROM bots ORDER BY name, version").fetchall()]


def insert_bot(conn: sqlite3.Connection, bot: BotProvenance) -> None:
    conn.execute("INSERT INTO bots (name, version, role, command, executable, "
                 "executable_sha256, script, script_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (bot.name, bot.version, bot.role, bot.command, bot.executable,
                  bot.hashes.executable, bot.script, bot.hashes.script))


def replace_candidate(conn: sqlite3.Connection, old: BotProvenance, now: BotProvenance,
                      fixture_ids: Collection[str]) -> tuple[BotProvenance, int]:
    """Record `now` as the next version of the candidate `old`, and move its stored games
    (those of `fixture_ids`) to replaced_games under the old version; the new row and how
    many games moved."""
    new = replace(now, version=old.version + 1)
    insert_bot(conn, new)
    moved = 0
    for fixture_id in fixture_ids:
        row = conn.execute("SELECT record FROM games WHERE fixture_id = ?",
                           (fixture_id,)).fetchone()
        if row is None:
            continue
        conn.execute("INSERT OR REPLACE INTO replaced_games (fixture_id, bot, version, "
                     "record) VALUES (?, ?, ?, ?)", (fixture_id, old.name, old.version, row[0]))
        conn.execute("DELETE FROM games WHERE fixture_id = ?", (fixture_id,))
        moved += 1
    return new, moved


def replaced_counts(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """(bot, version, games) of each replaced version with games kept."""
    return [(str(bot), int(version), int(games)) for bot, version, games in conn.execute(
        "SELECT bot, version, count(*) FROM replaced_games GROUP BY bot, version "
        "ORDER BY bot, version")]


def replaced_records(conn: sqlite3.Connection, bot: str) -> list[tuple[int, str]]:
    """(version, record text) of each replaced game of `bot`, oldest version first."""
    return [(int(version), str(text)) for version, text in conn.execute(
        "SELECT version, record FROM replaced_games WHERE bot = ? ORDER BY version, "
        "fixture_id", (bot,))]


def note_hellos(conn: sqlite3.Connection, record: GameRecord) -> None:
    """Keep the HELLO name and version of each bot of `record` that has none yet (its
    latest version: the one that played)."""
    for name, hello in zip(record.bots, record.hellos or ()):
        if hello is not None:
            conn.execute("UPDATE bots SET hello_name = ?, hello_version = ? "
                         "WHERE name = ? AND hello_name IS NULL AND version = "
                         "(SELECT max(version) FROM bots WHERE name = ?)",
                         (*hello, name, name))


def changed_bot(stored: BotProvenance, now: BotProvenance) -> str | None:
    """What differs between a bot's files as the db has them and as they are now, or
    None if they hash the same (a moved file with the same content is the same bot)."""
    differences = [
        f"its {kind} {path_now or path_then} has sha256 {short_hash(hash_now)} now, "
        f"{short_hash(hash_then)} in the db"
        for kind, path_then, path_now, hash_then, hash_now in (
            ("executable", stored.executable, now.executable, stored.hashes.executable,
             now.hashes.executable),
            ("script", stored.script, now.script, stored.hashes.script, now.hashes.script))
        if hash_then != hash_now]
    return "; ".join(differences) or None


def _bot(row: Sequence[object]) -> BotProvenance:
    name, role, command, executable, exe_hash, script, script_hash, hello, said, version = row
    if not all(isinstance(value, str) for value in (name, role, command, executable,
                                                     exe_hash)):
        raise ValueError(f"bots row {row!r} lacks text values")
    if not all(isinstance(value, (str, type(None)))
               for value in (script, script_hash, hello, said)) or type(version) is not int:
        raise ValueError(f"bots row {row!r} has values of the wrong type")
    words = (hello, said) if isinstance(hello, str) and isinstance(said, str) else None
    return BotProvenance(str(name), str(role), str(command), str(executable),
                         None if script is None else str(script),
                         BotHashes(str(exe_hash), None if script_hash is None
                                   else str(script_hash)), words, version)
