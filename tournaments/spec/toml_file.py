"""Tournament files: read a TOML file, check it key by key, and build the spec.

Any problem is one ConfigError naming the file, the key and its line. The file format is
documented in `tournaments/examples/*.toml`. A game's own keys are its options
(referee.registry) and its size key (table_size or team_size).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, NoReturn

from referee.errors import ConfigError
from referee.matches.game import GameOption, OptionKind
from referee.registry import games
from referee.registry.games import AnyGame
from referee.settings import ResourceLimits, TimeLimits
from protocols.clock import Clock
from referee.toml_text import parse_toml, read_text
from referee.bot_names import normal_name
from tournaments.spec.file_paths import NotFromFile, command_from_file, path_from_file
from tournaments.spec.definition import (
    CLOCK_RULE, SIZE_KEY, BotEntry, SpecError, TournamentSpec,
)
from tournaments.spec.settle_rule import SettleRule
from tournaments.spec.toml_lines import TomlLines

_COMMON_KEYS = {"name", "game", "bots", "deals", "seed", "limits", "resources", "fresh_bots",
                "faults", "settle"}
_BOT_KEYS = {"name", "command", "role", "dir"}
_ROLES = ("candidate", "reference")
_LIMIT_KEYS = tuple(item.name for item in fields(TimeLimits))
_RESOURCE_KEYS = tuple(item.name for item in fields(ResourceLimits))
_FAULT_KEYS = ("disqualify_after",)
_SETTLE_KEYS = ("confidence", "top")
_SYNTAX_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_tournament_file(path: str | Path) -> TournamentSpec:
    """Read a tournament TOML file; any problem is a ConfigError naming file, key and line."""
    path = Path(path)
    text = read_text(path, "tournament file")
    try:
        data = parse_toml(text, str(path))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_syntax_message(path, text, str(error))) from None
    return _FileReader(path, text).spec(data)


def game_keys(game: AnyGame) -> set[str]:
    """The keys a file of this game may set beyond the common ones."""
    return {SIZE_KEY[game.contest]} | {option.name for option in game.options}


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


class _FileReader:
    """Checks a parsed tournament file key by key and builds the spec."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = TomlLines(text)

    def spec(self, data: dict[str, Any]) -> TournamentSpec:
        game = self._game(data)
        self._no_unknown(data, _COMMON_KEYS | game_keys(game), None, None, game)
        try:
            return TournamentSpec.create(
                game, self._bots(data),
                deals=self._int(data, "deals", 1), seed=self._int(data, "seed", 0),
                size=self._optional_int(data, SIZE_KEY[game.contest]),
                time_limits=self._limits(data), resource_limits=self._resources(data),
                options={option.name: self._option(data, option) for option in game.options
                         if option.name in data},
                fresh_bots=self._bool(data, "fresh_bots"),
                disqualify_after=self._disqualify_after(data), title=self._title(data),
                settle=self._settle(data))
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
                    name: str | None, bot: int | None, game: AnyGame | None = None) -> None:
        for key in table:
            if key in known:
                continue
            other = [g for g in games.names()
                     if game is not None and key in game_keys(games.lookup(g))]
            hint = (f"it applies to {other[0]} tournaments, not {game.name}"
                    if other and game is not None
                    else f"known keys: {', '.join(sorted(known))}")
            self._fail(f"unknown key '{key}' in the {_table_name(name, bot)} table ({hint})",
                       key, name, bot)

    def _title(self, data: dict[str, Any]) -> str | None:
        """`name = "..."`: the tournament's name, shown on every page."""
        value = data.get("name")
        if value is not None and not isinstance(value, str):
            self._fail(f"'name' (the tournament's) must be a string, not {value!r}", "name")
        return value

    def _game(self, data: dict[str, Any]) -> AnyGame:
        if "game" not in data:
            self._missing("game", None, None)
        value = data["game"]
        if not isinstance(value, str) or value not in games.names():
            known = " or ".join(f'"{name}"' for name in games.names())
            self._fail(f"'game' must be {known}, not {value!r}", "game")
        return games.lookup(value)

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
        role = entry.get("role", "candidate")
        if role not in _ROLES:
            self._fail(f"bot 'role' must be \"candidate\" or \"reference\", not "
                       f"{_describe(role)}", "role", "bots", index)
        try:
            command = command_from_file(values[1], self.path.parent, Path.cwd())
        except NotFromFile as error:
            self._fail(f"bot 'command': {error}", "command", "bots", index)
        return BotEntry(normal_name(values[0]), command, reference=role == "reference",
                        dir=self._bot_dir(entry, index))

    def _bot_dir(self, entry: dict[str, Any], index: int) -> str | None:
        """`dir`: the bot's folder, relative to the file's folder like its command."""
        value = entry.get("dir")
        if value is None:
            return None
        if not isinstance(value, str):
            self._fail(f"bot 'dir' must be a folder path, not {_describe(value)}", "dir",
                       "bots", index)
        try:
            value = path_from_file(value, self.path.parent, Path.cwd())
        except NotFromFile as error:
            self._fail(f"bot 'dir': {error}", "dir", "bots", index)
        if not Path(value).is_dir():
            self._fail(f"bot 'dir' {value!r} is not a folder (it is read, like the "
                       "command, from the tournament file's folder)", "dir", "bots", index)
        return value

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

    def _option(self, data: dict[str, Any], option: GameOption) -> Any:
        if option.kind is OptionKind.FLAG:
            return self._bool(data, option.name)
        if option.kind is OptionKind.CHOICES:
            return self._words(data, option.name)
        return self._file(data, option.name)

    def _words(self, data: dict[str, Any], key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
            self._fail(f"'{key}' must be a list of words, not {_describe(value)}", key)
        return tuple(value)

    def _file(self, data: dict[str, Any], key: str) -> Path | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self._fail(f"'{key}' must be a file path, not {_describe(value)}", key)
        path = self.path.parent / value  # relative to the tournament file
        if not path.is_file():
            self._fail(f"the file {path} given as '{key}' does not exist", key)
        return path

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

    def _disqualify_after(self, data: dict[str, Any]) -> int | None:
        value = self._subtable(data, "faults", _FAULT_KEYS).get("disqualify_after")
        if value is not None and type(value) is not int:
            self._fail(f"'disqualify_after' must be a whole number of faulted games, not "
                       f"{_describe(value)}", "disqualify_after", "faults")
        return value

    def _settle(self, data: dict[str, Any]) -> SettleRule | None:
        """A [settle] table, even empty, is --until-settled: its confidence (default
        0.95) and its top."""
        if "settle" not in data:
            return None
        table = self._subtable(data, "settle", _SETTLE_KEYS)
        confidence, top = table.get("confidence", 0.95), table.get("top")
        if type(confidence) not in (int, float):
            self._fail(f"'confidence' must be a number, not {_describe(confidence)}",
                       "confidence", "settle")
        if top is not None and type(top) is not int:
            self._fail(f"'top' must be a whole number of bots, not {_describe(top)}", "top",
                       "settle")
        return SettleRule(float(confidence), top)

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
