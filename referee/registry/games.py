"""The registry of games: every generic part of the referee finds a game here by name.

It sits above the games it names (and below tournaments and the CLI, which look games up),
so no import runs upward. A game of its own, e.g. a test's, is added with `register`.
"""

from __future__ import annotations

from typing import Any

from referee.errors import ConfigError
from referee.matches.game import GameDefinition
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME

AnyGame = GameDefinition[Any, Any]
_GAMES: dict[str, AnyGame] = {game.name: game for game in (RAGE, THEGAME)}


def lookup(name: str) -> AnyGame:
    """The game called `name`; ConfigError naming the known ones if there is none."""
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown game {name!r} (known: {', '.join(names())})") from None


def names() -> tuple[str, ...]:
    """The registered games' names, in the order they were registered."""
    return tuple(_GAMES)


def register(game: AnyGame) -> None:
    """Add a game; its name must be new (or name this very game)."""
    if _GAMES.get(game.name, game) is not game:
        raise ValueError(f"a game called {game.name!r} is registered already")
    _GAMES[game.name] = game


def unregister(name: str) -> None:
    """Remove a game added with `register` (tests); the shipped games stay."""
    if name in (RAGE.name, THEGAME.name):
        raise ValueError(f"{name!r} ships with the referee and stays registered")
    _GAMES.pop(name, None)
