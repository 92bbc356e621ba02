"""The games in progress beside a results db, as their live files show them
(referee/logs/live.py): found, read, and derived as a log cut short.

A live file is a format 5 log without its end. Read with an `interrupted` record added
(IN_PROGRESS), it derives as a game stopped there would (referee.logs.stream), so the
viewer's page of it is the page of the game so far.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.logs.live import LIVE_STDERR, LIVE_SUFFIX, pid_alive
from referee.logs.writer import FAULT_STDERR
from referee.logs.stream import read_stream
from referee.registry.games import lookup

IN_PROGRESS = "in progress"  # the `why` of the interrupted record a live file is read with
_ENDS = ("result", "interrupted")


@dataclass(frozen=True)
class LiveGame:
    """A game in progress: its log's name (`rage_d01_t02_r3.jsonl.gz`) and live file."""

    log_name: str
    path: Path

    @property
    def key(self) -> str:
        """Its name in URLs: the log's, without its suffixes."""
        return game_key(self.log_name)


def game_key(log_name: str) -> str:
    return log_name.removesuffix(".gz").removesuffix(".jsonl")


def live_games(folder: Path) -> list[LiveGame]:
    """The live files in `folder` whose writer still runs, by name. A file whose writer
    is gone (a tournament killed mid-game) is removed: it is the live view's own, and its
    game will be played again when the tournament resumes."""
    found: list[LiveGame] = []
    try:
        paths = sorted(folder.glob(f"*{LIVE_SUFFIX}"))
    except OSError:
        return found
    for path in paths:
        stem, _, pid = path.name.removesuffix(LIVE_SUFFIX).rpartition(".")
        if pid_alive(pid):
            found.append(LiveGame(stem, path))
        else:
            path.unlink(missing_ok=True)
    return found


def read_values(path: Path) -> list[Any] | None:
    """The JSON values of a live file's whole lines (its writer may be mid-line); None if
    it is gone (its game ended) or holds no header yet."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    values = [json.loads(line) for line in data[:data.rfind(b"\n") + 1].splitlines()]
    return values if values and isinstance(values[0], dict) else None


def game_records(values: list[Any]) -> tuple[list[dict[str, Any]], bool]:
    """A live file's values as read_log's records, and whether the game is still on.
    ValueError if it does not derive."""
    last = values[-1]
    on = not (isinstance(last, dict) and last.get("type") in _ENDS)
    values = with_live_stderr(values)
    if on:
        values = [*values, {"type": "interrupted", "why": IN_PROGRESS}]
    records, result = read_stream(values, lookup)
    for record in records:
        if record.get("type") == "result":
            record |= {key: value for key, value in result.items() if key not in record}
    return records, on


def with_live_stderr(values: list[Any]) -> list[Any]:
    """A live file's values with each LIVE_STDERR record's lines moved into its seat's
    fault record (FAULT_STDERR), where a finished log holds them; the record itself,
    which no log has, left out."""
    out: list[Any] = []
    faults: dict[Any, int] = {}  # seat: where its fault record is in `out`
    for value in values:
        kind, seat = (value.get("type"), value.get("seat")) if isinstance(value, dict) \
            else (None, None)
        if kind == LIVE_STDERR:
            if isinstance(seat, int) and seat in faults:
                at = faults[seat]
                out[at] = {**out[at], FAULT_STDERR: value.get(FAULT_STDERR)}
            continue
        if kind == "fault" and isinstance(seat, int):
            faults[seat] = len(out)
        out.append(value)
    return out


def players(path: Path) -> list[str]:
    """The players' names in a live file's header (its first line); none if it cannot
    be read (gone: its game ended)."""
    try:
        with path.open("rb") as file:
            header = json.loads(file.readline())
        return [str(player.get("name")) for player in header.get("players", [])]
    except (OSError, ValueError, AttributeError):
        return []
