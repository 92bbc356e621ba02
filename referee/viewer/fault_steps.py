"""Each fault's step in its game log: the number `referee view` shows it at (#step=N), so
every table that lists a fault can say where to look, and the viewer's link goes there."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from referee.errors import Fault
from referee.logs.derive import read_log
from referee.registry import games
from referee.viewer.steps import fault_steps


def with_steps(faults: Sequence[Fault], log_path: Path) -> tuple[Fault, ...]:
    """`faults` with their steps in the log at `log_path`; as they are where the log
    cannot be read (a fault's record must not be lost to a broken log)."""
    if not faults:
        return tuple(faults)
    try:
        steps = fault_steps(read_log(log_path, games.lookup))
    except (OSError, ValueError, KeyError, TypeError):
        return tuple(faults)
    return tuple(replace(fault, step=steps.get(fault.seat)) for fault in faults)
