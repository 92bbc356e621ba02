"""Frozen settings shared by every game: time limits and bot resource limits."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeLimits:
    """Seconds. A reply later than `move` spends the bank; past the bank it is a timeout."""

    startup: float = 10.0
    move: float = 1.0
    bank: float = 0.0
    tolerance: float = 0.05  # transport jitter forgiven on every wait

    def to_json(self) -> dict[str, float]:
        return {"startup": self.startup, "move": self.move, "bank": self.bank,
                "tolerance": self.tolerance}


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
