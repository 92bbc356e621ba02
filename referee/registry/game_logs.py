"""The one reader of game logs, with the registry's games to derive what a log leaves out
(referee.logs.derive): what every command and tool that reads a log calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.logs import derive
from referee.registry.games import lookup


def read_log(path: Path) -> list[dict[str, Any]]:
    """Every record of a log file, with each line as a record of its own; ValueError if
    it is no game log (derive.read_log)."""
    return derive.read_log(path, lookup)


def load_log(path: Path) -> list[dict[str, Any]]:
    """read_log for a command: ConfigError, one line naming the file, if it cannot be read."""
    return derive.load_log(path, lookup)
