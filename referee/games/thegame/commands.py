"""The Game Extreme's commands as data: the enum, the card mapping, loading and validating it."""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from referee.errors import ConfigError
from referee.toml_text import parse_toml, read_text

LOWEST_CARD = 2
HIGHEST_CARD = 99
CARDS_PER_COMMAND = 4
DEFAULT_COMMANDS_RESOURCE = "default_commands.toml"


class Command(enum.Enum):
    """A command printed on a number card. The value is its wire name."""

    STOP = "stop"
    SKULL = "skull"
    THREE = "three"  # the "3!" card
    NO_TALKING = "notalk"
    NO_REVERSE = "noreverse"
    ONE_PILE = "onepile"
    DRAW_ONE = "drawone"

    @property
    def is_lightning(self) -> bool:
        """Binds only the player who plays it, only during that turn."""
        return self in _LIGHTNING

    @property
    def is_infinity(self) -> bool:
        """Binds every active player while it shows on top of a pile."""
        return self not in _LIGHTNING


_LIGHTNING = frozenset({Command.STOP, Command.SKULL, Command.THREE})
COMMAND_CARDS = CARDS_PER_COMMAND * len(Command)


@dataclass(frozen=True)
class CommandMap:
    """Which number cards carry which command. Immutable; check it with validate()."""

    by_number: Mapping[int, Command]

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_number", MappingProxyType(dict(self.by_number)))

    def __hash__(self) -> int:
        return hash(frozenset(self.by_number.items()))

    @classmethod
    def from_numbers(cls, numbers: Mapping[Command, Sequence[int]]) -> CommandMap:
        """Build from command -> its numbers; a number given twice is a ConfigError."""
        by_number: dict[int, Command] = {}
        for command, cards in numbers.items():
            for card in cards:
                if card in by_number:
                    raise ConfigError(f"number {card} is given twice "
                                      f"({by_number[card].value} and {command.value})")
                by_number[card] = command
        return cls(by_number)

    def command_of(self, card: int) -> Command | None:
        """The command on this card, or None for a plain number card."""
        return self.by_number.get(card)

    def numbers_of(self, command: Command) -> tuple[int, ...]:
        """The cards carrying this command, ascending."""
        return tuple(sorted(n for n, c in self.by_number.items() if c is command))

    def validate(self) -> None:
        """Raise ConfigError unless: 28 distinct numbers in 2..99, exactly 4 per command."""
        for card, command in sorted(self.by_number.items()):
            if not LOWEST_CARD <= card <= HIGHEST_CARD:
                raise ConfigError(f"number {card} ({command.value}) is out of range "
                                  f"{LOWEST_CARD}..{HIGHEST_CARD}")
        for command in Command:
            count = len(self.numbers_of(command))
            if count != CARDS_PER_COMMAND:
                raise ConfigError(f"command {command.value} has {count} cards, "
                                  f"needs exactly {CARDS_PER_COMMAND}")

    def to_json(self) -> dict[str, list[int]]:
        """Wire name -> its numbers, every command in enum order (the file format's content)."""
        return {command.value: list(self.numbers_of(command)) for command in Command}


def load_command_map(path: str | Path) -> CommandMap:
    """Load and validate a mapping file (a `[commands]` table); ConfigError names file and key."""
    source = Path(path)
    return parse_command_map(read_text(source, "command map"), str(source))


def parse_command_map(text: str, source: str) -> CommandMap:
    """Parse and validate mapping TOML; `source` names it in error messages."""
    try:
        data = parse_toml(text, f"command map {source}")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"command map {source}: TOML syntax error: {exc}") from None
    table = _commands_table(data, source)
    numbers = {_command_named(key, source): _numbers_of_key(value, key, source)
               for key, value in table.items()}
    for command in Command:
        if command not in numbers:
            raise ConfigError(f"command map {source}: command {command.value!r} is missing "
                              f"from [commands]")
    try:
        mapping = CommandMap.from_numbers(numbers)
        mapping.validate()
    except ConfigError as exc:
        raise ConfigError(f"command map {source}: {exc}") from None
    return mapping


def _commands_table(data: dict[str, object], source: str) -> dict[str, object]:
    extra = sorted(set(data) - {"commands"})
    if extra:
        raise ConfigError(f"command map {source}: unknown top-level key {extra[0]!r} "
                          f"(only a [commands] table is allowed)")
    table = data.get("commands")
    if not isinstance(table, dict):
        raise ConfigError(f"command map {source}: needs a [commands] table")
    return table


def _command_named(key: str, source: str) -> Command:
    try:
        return Command(key)
    except ValueError:
        known = ", ".join(c.value for c in Command)
        raise ConfigError(f"command map {source}: unknown command {key!r} in [commands] "
                          f"(known: {known})") from None


def _numbers_of_key(value: object, key: str, source: str) -> list[int]:
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise ConfigError(f"command map {source}: key {key!r} must be a list of "
                          f"{CARDS_PER_COMMAND} integers, got {value!r}")
    numbers: list[int] = value
    if len(numbers) != CARDS_PER_COMMAND:
        raise ConfigError(f"command map {source}: key {key!r} has {len(numbers)} numbers, "
                          f"needs exactly {CARDS_PER_COMMAND}")
    return numbers


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _load_default() -> CommandMap:
    resource = resources.files(__package__ or "referee.games.thegame") / DEFAULT_COMMANDS_RESOURCE
    return parse_command_map(resource.read_text(encoding="utf-8"), DEFAULT_COMMANDS_RESOURCE)


DEFAULT_COMMANDS: CommandMap = _load_default()
