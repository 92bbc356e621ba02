"""Which games the suite plays, found from the game's definition alone: every seat count,
and every value of each option (each allowed combination of a CHOICES option, each FLAG
on), so a game added to the registry is checked without an edit here."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import bots
from referee.errors import ConfigError
from referee.matches.game import GameDefinition, GameOption, OptionKind, Options

AnyGame = GameDefinition[Any, Any]
BASE_SEED = 1  # the suite's deals are fixed, so a failing check can be replayed


@dataclass(frozen=True)
class Setup:
    """One game to play: how many seats, the options, the bot's seat, the deal."""

    players: int
    options: Options
    flags: tuple[str, ...]  # the options as `referee play` spells them
    seat: int
    seed: int

    @property
    def name(self) -> str:
        words = [f"game {self.players} seat{'s' if self.players > 1 else ''}", *self.flags]
        return " ".join(words)

    def replay_hint(self, game: AnyGame, seats: Sequence[str],
                    listen: Sequence[str] = ()) -> str:
        """How to play this game again, for the evidence of a failure: the whole command,
        with `seats`, the command of each seat's bot, the checked one at its seat, and
        `listen`, the options that seat a remote bot where its relay connects."""
        command = shlex.join(["referee", "play", game.name, "--seed", str(self.seed),
                              *self.flags, *listen, *seats])
        return f"seat {self.seat}, seed {self.seed} ({command})"


def middle_seats(game: AnyGame) -> int:
    """The seat count of games that vary something else: one above the least (a team, in
    a cooperative game), where the game allows it."""
    return min(game.seats.start + 1, game.seats.stop - 1)


def full_setups(game: AnyGame) -> list[Setup]:
    """Every seat count with the default options, then every option value at
    middle_seats; the bot's seat moves round, each game has its own deal."""
    shapes: list[tuple[int, dict[str, Any], tuple[str, ...]]] = [
        (players, {}, ()) for players in game.seats]
    shapes += [(middle_seats(game), given, flags) for given, flags in option_values(game)]
    return [_setup(game, index, *shape) for index, shape in enumerate(shapes)]


def quick_setups(game: AnyGame) -> list[Setup]:
    """`--quick`: one game at one seat count."""
    return [_setup(game, 0, middle_seats(game), {}, ())]


def setup_of(game: AnyGame, players: int, given: dict[str, Any]) -> Setup:
    """The one game of `players` seats with the options `given` (an arena's): ConfigError
    where the game has no such seat count or options."""
    game.check_players(players)
    options = Options.of(game, given)
    game.check_options(options)
    known = {option.name: option for option in game.options}
    flags = tuple(flag for name, value in sorted(given.items())
                  for flag in _flags(known[name], value))
    return Setup(players, options, flags, 0, BASE_SEED)


def _setup(game: AnyGame, index: int, players: int, given: dict[str, Any],
           flags: tuple[str, ...]) -> Setup:
    return Setup(players, Options.of(game, given), flags, index % players, BASE_SEED + index)


def option_values(game: AnyGame) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """Each option's values other than its default, one option at a time, as (given,
    flags); combinations the game refuses (check_options) are left out."""
    found = []
    for option in game.options:
        for value in _values(option):
            given = {option.name: value}
            try:
                game.check_options(Options.of(game, given))
            except ConfigError:
                continue
            found.append((given, _flags(option, value)))
    return found


def _values(option: GameOption) -> list[Any]:
    if option.kind is OptionKind.CHOICES:
        return [words for size in range(1, len(option.choices) + 1)
                for words in combinations(option.choices, size)]
    if option.kind is OptionKind.FLAG:
        return [True]
    return []  # a file: the suite has none to give


def _flags(option: GameOption, value: Any) -> tuple[str, ...]:
    if option.kind is OptionKind.FLAG:
        return (option.flag,)
    return tuple(word for choice in value for word in (option.flag, choice))


def sample_bots(game: AnyGame) -> list[str]:
    """The sample bots of `game` shipped in bots/ (`GAME_*.py` but the SDK), as commands."""
    folder = Path(bots.__file__).resolve().parent
    return [f"python {path}" for path in sorted(folder.glob(f"{game.name}_*.py"))
            if not path.stem.endswith("_sdk")]
