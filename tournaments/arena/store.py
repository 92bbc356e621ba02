"""An arena's folder: arena.toml (its settings), arena.db (versions), submissions/."""

from __future__ import annotations

import sqlite3
import tomllib
from dataclasses import dataclass
from pathlib import Path

from referee.errors import ConfigError
from referee.matches.game import Contest
from referee.registry.games import lookup

SETTINGS = "arena.toml"
DB = "arena.db"
SUBMISSIONS = "submissions"
_SCHEMA = """
CREATE TABLE versions (
    name TEXT NOT NULL, version INTEGER NOT NULL, command TEXT NOT NULL,
    folder TEXT, sha256 TEXT NOT NULL, status TEXT NOT NULL, report TEXT NOT NULL,
    PRIMARY KEY (name, version));
"""


@dataclass(frozen=True)
class Settings:
    game: str
    table_size: int


def init(folder: Path, settings: Settings) -> None:
    """Make a new arena in `folder`; ConfigError for an existing one or bad settings."""
    game = lookup(settings.game)
    if game.contest is not Contest.COMPETITIVE:
        raise ConfigError(f"{game.title} is {game.contest}: an arena ranks competitive "
                          "games only")
    game.check_players(settings.table_size)
    if (folder / SETTINGS).exists() or (folder / DB).exists():
        raise ConfigError(f"{folder} holds an arena already")
    (folder / SUBMISSIONS).mkdir(parents=True, exist_ok=True)
    (folder / SETTINGS).write_text(f'game = "{settings.game}"\n'
                                   f"table_size = {settings.table_size}\n")
    with sqlite3.connect(folder / DB) as db:
        db.executescript(_SCHEMA)


def load(folder: Path) -> Settings:
    """The settings of the arena in `folder`; ConfigError if there is none."""
    try:
        data = tomllib.loads((folder / SETTINGS).read_text())
        return Settings(str(data["game"]), int(data["table_size"]))
    except (OSError, tomllib.TOMLDecodeError, KeyError, ValueError) as error:
        raise ConfigError(f"{folder} is no arena (its {SETTINGS}: {error})") from None


def connect(folder: Path) -> sqlite3.Connection:
    load(folder)
    return sqlite3.connect(folder / DB)
