"""What every game provides to be played, logged, replayed and reported: one definition.

A game is a `GameDefinition`: its name, seat range, kind of contest, options, and the
functions that build its config, run a refereed match, tell its account to people and
replay its log. Everything generic (the `referee` commands, tournaments, replay, reports)
looks a definition up by name in `referee.registry` and calls these; none of it branches on
a game. OpenSpiel's `Game` (LoadGame by name, a generic referee) is the model.
"""

from __future__ import annotations

import enum
import pickle
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from referee.errors import ConfigError, Fault
from referee.logs.writer import GameLog
from referee.matches.board import Board, Terminal
from referee.players.player import Player
from referee.settings import FaultPolicy, TimeLimits

Echo = Callable[[str], None]
C = TypeVar("C")  # the game's config
R = TypeVar("R")  # the game's result


class OptionError(ConfigError):
    """A bad game option: `option` names it, and `other` an option it cannot go with."""

    def __init__(self, option: str, message: str, other: str | None = None) -> None:
        super().__init__(message)
        self.option = option
        self.other = other


class Contest(enum.StrEnum):
    """How bots meet in a tournament, and so how they are scheduled and ranked.

    COMPETITIVE: tables of bots against each other, every seat rotation of each deal,
    ranked by place. COOPERATIVE: each bot alone and in teams on the same deals, ranked by
    how well the team does."""

    COMPETITIVE = "competitive"
    COOPERATIVE = "cooperative"


class OptionKind(enum.Enum):
    """The shape of a game option, on the command line and in tournament files."""

    CHOICES = "choices"  # repeatable --flag WORD; a list of words in TOML
    FLAG = "flag"  # --flag; true/false in TOML
    FILE = "file"  # --flag PATH; a path (relative to the tournament file) in TOML


@dataclass(frozen=True)
class GameOption:
    """One option of a game. `name` is its TOML key and Python name; `flag` its command-
    line spelling. A FLAG defaults to False, CHOICES to (), FILE to None."""

    name: str
    flag: str
    kind: OptionKind
    help: str
    choices: tuple[str, ...] = ()

    @property
    def default(self) -> Any:
        return {OptionKind.CHOICES: (), OptionKind.FLAG: False, OptionKind.FILE: None}[self.kind]


@dataclass(frozen=True)
class Options:
    """A game's option values, complete (defaults filled in), hashable and picklable."""

    items: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, game: GameDefinition[Any, Any], given: Mapping[str, Any]) -> Options:
        """Every option of `game`: the given value (CHOICES sorted, duplicates dropped)
        or the default. OptionError for an option the game lacks, or an unknown choice."""
        known = {option.name: option for option in game.options}
        for name in given:
            if name not in known:
                raise OptionError(name, f"{game.title} has no option {name!r}")
        values = []
        for name, option in sorted(known.items()):
            value = given.get(name, option.default)
            if option.kind is OptionKind.CHOICES:
                value = tuple(sorted(set(value)))
                _check_choices(game, option, value)
            values.append((name, value))
        return cls(tuple(values))

    def __getitem__(self, name: str) -> Any:
        return dict(self.items)[name]

    def to_json(self) -> dict[str, Any]:
        return {name: list(value) if isinstance(value, tuple) else
                (str(value) if isinstance(value, Path) else value)
                for name, value in self.items}


def _check_choices(game: GameDefinition[Any, Any], option: GameOption,
                   words: tuple[str, ...]) -> None:
    for word in words:
        if word not in option.choices:
            raise OptionError(option.name, f"unknown {game.title} {option.name} {word!r} "
                                           f"(known: {', '.join(option.choices)})")


@dataclass(frozen=True)
class Outcome:
    """A finished game as tournaments store and rank it. Per-seat tuples by seat.

    `scores`: the game's own score per seat; `places`: 1 is best, ties share;
    `details`: fields of the game's own (kept in the record, shown by its tables)."""

    scores: tuple[int, ...]
    places: tuple[int, ...]
    faults: tuple[Fault, ...]
    details: Mapping[str, Any] = field(default_factory=dict)


class GameDefinition(ABC, Generic[C, R]):
    """One game, as everything generic sees it. Subclasses are stateless singletons."""

    name: str  # the word used everywhere: command lines, files, logs, records
    title: str  # for people, e.g. "Rage"
    seats: range  # how many players one game takes
    contest: Contest
    fault_policy: FaultPolicy  # what a fault costs; read by the game's match loop
    options: tuple[GameOption, ...] = ()
    # Faults of the game's own protocol that `referee check` judges as checks of their own:
    # (the check's name, the first words of such a fault's detail).
    protocol_checks: tuple[tuple[str, str], ...] = ()

    def __reduce__(self) -> str:
        """Pickled as a reference to the module-level object it is (by name, the way
        pickle saves a class), so a tournament worker's copy is that very object."""
        for name, value in vars(sys.modules[type(self).__module__]).items():
            if value is self:
                return name
        raise pickle.PicklingError(f"{self.name}: a game definition must be a module-level "
                                   "object to be sent to worker processes")

    def check_players(self, players: int) -> None:
        """ConfigError unless `players` may play one game."""
        if players not in self.seats:
            raise ConfigError(f"{self.title} needs {self.seats.start} to "
                              f"{self.seats.stop - 1} bots, got {players}")

    @abstractmethod
    def check_options(self, options: Options) -> None:
        """OptionError for option values that cannot be played."""

    def option_identity(self, options: Options) -> dict[str, Any]:
        """The options as they define a tournament's results (its fingerprint)."""
        return options.to_json()

    @abstractmethod
    def configure(self, players: int, options: Options) -> C:
        """The engine's config for one game (options already checked)."""

    @abstractmethod
    def log_settings(self, config: C, times: TimeLimits) -> dict[str, object]:
        """The settings as the log's header records them: enough to replay the game."""

    @abstractmethod
    def logged_config(self, settings: Mapping[str, Any]) -> C:
        """The config a log header's settings (log_settings's) record. ValueError,
        KeyError or TypeError where they are no such settings."""

    @abstractmethod
    def heading(self, config: C, seed_words: str) -> str:
        """The first line of a game's account for people."""

    @abstractmethod
    def run(self, players: Sequence[Player], config: C, seed: int, times: TimeLimits,
            log: GameLog | None, echo: Echo | None = None) -> R:
        """Referee one game; with `echo`, tell its course to people as it goes."""

    @abstractmethod
    def closing(self, names: Sequence[str], result: R) -> list[str]:
        """The account's last lines: the result for people."""

    @abstractmethod
    def outcome(self, result: R) -> Outcome:
        """The result as tournaments store and rank it."""

    @abstractmethod
    def replay(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
               logged: Mapping[str, Any]) -> Mapping[str, Any]:
        """Replay the logged moves from the header's seed and settings; the result fields
        they give, to compare with the logged result. ValueError, KeyError or TypeError
        where the log cannot be replayed."""

    def board(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
              faults: Sequence[Mapping[str, Any]], seat: int | None) -> Board | None:
        """The board at each point of a logged game, as `seat` saw it (None: everything),
        for `referee view`; None if this game has no board view (the default). ValueError,
        KeyError or TypeError where the log cannot be replayed."""
        return None

    def terminal(self) -> Terminal | None:
        """The game drawn on a terminal, for `referee show --board` and human seats;
        None if this game has none (the default: such a game takes no human seat)."""
        return None
