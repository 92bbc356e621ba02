"""What defines a tournament: the spec, its fingerprint, and loading it from a TOML file.

Validation lives in one place, `TournamentSpec.__post_init__`, which raises `SpecError`
naming the offending key; the file loader turns that into a ConfigError with the file and
line. The file format is documented in `tournaments/examples/*.toml`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NoReturn

from referee import bounds
from referee.bounds import Bound
from referee.errors import ConfigError
from referee.settings import Clock, ResourceLimits, TimeLimits
from referee.toml_text import parse_toml

RAGE_VARIANTS = ("plus-minus-one", "hidden-bid", "secret-bid", "durchmarsch")
# --clock on the command line offers the same words.
CLOCK_RULE = "must be " + " or ".join(f'"{clock.value}"' for clock in Clock)
_TIME_BOUNDS = {"startup": bounds.STARTUP_SECONDS, "move": bounds.MOVE_SECONDS,
                "bank": bounds.BANK_SECONDS, "tolerance": bounds.TOLERANCE_SECONDS}
_RESOURCE_BOUNDS = {"memory_mb": bounds.MEMORY_MIB, "cpu_seconds": bounds.CPU_SECONDS,
                    "processes": bounds.PROCESSES}
# Bot names appear in tables and in team names joined by '+', so '+' is not allowed.
BOT_NAME = re.compile(r"[A-Za-z0-9._-]{1,40}")


class Game(enum.StrEnum):
    """The games a tournament can be played in; the value is the word used everywhere."""

    RAGE = "rage"
    THEGAME = "thegame"


class SpecError(ConfigError):
    """A bad value in a tournament definition: `key` names the setting, `bot` the index
    of its [[bots]] entry, `table` its sub-table ("limits", "resources")."""

    def __init__(self, key: str, message: str, bot: int | None = None,
                 table: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.bot = bot
        self.table = table


@dataclass(frozen=True)
class BotEntry:
    """A contestant: a unique name and the command that starts it."""

    name: str
    command: str


def default_table_size(n_bots: int) -> int:
    """Rage: 4 seats, or as many as there are bots if fewer, but at least 3."""
    return max(3, min(4, n_bots))


def default_team_size(n_bots: int) -> int:
    """The Game: teams of 2 when there are 2 or more bots (solo deals are always played too)."""
    return 2 if n_bots >= 2 else 1


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that defines a tournament's results, plus how bots are run (fresh_bots).

    Build it with `TournamentSpec.create` to get the default sizes.
    """

    game: Game
    bots: tuple[BotEntry, ...]
    table_size: int  # Rage only
    team_size: int  # The Game only
    deals: int
    seed: int
    time_limits: TimeLimits = field(default_factory=TimeLimits)
    resource_limits: ResourceLimits = field(default_factory=ResourceLimits)
    variants: tuple[str, ...] = ()  # Rage only; Variant values of referee.games.rage
    no_commands: bool = False  # The Game only: the original game, no command cards
    commands: Path | None = None  # The Game only: a command mapping file; None = default
    fresh_bots: bool = False  # start new bot processes for every game

    @classmethod
    def create(cls, game: Game, bots: tuple[BotEntry, ...], *, deals: int = 1,
               seed: int = 0, table_size: int | None = None, team_size: int | None = None,
               time_limits: TimeLimits | None = None,
               resource_limits: ResourceLimits | None = None,
               variants: tuple[str, ...] = (), no_commands: bool = False,
               commands: Path | None = None, fresh_bots: bool = False) -> TournamentSpec:
        """A validated spec; sizes left as None get their defaults."""
        return cls(
            game=game, bots=bots,
            table_size=default_table_size(len(bots)) if table_size is None else table_size,
            team_size=default_team_size(len(bots)) if team_size is None else team_size,
            deals=deals, seed=seed, time_limits=time_limits or TimeLimits(),
            resource_limits=resource_limits or ResourceLimits(),
            variants=tuple(sorted(set(variants))),
            no_commands=no_commands, commands=commands, fresh_bots=fresh_bots)

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise SpecError("game", f"'game' must be one of {', '.join(Game)}, "
                                    f"not {self.game!r}")
        _check_bots(self.game, self.bots)
        _check_number("deals", self.deals, bounds.DEALS)
        _check_number("seed", self.seed, bounds.SEED)
        if self.game is Game.RAGE:
            _check_number("table_size", self.table_size, bounds.TABLE_SIZE)
            _check_variants(self.variants)
        else:
            _check_number("team_size", self.team_size, bounds.TEAM_SIZE)
            if self.variants:
                raise SpecError("variants", "'variants' applies to Rage only")
            if self.no_commands and self.commands is not None:
                raise SpecError("commands", "'commands' cannot be combined with "
                                            "'no_commands = true'")
        _check_limits(self.time_limits)
        _check_resources(self.resource_limits)
        _check_games(self)

    @property
    def games(self) -> int:
        """How many games the schedule holds, counted without building it."""
        return game_count(self.game, len(self.bots), self.table_size, self.team_size,
                          self.deals)

    @property
    def bot_names(self) -> tuple[str, ...]:
        """Names in entry order; bot index i in a fixture is bot_names[i]."""
        return tuple(bot.name for bot in self.bots)

    def definition(self) -> dict[str, object]:
        """What defines the results; not jobs, db path, output format, fresh_bots."""
        data: dict[str, object] = {
            "game": self.game.value,
            "bots": [{"name": bot.name, "command": bot.command} for bot in self.bots],
            "deals": self.deals, "seed": self.seed,
            "limits": self.time_limits.to_json(),
            "resources": self.resource_limits.to_json(),
        }
        if self.game is Game.RAGE:
            data |= {"table_size": self.table_size, "variants": sorted(set(self.variants))}
        else:
            data |= {"team_size": self.team_size, "commands": self._commands_identity()}
        return data

    def fingerprint(self) -> str:
        """sha256 hex of the canonical JSON of `definition()`."""
        return hashlib.sha256(canonical_json(self.definition()).encode()).hexdigest()

    def to_json(self) -> dict[str, object]:
        """Every field, for storing beside the results; `spec_from_json` inverts it."""
        return {
            "game": self.game.value,
            "bots": [{"name": bot.name, "command": bot.command} for bot in self.bots],
            "table_size": self.table_size, "team_size": self.team_size,
            "deals": self.deals, "seed": self.seed,
            "limits": self.time_limits.to_json(), "resources": self.resource_limits.to_json(),
            "variants": list(self.variants), "no_commands": self.no_commands,
            "commands": None if self.commands is None else str(self.commands),
            "fresh_bots": self.fresh_bots,
        }

    def _commands_identity(self) -> object:
        # The mapping's content defines the results, not where the file lies.
        if self.no_commands:
            return "none"
        if self.commands is None:
            return "default"
        try:
            return {"sha256": hashlib.sha256(self.commands.read_bytes()).hexdigest()}
        except OSError as error:
            raise ConfigError(f"cannot read the command mapping {self.commands}: "
                              f"{error.strerror}") from error


def spec_from_json(data: dict[str, Any]) -> TournamentSpec:
    """Rebuild a spec from `TournamentSpec.to_json` output."""
    return TournamentSpec(
        game=Game(data["game"]),
        bots=tuple(BotEntry(bot["name"], bot["command"]) for bot in data["bots"]),
        table_size=data["table_size"], team_size=data["team_size"],
        deals=data["deals"], seed=data["seed"],
        time_limits=TimeLimits.from_json(data["limits"]),
        resource_limits=ResourceLimits(**data["resources"]),
        variants=tuple(data["variants"]), no_commands=data["no_commands"],
        commands=None if data["commands"] is None else Path(data["commands"]),
        fresh_bots=data["fresh_bots"])


def canonical_json(data: object) -> str:
    """Sorted keys, no whitespace: equal data gives equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def group_count(n_bots: int, size: int) -> int:
    """len(schedule.groups(n_bots, size)), without listing them: the combinations of
    `size` bots, or with fewer bots than places the multisets holding each bot."""
    if n_bots >= size:
        return math.comb(n_bots, size)
    return math.comb(size - 1, n_bots - 1) if n_bots >= 1 else 0


def game_count(game: Game, n_bots: int, table_size: int, team_size: int, deals: int) -> int:
    """len(schedule.fixtures_for(spec, secret)), without building them."""
    if game is Game.RAGE:
        return group_count(n_bots, table_size) * table_size * deals
    teams = group_count(n_bots, team_size) if team_size >= 2 else 0
    return (n_bots + teams) * deals


def _check_number(key: str, value: object, bound: Bound, table: str | None = None,
                  label: str = "") -> None:
    try:
        bound.check(value)
    except ValueError as error:
        raise SpecError(key, f"{label}'{key}' {error}", table=table) from None


def _check_games(spec: TournamentSpec) -> None:
    games = spec.games
    if games > bounds.MAX_GAMES:
        raise SpecError("deals", f"this tournament would be {games:,} games; at most "
                                 f"{bounds.MAX_GAMES:,} are allowed (fewer deals, bots or a "
                                 "smaller table or team size)")


def _check_bots(game: Game, bots: tuple[BotEntry, ...]) -> None:
    least = 2 if game is Game.RAGE else 1
    if len(bots) < least:
        raise SpecError("bots", f"a {game.value} tournament needs at least {least} bot"
                                f"{'s' if least > 1 else ''}, not {len(bots)}")
    seen: set[str] = set()
    for index, bot in enumerate(bots):
        if not BOT_NAME.fullmatch(bot.name):
            raise SpecError("name", f"bot name {bot.name!r} must be 1-40 characters of "
                                    "A-Z a-z 0-9 . _ - ('+' joins team names)", index)
        if bot.name in seen:
            raise SpecError("name", f"bot name {bot.name!r} is used twice; names must be "
                                    "unique", index)
        if not bot.command.strip():
            raise SpecError("command", f"bot {bot.name!r} has an empty command", index)
        seen.add(bot.name)


def _check_variants(variants: tuple[str, ...]) -> None:
    for word in variants:
        if word not in RAGE_VARIANTS:
            raise SpecError("variants", f"unknown Rage variant {word!r} (known: "
                                        f"{', '.join(RAGE_VARIANTS)})")
    chosen = set(variants)
    if "plus-minus-one" in chosen and chosen & {"hidden-bid", "secret-bid"}:  # ruling R10
        raise SpecError("variants", "plus-minus-one cannot be combined with hidden-bid or "
                                    "secret-bid (ruling R10)")
    if {"hidden-bid", "secret-bid"} <= chosen:
        raise SpecError("variants", "hidden-bid and secret-bid cannot be combined: they "
                                    "reveal the bids at different moments")


def _check_limits(limits: TimeLimits) -> None:
    for key, bound in _TIME_BOUNDS.items():
        _check_number(key, getattr(limits, key), bound, "limits", "time limit ")
    if not isinstance(limits.clock, Clock):
        raise SpecError("clock", f"time limit 'clock' {CLOCK_RULE}, not {limits.clock!r}",
                        table="limits")


def _check_resources(limits: ResourceLimits) -> None:
    for key, bound in _RESOURCE_BOUNDS.items():
        _check_number(key, getattr(limits, key), bound, "resources", "resource limit ")


# ---------------------------------------------------------------- tournament files

_COMMON_KEYS = {"game", "bots", "deals", "seed", "limits", "resources", "fresh_bots"}
_GAME_KEYS = {Game.RAGE: {"table_size", "variants"},
              Game.THEGAME: {"team_size", "no_commands", "commands"}}
_BOT_KEYS = {"name", "command"}
_LIMIT_KEYS = tuple(item.name for item in fields(TimeLimits))
_RESOURCE_KEYS = tuple(item.name for item in fields(ResourceLimits))
_HEADER = re.compile(r"\s*(\[\[?)\s*([^\]\s]+)\s*\]")
_SYNTAX_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_tournament_file(path: str | Path) -> TournamentSpec:
    """Read a tournament TOML file; any problem is a ConfigError naming file, key and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read tournament file {path}: {error}.") from None
    try:
        data = parse_toml(text, str(path))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_syntax_message(path, text, str(error))) from None
    return _FileReader(path, text).spec(data)


def _syntax_message(path: Path, text: str, message: str) -> str:
    where = _SYNTAX_AT.search(message)
    if where is None:
        last = len(text.splitlines())  # "at end of document"
        return f"{path}, line {last}: TOML syntax error: {message}."
    line_no = int(where.group(1))
    lines = text.splitlines()
    shown = lines[line_no - 1].strip() if line_no <= len(lines) else ""
    reason = message[:where.start()].strip()
    return (f"{path}, line {line_no}, column {where.group(2)}: TOML syntax error "
            f"({reason}) in `{shown}`.")


class _TomlLines:
    """Finds the line a table or key was written on, by scanning the text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        # (table name, 0-based index among its [[array]] headers, first line, last line)
        self.sections: list[tuple[str | None, int, int, int]] = []
        starts: list[tuple[str | None, int, int]] = [(None, 0, 1)]
        counts: dict[str, int] = {}
        for number, line in enumerate(self.lines, start=1):
            header = _HEADER.match(line)
            if header:
                name = header.group(2).strip("\"'")
                starts.append((name, counts.get(name, 0), number))
                counts[name] = counts.get(name, 0) + 1
        ends = [start for _, _, start in starts[1:]] + [len(self.lines) + 1]
        for (name, index, start), end in zip(starts, ends):
            self.sections.append((name, index, start, end - 1))

    def table_start(self, table: str | None, bot: int | None) -> int | None:
        """The header line of a table (1 for the top level), or None if written inline."""
        section = self._section(table, bot)
        return None if section is None else section[2]

    def key_line(self, key: str, table: str | None, bot: int | None) -> int:
        """The line where `key` is set in that table, or the best nearby line."""
        header = self.table_start(key, 0) if table is None else None
        if header is not None:  # the key names a table, e.g. [limits] or [[bots]]
            return header
        section = self._section(table, bot)
        if section is not None:
            found = self._search(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", section[2],
                                 section[3])
            if found is not None:
                return found
        dotted = key if table is None else f"{table}.{key}"
        found = self._search(rf"\s*{re.escape(dotted)}\s*=", 1, len(self.lines))
        if found is not None:
            return found
        inline = self._nth_match(rf"(^|[{{,\s])[\"']?{re.escape(key)}[\"']?\s*=", bot or 0)
        if inline is not None:
            return inline
        return section[2] if section is not None else self._outer_line(table)

    def _outer_line(self, table: str | None) -> int:
        if table is None:
            return 1
        return self.table_start(table, 0) or self.key_line(table, None, None)

    def _section(self, table: str | None, bot: int | None) -> tuple[str | None, int, int,
                                                                      int] | None:
        for section in self.sections:
            if section[0] == table and section[1] == (bot or 0):
                return section
        return None

    def _search(self, pattern: str, first: int, last: int) -> int | None:
        compiled = re.compile(pattern)
        for number in range(first, last + 1):
            if compiled.match(self.lines[number - 1]):
                return number
        return None

    def _nth_match(self, pattern: str, nth: int) -> int | None:
        compiled = re.compile(pattern)
        hits = [number for number, line in enumerate(self.lines, start=1)
                if compiled.search(line)]
        return hits[nth] if nth < len(hits) else None


class _FileReader:
    """Checks a parsed tournament file key by key and builds the spec."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = _TomlLines(text)

    def spec(self, data: dict[str, Any]) -> TournamentSpec:
        game = self._game(data)
        self._no_unknown(data, _COMMON_KEYS | _GAME_KEYS[game], None, None, game)
        try:
            return TournamentSpec.create(
                game, self._bots(data),
                deals=self._int(data, "deals", 1), seed=self._int(data, "seed", 0),
                table_size=self._optional_int(data, "table_size"),
                team_size=self._optional_int(data, "team_size"),
                time_limits=self._limits(data), resource_limits=self._resources(data),
                variants=self._variants(data),
                no_commands=self._bool(data, "no_commands"),
                commands=self._commands(data), fresh_bots=self._bool(data, "fresh_bots"))
        except SpecError as error:
            table = "bots" if error.bot is not None else error.table
            self._fail(str(error), error.key, table, error.bot)

    def _fail(self, message: str, key: str, table: str | None = None,
              bot: int | None = None) -> NoReturn:
        line = self.lines.key_line(key, table, bot)
        raise ConfigError(f"{self.path}, line {line}: {message}.")

    def _missing(self, key: str, table: str | None, bot: int | None) -> NoReturn:
        if table is None:
            raise ConfigError(f"{self.path}: the top-level table (starting on line 1) lacks "
                              f"the required key '{key}'.")
        start = self.lines.table_start(table, bot) or self.lines.key_line(table, None, None)
        raise ConfigError(f"{self.path}: the {_table_name(table, bot)} table (starting on "
                          f"line {start}) lacks the required key '{key}'.")

    def _no_unknown(self, table: dict[str, Any], known: set[str] | tuple[str, ...],
                    name: str | None, bot: int | None, game: Game | None = None) -> None:
        for key in table:
            if key in known:
                continue
            other = [g.value for g in Game if game is not None and key in _GAME_KEYS[g]]
            hint = (f"it applies to {other[0]} tournaments, not {game}" if other
                    else f"known keys: {', '.join(sorted(known))}")
            self._fail(f"unknown key '{key}' in the {_table_name(name, bot)} table ({hint})",
                       key, name, bot)

    def _game(self, data: dict[str, Any]) -> Game:
        if "game" not in data:
            self._missing("game", None, None)
        value = data["game"]
        if value not in [game.value for game in Game]:
            self._fail(f"'game' must be \"rage\" or \"thegame\", not {value!r}", "game")
        return Game(value)

    def _bots(self, data: dict[str, Any]) -> tuple[BotEntry, ...]:
        if "bots" not in data:
            self._missing("bots", None, None)
        entries = data["bots"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self._fail("'bots' must be an array of tables ([[bots]] with name and command)",
                       "bots")
        return tuple(self._bot(entry, index) for index, entry in enumerate(entries))

    def _bot(self, entry: dict[str, Any], index: int) -> BotEntry:
        self._no_unknown(entry, _BOT_KEYS, "bots", index)
        values: list[str] = []
        for key in ("name", "command"):
            if key not in entry:
                self._missing(key, "bots", index)
            if not isinstance(entry[key], str):
                self._fail(f"bot '{key}' must be a string, not {_describe(entry[key])}",
                           key, "bots", index)
            values.append(entry[key])
        return BotEntry(values[0], values[1])

    def _int(self, data: dict[str, Any], key: str, default: int) -> int:
        value = self._optional_int(data, key)
        return default if value is None else value

    def _optional_int(self, data: dict[str, Any], key: str) -> int | None:
        value = data.get(key)
        if value is not None and type(value) is not int:
            self._fail(f"'{key}' must be an integer, not {_describe(value)}", key)
        return value

    def _bool(self, data: dict[str, Any], key: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            self._fail(f"'{key}' must be true or false, not {_describe(value)}", key)
        return value

    def _variants(self, data: dict[str, Any]) -> tuple[str, ...]:
        value = data.get("variants", [])
        if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
            self._fail(f"'variants' must be a list of words, not {_describe(value)}",
                       "variants")
        return tuple(value)

    def _commands(self, data: dict[str, Any]) -> Path | None:
        value = data.get("commands")
        if value is None:
            return None
        if not isinstance(value, str):
            self._fail(f"'commands' must be a file path, not {_describe(value)}", "commands")
        mapping = self.path.parent / value  # relative to the tournament file
        if not mapping.is_file():
            self._fail(f"the command mapping file {mapping} does not exist", "commands")
        return mapping

    def _subtable(self, data: dict[str, Any], key: str,
                  known: tuple[str, ...]) -> dict[str, Any]:
        table = data.get(key, {})
        if not isinstance(table, dict):
            self._fail(f"'{key}' must be a table ([{key}]), not {_describe(table)}", key)
        self._no_unknown(table, known, key, None)
        return table

    def _limits(self, data: dict[str, Any]) -> TimeLimits:
        table = self._subtable(data, "limits", _LIMIT_KEYS)
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key == "clock":
                values[key] = self._clock(value)
            elif type(value) not in (int, float):
                self._fail(f"time limit '{key}' must be a number of seconds, not "
                           f"{_describe(value)}", key, "limits")
            else:
                values[key] = float(value)
        return TimeLimits(**values)

    def _clock(self, value: object) -> Clock:
        if value not in [clock.value for clock in Clock]:
            self._fail(f"time limit 'clock' {CLOCK_RULE}, not {_describe(value)}", "clock",
                       "limits")
        return Clock(value)

    def _resources(self, data: dict[str, Any]) -> ResourceLimits:
        table = self._subtable(data, "resources", _RESOURCE_KEYS)
        values: dict[str, int | None] = {}
        for key, value in table.items():
            if value != "unlimited" and type(value) is not int:
                self._fail(f"resource limit '{key}' must be an integer or \"unlimited\", not "
                           f"{_describe(value)}", key, "resources")
            values[key] = None if value == "unlimited" else value
        return ResourceLimits(**values)


def _table_name(table: str | None, bot: int | None) -> str:
    if table is None:
        return "top-level"
    return f"[{table}]" if bot is None else f"[[{table}]] number {bot + 1}"


def _describe(value: object) -> str:
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a table"}
    return f"{kinds.get(type(value), type(value).__name__)} ({value!r})"
