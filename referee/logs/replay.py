"""`referee replay LOG`: rebuild a game from its log's seed and moves, and check the result.

The engines are deterministic, so the seed, the settings and the decisions applied (by
bots or by the fallback) must reproduce the logged scores exactly; a mismatch means the
log was altered or the referee has changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.words import counted
from referee.errors import ConfigError
from referee.logs.derive import Lookup, load_log


class ReplayMismatch(Exception):
    """The log replays, but not to the result it records."""


class CutShort(Exception):
    """The log is of a game that was interrupted: it has no result to reproduce."""


def replay(path: Path, lookup: Lookup) -> str:
    """A one-line verdict. ConfigError: unreadable log or unknown game; ReplayMismatch: a
    different result; CutShort: an interrupted game. `lookup` finds the log's game by
    name (the registry's)."""
    records = load_log(path, lookup)
    stops = [r for r in records if r.get("type") == "interrupted"]
    if stops:
        raise CutShort(f"{path}: the game was interrupted {_where(stops[0], records)}; "
                       "nothing to reproduce beyond it")
    headers = [r for r in records if r.get("type") == "game"]
    results = [r for r in records if r.get("type") == "result"]
    if not headers or not results:
        raise ConfigError(f"{path} is not a complete game log (no game header or no result)")
    header, logged = headers[0], results[-1]
    moves = [r for r in records if r.get("type") == "move"]
    game = lookup(str(header.get("game")))
    try:
        replayed = game.replay(header, moves, logged)
    except (KeyError, TypeError, ValueError) as error:  # RuleError and WireError included
        raise ConfigError(f"{path} does not replay: {type(error).__name__}: {error}") from None
    mismatched = {k: (logged.get(k), v) for k, v in replayed.items() if logged.get(k) != v}
    if mismatched:
        detail = "; ".join(f"{k}: logged {a}, replayed {b}" for k, (a, b) in mismatched.items())
        raise ReplayMismatch(f"{path} does not reproduce: {detail}")
    return (f"{path}: {header['game']} seed {header['seed']}, {len(moves)} moves replayed, "
            f"result reproduced")


def _where(stop: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """Where a game was interrupted: why, after how many moves, how long into the game."""
    moves = sum(record.get("type") == "move" for record in records)
    when = stop.get("t")
    into = f", {when:.3f} s into the game" if isinstance(when, (int, float)) else ""
    return f"({stop.get('why')}) after {counted(moves, 'move')}{into}"
