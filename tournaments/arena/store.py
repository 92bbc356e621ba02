"""An arena's folder: arena.toml (its settings), arena.db (its versions, rounds and games),
submissions/ (the versions' frozen files) and rounds/ (each round's results db and logs).

arena.db is the arena's own record: which versions exist and which may play, which tables
each round was planned with, and, once a round is played in full, its games. A round's
games are copied in with the round marked played in one transaction, so a run killed at
any point leaves each round either planned (its results db resumes it) or counted once.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee import bounds
from referee.errors import ConfigError
from referee.printable import printable
from referee.matches.game import Contest, OptionError, OptionKind, Options
from referee.registry.games import lookup
from referee.settings import ResourceLimits, TimeLimits
from protocols.clock import Clock
from tournaments.spec.definition import CLOCK_RULE, MAX_TITLE, RESOURCE_BOUNDS, TIME_BOUNDS
from tournaments.store.records import GameRecord

SETTINGS = "arena.toml"
DB = "arena.db"
SUBMISSIONS = "submissions"
ROUNDS = "rounds"
DEFAULT_PLACEMENT = 3  # tables a new version plays against the whole ladder first
_SCHEMA = """
CREATE TABLE versions (
    name TEXT NOT NULL, version INTEGER NOT NULL, command TEXT NOT NULL,
    folder TEXT, sha256 TEXT NOT NULL, status TEXT NOT NULL, report TEXT NOT NULL,
    submitted TEXT NOT NULL,
    PRIMARY KEY (name, version));
CREATE TABLE rounds (
    round INTEGER PRIMARY KEY, tables TEXT NOT NULL, status TEXT NOT NULL,
    planned TEXT NOT NULL);
CREATE TABLE games (
    round INTEGER NOT NULL, fixture_id TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (round, fixture_id));
"""
ACTIVE, RETIRED, REFUSED = "active", "retired", "refused"
CHANGED = "changed"  # its files changed after it was submitted: seated no more
PLANNED, PLAYED = "planned", "played"
ABANDONED = "abandoned"  # planned, but a version it seats changed: never counted
_VERSION_STATUSES = frozenset({ACTIVE, RETIRED, REFUSED, CHANGED})
# arena.toml's [limits] and [resources] take a tournament file's keys and bounds
# (TIME_BOUNDS, RESOURCE_BOUNDS), "unlimited" for no resource limit.


@dataclass(frozen=True)
class Settings:
    game: str
    table_size: int
    placement: int = DEFAULT_PLACEMENT
    time_limits: TimeLimits = TimeLimits()
    options: tuple[tuple[str, Any], ...] = ()  # the game's variants, as in a tournament file
    resource_limits: ResourceLimits = ResourceLimits()


_VERSION_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str, "version": int, "command": str, "folder": (str, type(None)),
    "sha256": str, "status": str, "report": str, "submitted": str}


@dataclass(frozen=True)
class Version:
    name: str
    version: int
    command: str
    folder: str | None
    sha256: str
    status: str
    report: str
    submitted: str

    @property
    def label(self) -> str:
        """How the version is named at tables, in logs and in ratings: NAME@vN."""
        return version_label(self.name, self.version)

    @property
    def command_line_sha256(self) -> str:
        """The sha256 of the command line it runs: two versions of one script with other
        arguments (`--mistakes 0.3`, `--mistakes 0.1`) differ here, where `sha256`, their
        files', is the same. Worked out from the stored command rather than stored, so
        every arena.db has it, and kept apart from `sha256`, which `arena run` compares
        with the files to set a changed version aside: arguments are not files."""
        return hash_command_line(str(self.command), None if self.folder is None else
                                 f"{SUBMISSIONS}/{self.name}/v{self.version}")


def version_label(name: str, version: int) -> str:
    return f"{name}@v{version}"


def hash_command_line(command: str, own_folder: str | None) -> str:
    """sha256 of `command`, with the path of the version's own folder (ending in
    `own_folder`, submissions/NAME/vN) written as `.`: the same --cmd in two versions
    submitted with --dir hashes the same, wherever the arena is."""
    if own_folder is not None:
        path = r"(?:[^\s'\"]*/)?" + re.escape(own_folder) + r"(?=[/\s'\"]|$)"
        command = re.sub(path, ".", command)
    return hashlib.sha256(command.encode()).hexdigest()


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[tuple[str, ...], ...]  # the version labels at each table
    status: str


def init(folder: Path, settings: Settings) -> None:
    """Make a new arena in `folder`; ConfigError for an existing one or bad settings."""
    _check_table(settings, "", "--placement")
    if (folder / SETTINGS).exists() or (folder / DB).exists():
        raise ConfigError(f"{folder} holds an arena already")
    (folder / SUBMISSIONS).mkdir(parents=True, exist_ok=True)
    (folder / ROUNDS).mkdir(exist_ok=True)
    (folder / SETTINGS).write_text(settings_toml(settings))
    with closing(sqlite3.connect(folder / DB)) as db, db:
        db.executescript(_SCHEMA)


def _check_table(settings: Settings, table_size: str, placement: str) -> None:
    """ConfigError for settings `arena init` refuses: a game that ranks nobody, a table
    its game cannot seat (said after `table_size`, if any), a negative `placement`
    (named so)."""
    game = lookup(settings.game)
    if game.contest is not Contest.COMPETITIVE:
        raise ConfigError(f"{game.title} is {game.contest}: an arena ranks competitive "
                          "games only")
    try:
        game.check_players(settings.table_size)
    except ConfigError as error:
        if not table_size:
            raise
        raise ConfigError(f"{table_size}: {error}") from None
    if settings.placement < 0:
        raise ConfigError(f"{placement} must be 0 or more, not {settings.placement}")


def settings_toml(settings: Settings) -> str:
    """arena.toml's text: every setting written out, defaults too, so that an organiser
    sees what the arena plays under (and `load` reads it back as the same settings)."""
    limits, resources = settings.time_limits, settings.resource_limits
    lines = [f"game = {_toml(settings.game)}", f"table_size = {settings.table_size}",
             f"placement = {settings.placement}", "", "[limits]",
             *(f"{key} = {getattr(limits, key)}" for key in TIME_BOUNDS),
             f"clock = {_toml(limits.clock.value)}", "", "[resources]",
             *(f"{key} = {_toml(getattr(resources, key))}" for key in RESOURCE_BOUNDS)]
    if settings.options:
        lines += ["", "[options]", *(f"{name} = {_toml(value)}"
                                     for name, value in settings.options)]
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    """A TOML value: JSON's strings and numbers are TOML's; None is "unlimited"."""
    if value is None:
        return '"unlimited"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(str(value) if isinstance(value, Path) else value,
                      ensure_ascii=False)


def load(folder: Path) -> Settings:
    """The settings of the arena in `folder`; ConfigError if there is none."""
    try:
        data = tomllib.loads((folder / SETTINGS).read_text())
        limits = _limits(data.get("limits", {}))
        game = str(data["game"])
        settings = Settings(game, _whole(data, "table_size", None),
                            _whole(data, "placement", DEFAULT_PLACEMENT), limits,
                            _options(game, data.get("options", {})),
                            _resources(data.get("resources", {})))
    except OptionError as error:  # a game's words for its options, as a check says them
        raise ConfigError(f"the arena's settings ({SETTINGS}): {error}") from None
    except KeyError as error:
        raise ConfigError(f"{folder} is no arena (its {SETTINGS} has no "
                          f"{error.args[0]})") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, ValueError,
            TypeError, AttributeError, ConfigError) as error:
        raise ConfigError(f"{folder} is no arena (its {SETTINGS}: {error})") from None
    try:  # what init would refuse, as an organiser's edit may have written it
        _check_table(settings, f"table_size = {settings.table_size}", "placement")
    except ConfigError as error:
        raise ConfigError(f"the arena's settings ({SETTINGS}): {error}") from None
    return settings


def _whole(data: dict[str, Any], key: str, default: int | None) -> int:
    """A whole-number setting, taken as written: 2.5, 1e400 or true is no table size
    (int() read them as 2, an OverflowError and 1). KeyError if missing, with no default."""
    value = data[key] if default is None else data.get(key, default)
    if type(value) is not int:
        raise ValueError(f"{key} must be a whole number, not {printable(repr(value))}")
    return value


def _options(game: str, table: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """arena.toml's [options], as `arena init` takes them (a list of choices as a tuple),
    checked by the game as a tournament file's are: ValueError or ConfigError naming
    what is wrong, so that every arena command refuses them in one line."""
    if not isinstance(table, dict):
        raise ValueError("[options] must be a table")
    options = tuple(sorted((name, tuple(value) if isinstance(value, list) else value)
                           for name, value in table.items()))
    definition = lookup(game)
    choices = {o.name for o in definition.options if o.kind is OptionKind.CHOICES}
    for name, value in options:
        if name in choices and not (isinstance(value, tuple)
                                    and all(isinstance(item, str) for item in value)):
            raise ValueError(f"[options] {name} must be a list of words, not {value!r}")
    definition.check_options(Options.of(definition, dict(options)))
    return options


def _limits(table: dict[str, Any]) -> TimeLimits:
    """arena.toml's [limits]: the time limits of `referee tournament`, in seconds."""
    unknown = set(table) - {*TIME_BOUNDS, "clock"}
    if unknown:
        raise ValueError(f"[limits] has no {', '.join(sorted(unknown))}")
    default = TimeLimits()
    return TimeLimits(startup=_seconds(table, "startup", default.startup),
                      move=_seconds(table, "move", default.move),
                      bank=_seconds(table, "bank", default.bank),
                      tolerance=_seconds(table, "tolerance", default.tolerance),
                      clock=_clock(table.get("clock", default.clock.value)))


def _clock(value: object) -> Clock:
    if value not in [clock.value for clock in Clock]:
        raise ValueError(f"[limits] clock {CLOCK_RULE}, not {value!r}")
    return Clock(value)


def _resources(table: dict[str, Any]) -> ResourceLimits:
    """arena.toml's [resources], within the bounds `referee tournament` takes."""
    unknown = set(table) - set(RESOURCE_BOUNDS)
    if unknown:
        raise ValueError(f"[resources] has no {', '.join(sorted(unknown))}")
    values: dict[str, int | None] = {}
    for key, value in table.items():
        try:
            checked = None if value == bounds.UNLIMITED else RESOURCE_BOUNDS[key].check(value)
        except ValueError as error:
            raise ValueError(f"[resources] {key} {error}") from None
        values[key] = None if checked is None else int(checked)
    return ResourceLimits(**values)


def _seconds(table: dict[str, Any], key: str, default: float) -> float:
    """One limit within the bounds `referee tournament` takes: a negative or endless move
    time would fault every reply of every version, which would read as the bots' fault."""
    try:
        checked = TIME_BOUNDS[key].check(table.get(key, default))
    except ValueError as error:
        raise ValueError(f"[limits] {key} {error}") from None
    assert checked is not None  # no time bound allows "unlimited"
    return float(checked)


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


class ArenaDb:
    """arena.db, opened for one command. `arena submit` may write while `arena run`
    plays: each write is one short transaction, and a busy db is waited for."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.settings = load(folder)
        try:
            self._db = sqlite3.connect(folder / DB, timeout=60)
            self._db.execute("SELECT name, version, submitted FROM versions LIMIT 1")
            self._db.execute("SELECT round, tables, status FROM rounds LIMIT 1")
            self._db.execute("SELECT round, fixture_id, record FROM games LIMIT 1")
        except sqlite3.DatabaseError as error:
            raise ConfigError(f"{folder / DB} is not an arena's db ({error})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ArenaDb:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            yield self._db

    def versions(self) -> list[Version]:
        rows = self._db.execute("SELECT name, version, command, folder, sha256, status, "
                                "report, submitted FROM versions ORDER BY name, version")
        versions = [self._version(row) for row in rows]
        for version in versions:
            if version.status not in _VERSION_STATUSES:  # an edited or damaged row
                raise ConfigError(f"{self.folder / DB}: version {version.name} "
                                  f"v{version.version} has the status "
                                  f"{printable(str(version.status))[:40]!r}, which is none "
                                  f"of {', '.join(sorted(_VERSION_STATUSES))}")
        return versions

    def _version(self, row: tuple[object, ...]) -> Version:
        """A versions row, its columns of the types they are written with; ConfigError
        naming the row for another (an edited or damaged db: a command stored as bytes
        ended `arena run` in a TypeError)."""
        version = Version(*row)  # type: ignore[arg-type]  # checked below
        wrong = [key for key, kind in _VERSION_TYPES.items()
                 if not isinstance(getattr(version, key), kind)
                 or isinstance(getattr(version, key), bool)]
        if wrong:
            values = ", ".join(f"{key} {printable(repr(getattr(version, key)))[:40]}"
                               for key in wrong)
            raise ConfigError(f"{self.folder / DB}: the row of version "
                              f"{printable(str(row[0]))[:40]} v{printable(str(row[1]))[:20]}"
                              f" is damaged (its {values}: not what `arena submit` writes)")
        return version

    def active(self) -> list[Version]:
        return [version for version in self.versions() if version.status == ACTIVE]

    def add_version(self, version: Version) -> None:
        """Record `version`; an active one retires its contestant's earlier active one,
        which keeps its games and history but is seated no more."""
        with self.transaction() as db:
            if version.status == ACTIVE:
                db.execute("UPDATE versions SET status = ? WHERE name = ? AND status = ?",
                           (RETIRED, version.name, ACTIVE))
            db.execute("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (version.name, version.version, version.command, version.folder,
                        version.sha256, version.status, version.report, version.submitted))

    def set_status(self, version: Version, status: str, report: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE versions SET status = ?, report = ? WHERE name = ? AND "
                       "version = ?", (status, report, version.name, version.version))

    def next_version(self, name: str) -> int:
        (last,) = self._db.execute("SELECT COALESCE(MAX(version), 0) FROM versions "
                                   "WHERE name = ?", (name,)).fetchone()
        return int(last) + 1

    def rounds(self) -> list[Round]:
        rows = self._db.execute("SELECT round, tables, status FROM rounds ORDER BY round")
        return [Round(number, self._tables(number, tables), status)
                for number, tables, status in rows]

    def _tables(self, number: object, text: object) -> tuple[tuple[str, ...], ...]:
        """A round's tables as plan() wrote them (JSON: lists of version labels);
        ConfigError for anything else (text that was no JSON ended `arena run` and
        `arena publish` in a JSONDecodeError)."""
        try:
            tables = json.loads(text)  # type: ignore[arg-type]  # checked by the except
            if isinstance(tables, list) and all(
                    isinstance(table, list) and all(isinstance(label, str) for label in table)
                    for table in tables):
                return tuple(tuple(table) for table in tables)
        except (TypeError, ValueError, RecursionError):
            pass
        raise ConfigError(f"{self.folder / DB}: round {printable(str(number))[:20]} is "
                          "damaged (its tables are no lists of version names: "
                          f"{printable(repr(text))[:120]})")

    def plan(self, tables: Sequence[Sequence[str]]) -> Round:
        """Record the next round's tables, before any of its games is played."""
        with self.transaction() as db:
            (last,) = db.execute("SELECT COALESCE(MAX(round), 0) FROM rounds").fetchone()
            number = int(last) + 1
            db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?)",
                       (number, json.dumps([list(t) for t in tables]), PLANNED, now()))
        return Round(number, tuple(tuple(t) for t in tables), PLANNED)

    def abandon_round(self, number: int) -> None:
        """A planned round that cannot be played as planned: it is never counted."""
        with self.transaction() as db:
            db.execute("UPDATE rounds SET status = ? WHERE round = ? AND status = ?",
                       (ABANDONED, number, PLANNED))

    def count_round(self, number: int, records: Sequence[GameRecord]) -> None:
        """A round played in full: its games counted, in one transaction with its mark."""
        with self.transaction() as db:
            (status,) = db.execute("SELECT status FROM rounds WHERE round = ?",
                                   (number,)).fetchone()
            if status == PLAYED:
                return
            db.executemany("INSERT INTO games VALUES (?, ?, ?)",
                           [(number, r.fixture_id, json.dumps(r.to_json())) for r in records])
            db.execute("UPDATE rounds SET status = ? WHERE round = ?", (PLAYED, number))

    def games(self, after_round: int = 0) -> Iterator[tuple[int, GameRecord]]:
        """The counted games after round `after_round`, in the order they are rated: by
        round, then fixture id."""
        rows = self._db.execute("SELECT round, record FROM games WHERE round > ? "
                                "ORDER BY round, fixture_id", (after_round,))
        for number, text in rows:
            try:
                record = GameRecord.from_json(json.loads(text))
                problem = counted_problem(record)
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                problem = f"{type(error).__name__}: {error}"
            if problem is not None:
                raise ConfigError(f"{self.folder / DB}: a game of round {number} is "
                                  f"damaged ({problem:.200})")
            yield number, record


def counted_problem(record: GameRecord) -> str | None:
    """What is wrong with a counted game as arena.db holds it, or None: the shape the
    leaderboard reads (an arena's table seats distinct versions)."""
    bots = record.bots
    if not isinstance(record.fixture_id, str) or record.fixture_id.count("/") < 2:
        return f"fixture id {record.fixture_id!r}"
    if not (isinstance(bots, tuple) and len(set(bots)) == len(bots) >= 2
            and all(isinstance(bot, str) for bot in bots)):
        return f"bots {bots!r}"
    for name in ("scores", "places"):
        values = getattr(record, name)
        if not (isinstance(values, tuple) and len(values) == len(bots)
                and all(type(value) is int for value in values)):
            return f"{name} {values!r}"
    if not all(type(fault.seat) is int and 0 <= fault.seat < len(bots)
               for fault in record.faults):
        return f"faults {record.faults!r}"
    return None


def round_title(folder: Path, number: int) -> str:
    """A round's name on its pages: "cup, arena round 3". "Round" alone would read as a
    Rage round, the deal of a few tricks inside each game, which its replays show. The
    arena's name is shortened to keep the title within a tournament title's length."""
    tail = f", arena round {number}"
    name = printable(folder.resolve().name)  # a title is printable, on one line
    room = MAX_TITLE - len(tail)
    return (name if len(name) <= room else name[:room - 1] + "\u2026") + tail


def round_db(folder: Path, number: int) -> Path:
    """Where round `number`'s results db is: `referee results`, `show` and `view` read it."""
    return folder / ROUNDS / f"round-{number:06d}.sqlite"
