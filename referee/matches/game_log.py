"""The JSON Lines game log: settings, every line in and out per seat, moves, faults, result.

Complete enough to replay the game (`referee replay LOG`): the seed and settings plus the
decisions applied, whoever made them (bot or fallback).
"""

from __future__ import annotations

import enum
import json
import time
from pathlib import Path
from typing import IO, Any

from referee.errors import Fault
from referee.players.player import Direction

_ENCODER = json.JSONEncoder(separators=(",", ":"))  # one encoder: ~2,300 records a game


class DecidedBy(enum.StrEnum):
    """Who made a move applied to the game: the bot, or the fallback in a faulted seat."""

    BOT = "bot"
    FALLBACK = "fallback"


class GameLog:
    """Writes one JSON object per line. `timestamps=False` makes the log byte-reproducible."""

    def __init__(self, stream: IO[str], timestamps: bool = True, owns: bool = False) -> None:
        self._stream = stream
        self._owns = owns
        self._timestamps = timestamps
        self._start = time.monotonic()

    @classmethod
    def open(cls, path: Path, timestamps: bool = True) -> GameLog:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(path.open("w", encoding="utf-8"), timestamps, owns=True)

    def _write(self, record: dict[str, Any]) -> None:
        if self._timestamps:
            record["t"] = round(time.monotonic() - self._start, 6)
        self._stream.write(_ENCODER.encode(record) + "\n")

    def header(self, game: str, seed: int, settings: dict[str, Any],
               players: list[dict[str, Any]]) -> None:
        self._start = time.monotonic()
        self._write({"type": "game", "game": game, "seed": seed, "settings": settings,
                     "players": players})

    def line(self, seat: int, direction: Direction, text: str) -> None:
        self._write({"type": "line", "seat": seat, "dir": direction, "line": text})

    def move(self, seat: int, kind: str, move: str, by: DecidedBy) -> None:
        """A decision applied to the game: its kind (the game's own words, e.g. "bid"),
        the move as the protocol spells it, and who made it."""
        self._write({"type": "move", "seat": seat, "kind": kind, "move": move, "by": by})

    def fault(self, fault: Fault) -> None:
        self._write({"type": "fault", **fault.to_json()})

    def result(self, result: dict[str, Any]) -> None:
        self._write({"type": "result", **result})

    def close(self) -> None:
        self._stream.flush()
        if self._owns:
            self._stream.close()


def read_log(path: Path) -> list[dict[str, Any]]:
    """All records of a log file, in order."""
    with path.open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]
