"""The result of one played fixture, as stored and reported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.errors import Fault, FaultKind


@dataclass(frozen=True)
class GameRecord:
    """One finished game. Per-seat tuples are indexed by seat."""

    fixture_id: str
    game: str  # the game's name in the registry, e.g. "rage"
    seed: int
    bots: tuple[str, ...]
    scores: tuple[int, ...]  # the game's score per seat (Outcome.scores)
    places: tuple[int, ...]  # 1 = best, ties share (Outcome.places)
    faults: tuple[Fault, ...] = ()
    won: bool | None = None
    cards_left: int | None = None
    end_reason: str | None = None
    cards_played: tuple[int, ...] | None = None
    hints_given: tuple[int, ...] | None = None
    log_path: str | None = None
    # Per seat, the file of the bot's stderr in this game (relative to the db's folder
    # like log_path), None where it wrote nothing; None for records older than these.
    stderr_paths: tuple[str | None, ...] | None = None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict; `from_json` inverts it."""
        return {
            "fixture_id": self.fixture_id, "game": str(self.game), "seed": self.seed,
            "bots": list(self.bots), "scores": list(self.scores), "places": list(self.places),
            "faults": [fault.to_json() for fault in self.faults],
            "won": self.won, "cards_left": self.cards_left, "end_reason": self.end_reason,
            "cards_played": _list_or_none(self.cards_played),
            "hints_given": _list_or_none(self.hints_given),
            "log_path": self.log_path,
            "stderr_paths": None if self.stderr_paths is None else list(self.stderr_paths),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """Rebuild a record from `to_json` output."""
        return cls(
            fixture_id=data["fixture_id"], game=data["game"], seed=data["seed"],
            bots=tuple(data["bots"]), scores=tuple(data["scores"]),
            places=tuple(data["places"]),
            faults=tuple(fault_from_json(item) for item in data["faults"]),
            won=data["won"], cards_left=data["cards_left"], end_reason=data["end_reason"],
            cards_played=_tuple_or_none(data["cards_played"]),
            hints_given=_tuple_or_none(data["hints_given"]),
            log_path=data["log_path"],
            stderr_paths=_paths_or_none(data.get("stderr_paths")),
        )


def fault_from_json(data: dict[str, Any]) -> Fault:
    """Rebuild a Fault from `Fault.to_json` output."""
    return Fault(seat=data["seat"], bot=data["bot"], kind=FaultKind(data["kind"]),
                 detail=data["detail"], line=data["line"])


def _list_or_none(values: tuple[int, ...] | None) -> list[int] | None:
    return None if values is None else list(values)


def _tuple_or_none(values: list[int] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(values)


def _paths_or_none(values: list[str | None] | None) -> tuple[str | None, ...] | None:
    return None if values is None else tuple(values)
