"""Progress on standard error: a redrawn line on a terminal, occasional lines elsewhere."""

from __future__ import annotations

import io

from referee.errors import Fault, FaultKind
from tournaments.progress import StderrProgress, format_duration
from tournaments.records import GameRecord

CLEAN = GameRecord("rage/d01/t01/r0", "rage", 1, ("a", "b", "c"), (1, 2, 3), (3, 2, 1))
FAULTY = GameRecord("rage/d01/t01/r1", "rage", 1, ("a", "b", "c"), (1, 2, 3), (3, 2, 1),
                    (Fault(0, "a", FaultKind.CRASH, "exit 3"),))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_terminal_writes_only_occasional_lines() -> None:
    out, clock = io.StringIO(), Clock()
    progress = StderrProgress("rage", out, interval=60.0, clock=clock)
    progress.start(total=10, done=2, faults=1)
    for second in (1, 2, 3):
        clock.now = second
        progress.advance(CLEAN)
    assert out.getvalue().splitlines() == ["rage: 2/10 games (2 resumed), 1 fault, ETA ?"]
    clock.now = 61
    progress.advance(FAULTY)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and lines[1].startswith("rage: 6/10 games (2 resumed), 2 faults")
    assert lines[2].startswith("rage: 6/10 games")


def test_eta_counts_only_games_played_in_this_run() -> None:
    out, clock = io.StringIO(), Clock()
    progress = StderrProgress("t", out, clock=clock)
    progress.start(total=12, done=2, faults=0)
    clock.now = 10.0
    progress.advance(CLEAN)
    progress.advance(CLEAN)  # 2 games in 10 s, 8 to go
    assert progress.line().endswith("ETA 40s")


def test_terminal_redraws_one_line_and_ends_it() -> None:
    out, clock = Terminal(), Clock()
    progress = StderrProgress("rage", out, clock=clock)
    progress.start(total=2, done=0, faults=0)
    clock.now = 1.0
    progress.advance(CLEAN)
    clock.now = 2.0
    progress.advance(FAULTY)
    progress.finish()
    text = out.getvalue()
    assert text.count("\r") == 3 and text.endswith("rage: 2/2 games, 1 fault, ETA 0s\n")


def test_format_duration() -> None:
    assert format_duration(15.2) == "15s"
    assert format_duration(130) == "2m10s"
    assert format_duration(3720) == "1h02m"
