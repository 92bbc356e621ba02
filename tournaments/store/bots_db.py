"""The bots table of a results db: each bot's name, role, command, the files it runs with
their sha256, and the name and version its first HELLO gave.

A resume compares the bots' files now with these rows (`changed_bot`): a bot rebuilt
since is refused, naming the bot and the file, rather than mixed with its old games.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from tournaments.store.provenance import BotProvenance, short_hash
from tournaments.store.records import BotHashes, GameRecord

TABLE = "bots"
COLUMNS = {"name", "role", "command", "executable", "executable_sha256", "script",
           "script_sha256", "hello_name", "hello_version"}
_SELECT = ("SELECT name, role, command, executable, executable_sha256, script, "
           "script_sha256, hello_name, hello_version FROM bots")


def create_bots_table(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE bots (name TEXT PRIMARY KEY, role TEXT NOT NULL, "
                 "command TEXT NOT NULL, executable TEXT NOT NULL, "
                 "executable_sha256 TEXT NOT NULL, script TEXT, script_sha256 TEXT, "
                 "hello_name TEXT, hello_version TEXT)")


def read_bots(conn: sqlite3.Connection) -> dict[str, BotProvenance]:
    """Every row, by bot name; ValueError for a row whose values have the wrong types."""
    return {row[0]: _bot(row) for row in conn.execute(_SELECT).fetchall()}


def insert_bot(conn: sqlite3.Connection, bot: BotProvenance) -> None:
    conn.execute("INSERT INTO bots (name, role, command, executable, executable_sha256, "
                 "script, script_sha256) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (bot.name, bot.role, bot.command, bot.executable, bot.hashes.executable,
                  bot.script, bot.hashes.script))


def note_hellos(conn: sqlite3.Connection, record: GameRecord) -> None:
    """Keep the HELLO name and version of each bot of `record` that has none yet."""
    for name, hello in zip(record.bots, record.hellos or ()):
        if hello is not None:
            conn.execute("UPDATE bots SET hello_name = ?, hello_version = ? "
                         "WHERE name = ? AND hello_name IS NULL", (*hello, name))


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
    name, role, command, executable, exe_hash, script, script_hash, hello, version = row
    if not all(isinstance(value, str) for value in (name, role, command, executable,
                                                     exe_hash)):
        raise ValueError(f"bots row {row!r} lacks text values")
    if not all(isinstance(value, (str, type(None)))
               for value in (script, script_hash, hello, version)):
        raise ValueError(f"bots row {row!r} has values of the wrong type")
    said = (hello, version) if isinstance(hello, str) and isinstance(version, str) else None
    return BotProvenance(str(name), str(role), str(command), str(executable),
                         None if script is None else str(script),
                         BotHashes(str(exe_hash), None if script_hash is None
                                   else str(script_hash)), said)
