"""A check's verdict: its name, pass, warn, fail or skip, the time it took, the evidence."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from protocols.wire import line_escaped
from referee.errors import BotFault, Fault


class Status(enum.Enum):
    PASS = "pass"
    WARN = "warn"  # passes, with a finding worth a look (e.g. replies above half the limit)
    FAIL = "fail"
    SKIP = "skip"  # not run: an earlier check made it pointless (no HELLO, say)

    @property
    def ok(self) -> bool:
        return self is not Status.FAIL


@dataclass(frozen=True)
class Verdict:
    """One check's outcome. `line`: the offending line (bot text, unquoted);
    `line_escaped`: it shows bytes that were not UTF-8 escaped already (wire.line_escaped),
    to be quoted without a second escape; `figures`: numbers a check measured, e.g.
    reply-time percentiles."""

    name: str
    status: Status
    evidence: str
    seconds: float = 0.0
    line: str | None = None
    line_escaped: bool = False
    figures: dict[str, float] = field(default_factory=dict)
    # The last lines of the bot's stderr where it faulted (escaped already): its cause.
    stderr: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status.value,
                "seconds": round(self.seconds, 3), "evidence": self.evidence,
                "line": self.line, "figures": self.figures, "stderr": list(self.stderr)}


def fault_verdict(name: str, evidence: str, seconds: float,
                  fault: Fault | BotFault, stderr: tuple[str, ...] = ()) -> Verdict:
    """A check `fault` failed: its offending line kept, with how to quote it, and the
    bot's last stderr lines (a recorded Fault's own, else `stderr`)."""
    tail = fault.stderr if isinstance(fault, Fault) else stderr
    return Verdict(name, Status.FAIL, evidence, seconds, fault.line,
                   line_escaped(fault.detail), stderr=tail)


def skipped(name: str, why: str) -> Verdict:
    return Verdict(name, Status.SKIP, why)


def percentile(sorted_values: Sequence[float], percent: float) -> float:
    """The nearest-rank percentile of values sorted ascending (at least one)."""
    rank = max(1, math.ceil(percent / 100 * len(sorted_values)))
    return sorted_values[rank - 1]
