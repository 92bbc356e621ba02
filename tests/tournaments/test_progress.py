"""Progress on standard error: a redrawn line on a terminal, occasional lines elsewhere."""

from __future__ import annotations

import io

import pytest

from referee.errors import Fault
from protocols.faults import FaultKind
from tournaments.run.progress import StandingsEvery, StderrProgress, format_duration
from tournaments.store.records import GameRecord

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


def test_not_a_terminal_writes_a_line_per_interval_or_five_percent() -> None:
    out, clock = io.StringIO(), Clock()
    progress = StderrProgress("rage", out, interval=60.0, clock=clock)
    progress.start(total=1000, done=2, faults=1)
    for second in (1, 2, 3):  # 5/1000: not yet the next 5% step, nor a minute
        clock.now = second
        progress.advance(CLEAN)
    assert out.getvalue().splitlines() == ["rage: 2/1000 games (2 resumed), 1 fault, ETA ?"]
    clock.now = 61  # a minute since the last line
    progress.advance(FAULTY)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[1].startswith("rage: 6/1000 games (2 resumed), 2 faults")
    progress.finish()
    assert out.getvalue().splitlines()[2].startswith("rage: 6/1000 games")


def test_not_a_terminal_shows_every_five_percent_of_the_schedule() -> None:
    out, clock = io.StringIO(), Clock()
    progress = StderrProgress("rage", out, interval=3600.0, clock=clock)
    progress.start(total=200, done=0, faults=0)
    for _ in range(200):
        clock.now += 0.5  # far less than the interval between any two lines
        progress.advance(CLEAN)
    progress.finish()
    counts = [int(line.split()[1].split("/")[0]) for line in out.getvalue().splitlines()]
    assert counts == list(range(0, 201, 10))  # the start, then every 10 of 200 games


def test_not_a_terminal_writes_at_most_a_line_per_game() -> None:
    out, clock = io.StringIO(), Clock()
    progress = StderrProgress("rage", out, interval=1.0, clock=clock)
    progress.start(total=5, done=0, faults=0)
    for _ in range(5):
        clock.now += 100.0  # every game 20% and minutes long
        progress.advance(CLEAN)
    progress.finish()
    assert len(out.getvalue().splitlines()) == 6  # the start and one per game


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


def drawn_lines(text: str) -> list[str]:
    """What a terminal shows of each redraw: the text after each carriage return with
    the erase-line sequence removed."""
    return [part.replace("\x1b[K", "").rstrip("\n") for part in text.split("\r") if part]


@pytest.mark.parametrize("columns", [200, 80, 40, 20, 10, 1])
def test_the_terminal_line_fits_the_width(columns: int) -> None:
    out, clock = Terminal(), Clock()
    progress = StderrProgress("a-long-game-name", out, clock=clock, width=lambda: columns)
    progress.start(total=12345, done=678, faults=9)
    for _ in range(3):
        clock.now += 1.0
        progress.advance(FAULTY)
    progress.finish()
    shown = drawn_lines(out.getvalue())
    assert len(shown) == 4 and all(line for line in shown)
    assert all(len(line) < columns or len(line) == 1 for line in shown), shown
    if columns >= 80:  # room for everything: the whole line and a bar
        assert shown[-1].startswith("[") and "a-long-game-name: 681/12345" in shown[-1]
    if columns == 40:  # the short status with a narrower bar
        assert shown[-1].startswith("[") and "681/12345, 12 faults" in shown[-1]


def test_the_width_is_read_again_for_every_redraw() -> None:
    out, clock, columns = Terminal(), Clock(), [80]
    progress = StderrProgress("rage", out, clock=clock, width=lambda: columns[0])
    progress.start(total=10, done=0, faults=0)
    columns[0] = 20  # the terminal was narrowed
    clock.now = 1.0
    progress.advance(CLEAN)
    wide, narrow = drawn_lines(out.getvalue())
    assert len(wide) > 20 and len(narrow) < 20


def test_standings_every_n_games_between_progress_lines() -> None:
    out, clock = io.StringIO(), Clock()
    shown = StderrProgress("rage", out, interval=3600.0, clock=clock)
    calls = []

    def standings() -> str:
        calls.append(shown.done)
        return f"STANDINGS after {shown.done}\n"

    progress = StandingsEvery(shown, 3, standings)
    progress.start(total=8, done=1, faults=0)  # 7 games to play in this run
    for _ in range(7):
        clock.now += 1.0
        progress.advance(CLEAN)
    progress.finish()
    assert calls == [4, 7]  # after 3 and 6 games of this run, not after the last
    lines = out.getvalue().splitlines()
    assert lines.index("STANDINGS after 4") == lines.index(
        "rage: 4/8 games (1 resumed), 0 faults, ETA 4s") + 1


def test_standings_on_a_terminal_clear_the_bar_and_draw_it_again() -> None:
    out, clock = Terminal(), Clock()
    shown = StderrProgress("rage", out, clock=clock, width=lambda: 80)
    progress = StandingsEvery(shown, 1, lambda: "TABLE\n")
    progress.start(total=3, done=0, faults=0)
    clock.now = 1.0
    progress.advance(CLEAN)
    before, after = out.getvalue().split("TABLE\n")
    assert before.endswith("rage: 1/3 games, 0 faults, ETA 2s\r\x1b[K")  # the bar cleared
    assert drawn_lines(after)[0].endswith("rage: 1/3 games, 0 faults, ETA 2s")  # drawn again
