"""A faulted bot never shows the fallback's points as its own (issue 29): `referee play`'s
round lines give "—" for its points and totals from the round of its fault on, and the
score sheet names those rows "(fallback)". docs/rules.md, Faults: a fallback plays the
faulted seat's cards so the others' game goes on."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.cli_support import run_main

STUDENT = Path(__file__).parents[1] / "referee" / "fault_bots" / "student.py"
SEATS = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
         f"stdio:{sys.executable} {STUDENT} crash 30"]


def test_after_its_fault_a_seat_shows_no_points_of_its_own() -> None:
    _, out, err = run_main(["play", "rage", *SEATS, "--sandbox", "off", "--seed", "2"])
    assert "seat 2 student: crash (round" in err
    rounds = [line for line in out.splitlines() if line.startswith("round ")]
    assert len(rounds) == 10
    crashed = next(i for i, line in enumerate(rounds) if line.endswith("\u2014"))
    assert crashed >= 1  # it played a round or more itself
    for line in rounds[:crashed]:
        assert "\u2014" not in line
    for line in rounds[crashed:]:
        points, totals = line.split("| points ")[1].split(" | totals ")
        assert points.split()[2] == totals.split()[2] == "\u2014"
        assert all(word.lstrip("-").isdigit() for word in points.split()[:2])
    sheet = [line.split() for line in out.splitlines() if "student" in line]
    mine = [row for row in sheet if row[0].isdigit() and row[2] == "student"]  # round, cards
    assert len(mine) == 10
    assert all(("(fallback)" in row) == (int(row[0]) > crashed) for row in mine), mine
