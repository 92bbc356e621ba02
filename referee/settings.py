"""Frozen settings shared by every game: time limits, bot resource limits, fault policy."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from protocols.clock import Clock

# --clock cpu: a request may take at most this many times its CPU allowance in wall-clock
# time, and at least this many seconds more: generous for a machine loaded tenfold, yet
# bounded for a bot that sleeps (sleep costs no CPU).
WALL_CAP_FACTOR = 10.0
WALL_CAP_MARGIN = 5.0


def wall_cap(cpu_allowance: float) -> float:
    """--clock cpu: the most wall-clock seconds a request with `cpu_allowance` CPU seconds
    may take: max(10 x allowance, allowance + 5 s)."""
    return max(WALL_CAP_FACTOR * cpu_allowance, cpu_allowance + WALL_CAP_MARGIN)

from referee.errors import ConfigError


@dataclass(frozen=True)
class TimeLimits:
    """Seconds. A reply later than `move` spends the bank; past the bank it is a timeout.
    Under Clock.CPU, `move` and `bank` are CPU seconds (the start-up stays wall-clock)."""

    startup: float = 10.0
    move: float = 1.0
    bank: float = 0.0
    tolerance: float = 0.05  # transport jitter forgiven on every wait
    clock: Clock = Clock.WALL

    def to_json(self) -> dict[str, float | str]:
        data: dict[str, float | str] = {"startup": self.startup, "move": self.move,
                                        "bank": self.bank, "tolerance": self.tolerance}
        # The default is left out, so that tournaments made before there was a choice
        # keep their fingerprint (and their results db resumes).
        if self.clock is not Clock.WALL:
            data["clock"] = self.clock.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeLimits:
        """The inverse of to_json; ValueError for an unknown clock."""
        return cls(**{**data, "clock": Clock(data.get("clock", Clock.WALL.value))})


@dataclass(frozen=True)
class ResourceLimits:
    """Per bot. None means unlimited. Memory and processes count all of a bot's processes
    where a cgroup holds it, else each process (referee/processes/bot_process.py); CPU seconds,
    open files and file size are per process."""

    memory_mb: int | None = 2048
    cpu_seconds: int | None = 3600
    processes: int | None = 256
    open_files: int | None = 256
    file_mb: int | None = 64

    def to_json(self) -> dict[str, int | None]:
        return {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds,
                "processes": self.processes, "open_files": self.open_files,
                "file_mb": self.file_mb}


class OnFault(enum.StrEnum):
    """What happens to a game when a bot faults."""

    FALLBACK = "fallback"  # a deterministic fallback plays the seat to the end (Rage)
    END_GAME = "end-game"  # the game ends there; a team game is lost (The Game, ruling X1)


@dataclass(frozen=True)
class FaultPolicy:
    """What a fault costs, as data the match loops read; each game's definition holds its
    default, so a policy can become an option without an edit to a loop."""

    on_fault: OnFault
    faulted_place_last: bool = True  # a faulted seat places after every seat that did not
    # A tournament seats a bot with this many faulted games no more (None: never); its
    # later games fault at once (FaultKind.DISQUALIFIED). Read by the tournament's
    # coordinator, not by a match loop.
    disqualify_after: int | None = None

    def require(self, game: str, supported: OnFault) -> None:
        """ConfigError unless this policy's on_fault is the one `game` can play."""
        if self.on_fault is not supported:
            raise ConfigError(f"{game} supports on_fault = {supported.value} only, "
                              f"not {self.on_fault.value}")

