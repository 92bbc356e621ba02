"""The result of one played fixture, as stored and reported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.errors import Fault
from protocols.faults import FaultKind


@dataclass(frozen=True)
class BotHashes:
    """sha256 (hex) of the files a bot runs: its executable, and its script if it has one
    (tournaments/store/provenance.py)."""

    executable: str
    script: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"executable": self.executable, "script": self.script}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotHashes:
        return cls(executable=data["executable"], script=data["script"])


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
    # Provenance, None in records made before it was kept: the bot index of each seat
    # (into the tournament's bots; a gauntlet's as they were when it was played), the files each seat's bot ran, the name and version
    # each said in HELLO (None for a bot that never did), and the referee's version.
    seats: tuple[int, ...] | None = None
    hashes: tuple[BotHashes, ...] | None = None
    hellos: tuple[tuple[str, str] | None, ...] | None = None
    referee_version: str | None = None
    # Per seat, the file of the bot's stderr in this game (relative to the db's folder
    # like log_path), None where it wrote nothing; None for records older than these.
    stderr_paths: tuple[str | None, ...] | None = None

    def fault_stderr(self) -> dict[int, tuple[str, ...]]:
        """Per faulted seat, the last lines of its stderr in the game, where it wrote any:
        a crash's reason is most often there, and a log older than its fault records'
        `stderr` field holds none (the log's own, where it has them, are the same lines,
        the log's cut to its budget)."""
        return {fault.seat: fault.stderr for fault in self.faults if fault.stderr}

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict; `from_json` inverts it."""
        return {
            "fixture_id": self.fixture_id, "game": str(self.game), "seed": self.seed,
            "bots": list(self.bots), "scores": list(self.scores), "places": list(self.places),
            "faults": [fault.record_json() for fault in self.faults],
            "won": self.won, "cards_left": self.cards_left, "end_reason": self.end_reason,
            "cards_played": _list_or_none(self.cards_played),
            "hints_given": _list_or_none(self.hints_given),
            "log_path": self.log_path,
            "seats": _list_or_none(self.seats),
            "hashes": None if self.hashes is None else [h.to_json() for h in self.hashes],
            "hellos": None if self.hellos is None else [
                None if hello is None else list(hello) for hello in self.hellos],
            "referee_version": self.referee_version,
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
            seats=_tuple_or_none(data.get("seats")),
            hashes=_hashes(data.get("hashes")),
            hellos=_hellos(data.get("hellos")),
            referee_version=data.get("referee_version"),
            stderr_paths=_paths_or_none(data.get("stderr_paths")),
        )


def fault_from_json(data: dict[str, Any]) -> Fault:
    """Rebuild a Fault from `Fault.record_json` (or older records' `to_json`) output."""
    stderr = data.get("stderr")  # where, step, stderr and round: absent in older records
    where = data.get("where")
    round_no = data["round"] if "round" in data else _round_in_words(where)
    return Fault(seat=data["seat"], bot=data["bot"], kind=FaultKind(data["kind"]),
                 detail=data["detail"], line=data["line"], where=where,
                 step=data.get("step"), stderr=() if stderr is None else tuple(stderr),
                 round_no=round_no)


def _round_in_words(where: Any) -> int | None:
    """The round of a fault stored before its record kept the round: its `where` words
    then began "round N, " wherever it had one (Rage's, RageMatch._where); None else."""
    words = where.split(",")[0].split() if isinstance(where, str) else []
    if len(words) == 2 and words[0] == "round" and words[1].isascii() and words[1].isdigit():
        return int(words[1])
    return None


def _list_or_none(values: tuple[int, ...] | None) -> list[int] | None:
    return None if values is None else list(values)


def _tuple_or_none(values: list[int] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(values)


def _hashes(data: list[dict[str, Any]] | None) -> tuple[BotHashes, ...] | None:
    return None if data is None else tuple(BotHashes.from_json(item) for item in data)


def _hellos(data: list[list[str] | None] | None) -> tuple[tuple[str, str] | None, ...] | None:
    if data is None:
        return None
    return tuple(None if hello is None else _pair(hello) for hello in data)


def _pair(words: list[str]) -> tuple[str, str]:
    if len(words) != 2:
        raise ValueError(f"{words!r} is not a name and a version")
    return words[0], words[1]


def _paths_or_none(values: list[str | None] | None) -> tuple[str | None, ...] | None:
    return None if values is None else tuple(values)
