"""The SQLite results store: one committed row per finished game, resumable after any kill.

Durability: every record is its own transaction (BEGIN IMMEDIATE ... COMMIT), so a
SIGKILL at any moment leaves either the whole row or nothing. We keep SQLite's default
rollback journal rather than WAL: the results stay one self-contained file that can be
copied or mailed while no run is going, and it works on network file systems, where a
cluster executor's results may live. synchronous=FULL makes a commit survive a power cut
too; its few fsyncs per game cost nothing next to a game between processes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.errors import ConfigError
from tournaments.config import TournamentSpec, canonical_json, spec_from_json
from tournaments.records import GameRecord
from tournaments.schedule import fixture_ids
from tournaments.secret import META_KEY, new_secret, secret_from_text, secret_to_text

SCHEMA_VERSION = "1"
_TABLES = {"meta", "games"}


def default_db_path(spec: TournamentSpec) -> Path:
    """results/<game>-<fingerprint prefix>.sqlite, relative to the working directory."""
    return Path("results") / f"{spec.game.value}-{spec.fingerprint()[:10]}.sqlite"


def logs_dir(db_path: Path) -> Path:
    """The folder for game logs beside a results db: <db stem>-logs/ (not created here)."""
    return db_path.with_name(f"{db_path.stem}-logs")


class ResultStore:
    """Results of one tournament definition, keyed by fixture id, read in fixture order."""

    def __init__(self, path: str | Path, spec: TournamentSpec) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = _connect(self.path)
        try:
            self._claim(spec)
        except BaseException:
            self._conn.close()
            raise
        self.spec = spec
        self._index = _fixture_indexes(spec)

    @classmethod
    def open_existing(cls, path: str | Path) -> ResultStore:
        """Open a store made earlier, taking the tournament definition from it."""
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"{path} does not exist; give a results db made by a "
                              "tournament run")
        store = cls.__new__(cls)
        store.path, store._conn = path, _connect(path)
        try:
            meta = _read_meta(store._conn, path)
            if meta is None:
                raise ConfigError(f"{path} is an empty results db: it holds no tournament")
        except BaseException:
            store._conn.close()
            raise
        # No fingerprint check here: the definition is the one stored.
        store.spec = spec_from_json(json.loads(meta["spec"]))
        store._index = _fixture_indexes(store.spec)
        return store

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the tournament definition this store holds."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        return str(row[0])

    @property
    def deal_secret(self) -> bytes:
        """The secret keying every deal's seed, made with the db (tournaments/secret.py)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
        if row is None:
            raise ConfigError(f"{self.path} was made by an older referee: its deals follow "
                              "from the public seed alone, so bots could know them; run the "
                              "tournament again with another --db")
        return secret_from_text(str(row[0]))

    def done(self) -> set[str]:
        """Ids of the fixtures already stored."""
        return {row[0] for row in self._conn.execute("SELECT fixture_id FROM games")}

    def add(self, record: GameRecord) -> bool:
        """Store one record in its own committed transaction.

        Returns False, storing nothing, if that fixture already has a record.
        """
        index = self._index.get(record.fixture_id)
        if index is None:
            raise ValueError(f"{record.fixture_id!r} is not a fixture of this tournament")
        try:
            with self._transaction():
                self._conn.execute(
                    "INSERT INTO games (fixture_index, fixture_id, record) VALUES (?, ?, ?)",
                    (index, record.fixture_id, canonical_json(record.to_json())))
        except sqlite3.IntegrityError:
            return False
        return True

    def records(self) -> list[GameRecord]:
        """Every stored record, in fixture order (not completion order)."""
        rows = self._conn.execute("SELECT record FROM games ORDER BY fixture_index")
        return [GameRecord.from_json(json.loads(row[0])) for row in rows]

    def close(self) -> None:
        """Close the connection; everything added is already committed."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:  # KeyboardInterrupt too: never leave a half transaction
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _claim(self, spec: TournamentSpec) -> None:
        # Create the tables and record the definition, or check it matches, atomically.
        definition = canonical_json(spec.definition())
        with self._transaction():
            meta = _read_meta(self._conn, self.path)
            if meta is None:
                _create(self._conn, spec, definition)
            elif meta["fingerprint"] != spec.fingerprint():
                raise ConfigError(_mismatch(self.path, meta["definition"], definition))


def _fixture_indexes(spec: TournamentSpec) -> dict[str, int]:
    return {fixture_id: index for index, fixture_id in enumerate(fixture_ids(spec))}


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves (see ResultStore._transaction).
    conn = sqlite3.connect(path, timeout=60.0, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=FULL")
    except sqlite3.DatabaseError as error:
        conn.close()
        raise ConfigError(f"{path} is not a results db ({error})") from None
    return conn


def _read_meta(conn: sqlite3.Connection, path: Path) -> dict[str, str] | None:
    """The meta table as a dict; None for a new, empty db; ConfigError for a foreign one."""
    tables = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return None
    if tables != _TABLES:
        raise ConfigError(f"{path} is not a results db made by this tool (it has tables "
                          f"{', '.join(sorted(tables))})")
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("schema") != SCHEMA_VERSION:
        raise ConfigError(f"{path} has results schema {meta.get('schema')!r}, this tool "
                          f"reads schema {SCHEMA_VERSION}")
    return meta


def _create(conn: sqlite3.Connection, spec: TournamentSpec, definition: str) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("CREATE TABLE games (fixture_id TEXT PRIMARY KEY, "
                 "fixture_index INTEGER NOT NULL UNIQUE, record TEXT NOT NULL)")
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
        ("schema", SCHEMA_VERSION), ("fingerprint", spec.fingerprint()),
        ("definition", definition), ("spec", canonical_json(spec.to_json())),
        (META_KEY, secret_to_text(new_secret()))])


def _mismatch(path: Path, stored: str, wanted: str) -> str:
    old: dict[str, Any] = json.loads(stored)
    new: dict[str, Any] = json.loads(wanted)
    differing = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    return (f"{path} holds a different tournament (it differs in "
            f"{', '.join(differing)}); use another --db or the same definition")
