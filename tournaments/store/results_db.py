"""The SQLite results store: one committed row per finished game, resumable after any kill.

Durability: every record is its own transaction (BEGIN IMMEDIATE ... COMMIT), so a
SIGKILL at any moment leaves either the whole row or nothing. We keep SQLite's default
rollback journal rather than WAL: the results stay one self-contained file that can be
copied or mailed while no run is going, and it works on network file systems, where a
cluster executor's results may live. synchronous=FULL makes a commit survive a power cut
too; its few fsyncs per game cost nothing next to a game between processes.

Schema 2 added the bots table (tournaments/store/bots_db.py). A schema-1 db still reads, its
bots without files or hashes; resuming it adds the table and records the bots' files as
they are then (`claim_bots`), which cannot vouch for the games played before.

Schema 3 (tournaments/store/schema_step.py) lets a gauntlet's class change: the db holds
the gauntlet's frame (TournamentSpec.frame), the stored definition is the class of the
latest run, and only the games of its candidates, as they are now, are read as its
results. Games of candidates since removed stay in the games table; those of versions
since replaced move to replaced_games; `left_out` counts both, for the note under the
tables. A db of schema 1 or 2 still reads as it is, and a run resuming it brings it to 3.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.errors import ConfigError
from referee.writable import check_writable_folder, make_folder
from tournaments.spec.definition import (
    TournamentSpec, canonical_json, frame_of, spec_from_json,
)
from tournaments.store.bots_db import (
    COLUMNS, COLUMNS_2, REPLACED, REPLACED_COLUMNS, changed_bot, create_bots_table,
    create_replaced_table, insert_bot, note_hellos, read_bots, replace_candidate,
    replaced_counts, replaced_records,
)
from tournaments.store.provenance import BotProvenance
from tournaments.store.records import GameRecord
from tournaments.store.record_check import record_problem
from tournaments.store.schema_step import VERSION as SCHEMA_VERSION
from tournaments.store.schema_step import create_games_table, upgrade
from tournaments.schedule.fixtures import fixture_ids, fixtures_for, id_spellings
from tournaments.schedule.secret import META_KEY, new_secret, secret_from_text, secret_to_text

_SCHEMA_1 = {"meta": {"key", "value"}, "games": {"fixture_id", "fixture_index", "record"}}
# The tables, with their columns, of each schema this tool reads.
_SCHEMAS = {"1": _SCHEMA_1, "2": {**_SCHEMA_1, "bots": COLUMNS_2},
            SCHEMA_VERSION: {**_SCHEMA_1, "bots": COLUMNS, REPLACED: REPLACED_COLUMNS}}
_TABLES = set(_SCHEMAS[SCHEMA_VERSION])
_META_KEYS = {"schema", "fingerprint", "definition", "spec"}
# Errors decoding what a row holds: bad JSON, missing keys, values of the wrong type.
_DECODE_ERRORS = (ValueError, LookupError, TypeError, AttributeError)


class StoreFailure(Exception):
    """The results db cannot be used as it is: its content is damaged (DamagedResults) or
    writing to it failed (ResultsWriteError). Not bad usage: the CLI exits with 1."""


class DamagedResults(StoreFailure):
    """A results db made by this tool whose tables, definition or rows are unreadable."""


class ResultsWriteError(StoreFailure):
    """A game could not be stored: disk full, folder no longer writable, I/O error."""


class ResultsReadError(StoreFailure):
    """The db could not be read: locked by another run for too long, an I/O error."""


def default_db_path(spec: TournamentSpec) -> Path:
    """results/<game>-<fingerprint prefix>.sqlite, relative to the working directory; for
    a gauntlet whose db was made before its fingerprint left out the candidates, the path
    it had then, if that db is there."""
    path = Path("results") / f"{spec.game.name}-{spec.fingerprint()[:10]}.sqlite"
    older = path.with_name(f"{spec.game.name}-{spec.full_fingerprint()[:10]}.sqlite")
    return older if spec.references and not path.exists() and older.is_file() else path


def logs_dir(db_path: Path) -> Path:
    """The folder for game logs beside a results db: <db stem>-logs/ (not created here)."""
    return db_path.with_name(f"{db_path.stem}-logs")


def check_logs_dir(db_path: Path) -> Path:
    """Make the game-logs folder of `db_path` and check a file can be written in it;
    OSError if not. Done before any game, whose worker would otherwise fail on it."""
    folder = logs_dir(db_path)
    try:
        check_writable_folder(folder)
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        raise OSError(error.errno, f"cannot write game logs in {folder}: "
                                   f"{error.strerror or error}{where}") from None
    return folder


@dataclass(frozen=True)
class Claim:
    """What `claim_bots` found: each bot's version, the candidates new to the db, those
    replaced (name, old version, games moved aside), and `unchecked`: bots recorded only
    now in a db that held games already (made before bots were recorded)."""

    versions: dict[str, int]
    added: tuple[str, ...] = ()
    replaced: tuple[tuple[str, int, int], ...] = ()
    unchecked: bool = False


@dataclass(frozen=True)
class LeftOut:
    """Games in the db that the tables leave out: a removed candidate's (`version` its
    last), or a replaced version's."""

    bot: str
    version: int
    games: int
    removed: bool  # False: replaced by a later version


class ResultStore:
    """Results of one tournament definition, keyed by fixture id, read in fixture order.
    A gauntlet's store reads only the games of its current candidates (schema 3)."""

    _schema: str  # the db's schema: "1" or "2" for an older db only read
    _bots_recorded_late = False  # a schema-1 db held games before its bots were recorded

    def __init__(self, path: str | Path, spec: TournamentSpec) -> None:
        """Open or make the store, refusing one of another tournament (ConfigError);
        OSError or sqlite3.Error if the db or the game-logs folder beside it cannot be
        written, found now rather than at the first game."""
        self.path = Path(path)
        make_folder(self.path.parent)
        self._conn = _connect(self.path)
        try:
            self._claim(spec)
            self._check_writable()
            check_logs_dir(self.path)
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
            # No fingerprint check here: the definition is the one stored.
            store.spec = _stored_spec(path, meta["spec"])
            store._schema = meta["schema"]
        except BaseException:
            store._conn.close()
            raise
        store._index = _fixture_indexes(store.spec, store.legacy_ids)
        return store

    @property
    def legacy_ids(self) -> bool:
        """Whether this db's gauntlet games have the ids of schema 1 and 2, which number
        the bots (a db only read: a run brings it to schema 3 first)."""
        return self._schema != SCHEMA_VERSION

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the tournament definition this store holds."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        return str(row[0])

    @property
    def deal_secret(self) -> bytes:
        """The secret keying every deal's seed, made with the db
        (tournaments/schedule/secret.py)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
        if row is None:
            raise ConfigError(f"{self.path} was made by an older referee: its deals follow "
                              "from the public seed alone, so bots could know them; run the "
                              "tournament again with another --db")
        return secret_from_text(str(row[0]))

    def bots(self) -> dict[str, BotProvenance]:
        """The bots table by bot name, each bot's latest version: empty for a schema-1
        db, which has none. DamagedResults for a row that cannot be read."""
        if self._schema == "1":
            return {}
        with _reading(self.path):
            return self._stored_bots()

    def claim_bots(self, bots: Sequence[BotProvenance]) -> Claim:
        """Record each bot's files, or check them against those recorded. A bot whose
        files changed since is refused (ConfigError naming it), except a gauntlet's
        candidate: it gets the next version, and its games of the old one are moved
        aside, to be played again. A gauntlet's stored definition becomes this run's
        class. All in one transaction: a refusal changes nothing."""
        with _reading(self.path), self._transaction():
            unchecked = self._bots_recorded_late and bool(self.done())
            stored = self._stored_bots()
            added, replaced, versions = [], [], {}
            for bot in bots:
                old = stored.get(bot.name)
                if old is None:
                    insert_bot(self._conn, bot)
                    added.append(bot.name)
                elif (change := _change(old, bot)) is None:
                    bot = old
                elif self.spec.references and bot.role == "candidate":
                    bot, moved = replace_candidate(self._conn, old, bot,
                                                   self._games_of(bot.name))
                    replaced.append((bot.name, old.version, moved))
                else:
                    raise ConfigError(_changed(self.path, bot.name, change, self.spec))
                versions[bot.name] = bot.version
            if self.spec.references:
                self._set_definition(self.spec)
        self._bots_recorded_late = False
        return Claim(versions, tuple(added) if stored else (), tuple(replaced), unchecked)

    def _games_of(self, bot: str) -> set[str]:
        """The fixture ids of the games `bot` sits in."""
        index = self.spec.bot_names.index(bot)
        return {fixture.fixture_id for fixture in fixtures_for(self.spec, _NO_SECRET)
                if index in fixture.seats}

    def _set_definition(self, spec: TournamentSpec) -> None:
        for key, value in (("definition", canonical_json(spec.definition())),
                           ("spec", canonical_json(spec.to_json()))):
            self._conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))

    def left_out(self) -> list[LeftOut]:
        """The games kept in the db that this tournament's tables leave out: those of
        candidates no longer in it, and of versions since replaced (schema 3 only)."""
        if self._schema != SCHEMA_VERSION:
            return []
        with _reading(self.path):
            removed: dict[str, int] = {}
            for fixture_id, text in self._conn.execute("SELECT fixture_id, record FROM games"):
                if fixture_id not in self._index and (
                        bot := self._removed_candidate(text)) is not None:
                    removed[bot] = removed.get(bot, 0) + 1
            latest = self._stored_bots()
            gone = [LeftOut(bot, latest[bot].version if bot in latest else 1, games, True)
                    for bot, games in sorted(removed.items())]
            return gone + [LeftOut(bot, version, games, False)
                           for bot, version, games in replaced_counts(self._conn)]

    def replaced(self, bot: str) -> list[tuple[int, GameRecord]]:
        """(version, record) of each game kept of `bot`'s versions since replaced, oldest
        version first; DamagedResults for a row that cannot be read."""
        if self._schema != SCHEMA_VERSION:
            return []
        with _reading(self.path):
            rows = replaced_records(self._conn, bot)
        try:
            return [(version, GameRecord.from_json(json.loads(text))) for version, text in rows]
        except _DECODE_ERRORS as error:
            raise DamagedResults(f"{self.path} is a damaged results db: a replaced game of "
                                 f"{bot!r} is unreadable ({error})") from None

    def _stored_bots(self) -> dict[str, BotProvenance]:
        try:
            return read_bots(self._conn, versioned=self._schema == SCHEMA_VERSION)
        except ValueError as error:
            raise DamagedResults(f"{self.path} is a damaged results db: {error}") from None

    def done(self) -> set[str]:
        """Ids of this tournament's fixtures already stored (a gauntlet's db may hold
        games of candidates since removed too: not these)."""
        with _reading(self.path):
            return {row[0] for row in self._conn.execute("SELECT fixture_id FROM games")
                    if row[0] in self._index}

    def add(self, record: GameRecord) -> bool:
        """Store one record in its own committed transaction.

        Returns False, storing nothing, if that fixture already has a record.
        """
        index = self._index.get(record.fixture_id)
        if index is None:
            raise ValueError(f"{record.fixture_id!r} is not a fixture of this tournament")
        try:
            with self._transaction():
                _insert(self._conn, index, record)
                note_hellos(self._conn, record)
        except sqlite3.IntegrityError:
            return False
        except (sqlite3.OperationalError, OSError) as error:
            # What was committed before stays: each game is its own transaction.
            raise ResultsWriteError(
                f"cannot store game {record.fixture_id} in {self.path}: {error}; the games "
                "stored before are kept, and running the same command again once it can "
                "be written resumes") from None
        return True

    def stored_game(self, game_id: str) -> GameRecord:
        """The stored game of `game_id` as a person types it (id_spellings); ConfigError
        naming where the ids are if there is none."""
        ids = id_spellings(game_id)
        found = next((record for record in self.records() if record.fixture_id in ids), None)
        if found is None:
            raise ConfigError(f"no stored game {game_id!r} in {self.path} (`referee results "
                              f"{self.path} --faults` or a game log's name gives the ids)")
        return found

    def records(self) -> list[GameRecord]:
        """Every stored record of this tournament's fixtures, in fixture order (not
        completion order); DamagedResults if a row cannot be read back as a game of this
        tournament. A gauntlet's games of candidates since removed are not among them."""
        with _reading(self.path):
            rows = self._conn.execute("SELECT fixture_id, record FROM games").fetchall()
        current = [row for row in rows if row[0] in self._index]
        for fixture_id, text in rows:
            if fixture_id not in self._index and not self._removed_candidate(text):
                self._decode(fixture_id, text)  # not a game of this tournament: damaged
        current.sort(key=lambda row: self._index[row[0]])
        return [self._decode(fixture_id, text) for fixture_id, text in current]

    def _removed_candidate(self, text: str) -> str | None:
        """The candidate of a stored gauntlet game who is no longer in the class, None
        for any other row (in a round robin, every row is a game of its schedule)."""
        if not self.spec.references:
            return None
        names = self.spec.bot_names
        bot = _candidate_of(text, {names[index] for index in self.spec.references})
        return bot if bot is not None and bot not in names else None

    def _decode(self, fixture_id: object, text: object) -> GameRecord:
        try:
            record = GameRecord.from_json(json.loads(text))  # type: ignore[arg-type]
            problem = record_problem(record, fixture_id, self.spec, self._index)
        except _DECODE_ERRORS as error:
            problem = f"{type(error).__name__}: {error}"
        if problem is not None:
            raise DamagedResults(f"{self.path} is a damaged results db: its row for game "
                                 f"{fixture_id!r} is unreadable ({problem:.200})")
        return record

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
            self._conn.execute("COMMIT")  # a full disk may fail here: roll back too
        except BaseException:  # KeyboardInterrupt too: never leave a half transaction
            # SQLite may have rolled back already (disk full); a failing ROLLBACK must
            # not hide the error that caused it, and the journal undoes it on next open.
            if self._conn.in_transaction:
                with suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise

    def _check_writable(self) -> None:
        # A resumed db may sit in a folder that became read-only; SQLite would only find
        # out at the first game's commit, when it creates its journal. Try that now.
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.execute("INSERT OR REPLACE INTO meta (key, value) "
                               "VALUES ('write-check', '')")
        finally:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")

    def _claim(self, spec: TournamentSpec) -> None:
        # Create the tables and record the definition, or check the frame matches and
        # bring an older db to this schema, atomically.
        definition = canonical_json(spec.definition())
        with self._transaction():
            meta = _read_meta(self._conn, self.path)
            if meta is None:
                _create(self._conn, spec, definition)
            elif canonical_json(_frame(self.path, meta["definition"])) != \
                    canonical_json(spec.frame()):
                raise ConfigError(_mismatch(self.path, meta["definition"], definition))
            elif meta["schema"] != SCHEMA_VERSION:
                try:
                    upgrade(self._conn, meta["schema"], _stored_spec(self.path, meta["spec"]))
                except _DECODE_ERRORS as error:
                    raise DamagedResults(f"{self.path} is a damaged results db: a game row "
                                         f"is unreadable ({error})") from None
            self._bots_recorded_late = meta is not None and meta["schema"] == "1"
            self._schema = SCHEMA_VERSION


def _fixture_indexes(spec: TournamentSpec, legacy_ids: bool = False) -> dict[str, int]:
    return {fixture_id: index
            for index, fixture_id in enumerate(fixture_ids(spec, legacy_ids))}


_NO_SECRET = bytes(32)  # for fixture ids and seats alone: seeds are thrown away


def _candidate_of(text: str, references: Collection[str]) -> str | None:
    """The candidate of a stored gauntlet game: its bot that is not a reference (None
    for a reference's solo game or an unreadable row)."""
    try:
        return next((str(bot) for bot in json.loads(text)["bots"]
                     if bot not in references), None)
    except _DECODE_ERRORS:
        return None


def _change(old: BotProvenance, now: BotProvenance) -> str | None:
    """How a bot differs from its row: its files, or (for a candidate, whose command is
    not in the frame) its command."""
    command = (f"its command is {now.command!r} now, {old.command!r} in the db"
               if now.command != old.command else None)
    return "; ".join(filter(None, (changed_bot(old, now), command))) or None


def _changed(path: Path, bot: str, change: str, spec: TournamentSpec) -> str:
    why = ("a reference sets every candidate's bar, so its games cannot be replaced; "
           if spec.references else "")
    return (f"bot {bot!r} changed since {path} was made: {change}; {why}--restart starts "
            "over (keeping the old results as a backup), or give another --db")


def _frame(path: Path, definition: str) -> dict[str, object]:
    try:
        return frame_of(json.loads(definition))
    except _DECODE_ERRORS as error:
        raise DamagedResults(f"{path} is a damaged results db: its tournament definition "
                             f"is unreadable ({type(error).__name__}: {error})") from None


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves (see ResultStore._transaction).
    conn = sqlite3.connect(path, timeout=60.0, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=FULL")
    except sqlite3.OperationalError as error:  # locked by another run, I/O
        conn.close()
        raise ResultsReadError(f"cannot read {path}: {error}") from None
    except sqlite3.DatabaseError as error:
        conn.close()
        if getattr(error, "sqlite_errorname", "").startswith("SQLITE_CORRUPT"):
            raise DamagedResults(f"{path} is a damaged results db: {error}") from None
        raise ConfigError(f"{path} is not a results db ({error})") from None
    return conn


def _insert(conn: sqlite3.Connection, index: int, record: GameRecord) -> None:
    """The INSERT of one game's row (a seam for tests that fill the disk)."""
    conn.execute("INSERT INTO games (fixture_index, fixture_id, record) VALUES (?, ?, ?)",
                 (index, record.fixture_id, canonical_json(record.to_json())))


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """SQLite's word that the file is corrupt becomes DamagedResults; a failure to read
    it (locked, I/O), ResultsReadError."""
    try:
        yield
    except sqlite3.OperationalError as error:
        raise ResultsReadError(f"cannot read {path}: {error}") from None
    except sqlite3.IntegrityError:
        raise  # only writes raise it: a bug, not the file
    except sqlite3.DatabaseError as error:
        raise DamagedResults(f"{path} is a damaged results db: {error}") from None


def _read_meta(conn: sqlite3.Connection, path: Path) -> dict[str, str] | None:
    """The meta table as a dict; None for a new, empty db; ConfigError for a foreign one,
    DamagedResults for one of ours with tables, columns or keys missing."""
    with _reading(path):
        tables = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return None
        if not tables & _TABLES:
            raise ConfigError(f"{path} is not a results db made by this tool (it has tables "
                              f"{', '.join(sorted(tables))})")
        if "meta" not in tables:
            raise DamagedResults(f"{path} is a damaged results db: it has tables "
                                 f"{', '.join(sorted(tables))}, and no meta")
        _check_columns(conn, path, "meta", _SCHEMA_1["meta"])
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        missing = _META_KEYS - meta.keys()
        if missing or not all(isinstance(meta[key], str) for key in _META_KEYS):
            raise DamagedResults(f"{path} is a damaged results db: its meta table lacks "
                                 f"{', '.join(sorted(missing)) or 'text values'}")
        if meta["schema"] not in _SCHEMAS:
            raise ConfigError(f"{path} has results schema {meta['schema']!r}, this tool "
                              f"reads schemas {', '.join(sorted(_SCHEMAS))}")
        _check_tables(conn, path, tables, _SCHEMAS[meta["schema"]])
    return meta


def _check_tables(conn: sqlite3.Connection, path: Path, tables: set[str],
                  schema: dict[str, set[str]]) -> None:
    """DamagedResults unless exactly the tables of `schema` with their columns are there."""
    if tables != set(schema):
        raise DamagedResults(f"{path} is a damaged results db: it has tables "
                             f"{', '.join(sorted(tables))}, not {', '.join(sorted(schema))}")
    for table, wanted in schema.items():
        _check_columns(conn, path, table, wanted)


def _check_columns(conn: sqlite3.Connection, path: Path, table: str,
                   wanted: set[str]) -> None:
    columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    if columns != wanted:
        raise DamagedResults(f"{path} is a damaged results db: table {table} has "
                             f"columns {', '.join(sorted(columns))}, not "
                             f"{', '.join(sorted(wanted))}")


def _stored_spec(path: Path, text: str) -> TournamentSpec:
    """The tournament definition stored in a db; DamagedResults if it is unreadable."""
    try:
        return spec_from_json(json.loads(text))
    except (*_DECODE_ERRORS, ConfigError) as error:
        raise DamagedResults(f"{path} is a damaged results db: its tournament definition "
                             f"is unreadable ({type(error).__name__}: {error})") from None


def _create(conn: sqlite3.Connection, spec: TournamentSpec, definition: str) -> None:
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    create_games_table(conn)
    create_bots_table(conn)
    create_replaced_table(conn)
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
        ("schema", SCHEMA_VERSION), ("fingerprint", spec.fingerprint()),
        ("definition", definition), ("spec", canonical_json(spec.to_json())),
        (META_KEY, secret_to_text(new_secret()))])


def _mismatch(path: Path, stored: str, wanted: str) -> str:
    try:
        old: dict[str, Any] = dict(json.loads(stored))
    except _DECODE_ERRORS as error:
        raise DamagedResults(f"{path} is a damaged results db: its tournament definition "
                             f"is unreadable ({type(error).__name__}: {error})") from None
    new: dict[str, Any] = json.loads(wanted)
    gauntlet = any(bot.get("reference") for bot in new["bots"])
    old, new = frame_of(old), frame_of(new)
    differing = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    # A gauntlet's candidates may change (they are not in its frame); a round robin's
    # games each depend on every bot, so its bots may not.
    why = ("; a round robin's games depend on every bot, so its bots cannot change"
           if "bots" in differing and not gauntlet else "")
    if gauntlet:  # its candidates are not in the frame: only its references differ
        differing = ["references" if key == "bots" else key for key in differing]
    return (f"{path} holds a different tournament (it differs in {', '.join(differing)})"
            f"{why}: --restart starts over (keeping the old results as a backup), or give "
            "another --db")


def check_results_db(path: Path) -> None:
    """ConfigError unless `path` holds results of this tool, damaged or empty ones too
    (what `--restart` may move aside: never another file given as --db by mistake)."""
    try:
        conn = _connect(path)
    except DamagedResults:
        return
    try:
        _read_meta(conn, path)
    except DamagedResults:
        pass
    finally:
        conn.close()
