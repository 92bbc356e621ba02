"""What `referee arena run` and `publish` say, as people read it: counts in words that
agree with their number ("1 round", not "1 rounds"), and a round's published pages that
cannot be taken for a Rage round (a trick round inside a game), checked in Chromium."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.arena.words import counted

ROOT = Path(__file__).resolve().parents[3]
HEURISTIC = "python bots/rage_heuristic.py"


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def one_round(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """An arena of three versions at tables of 3, no placement: its first round is one
    table (3 games); published with every replay. The arena, run's stderr, publish's
    stdout."""
    arena = tmp_path_factory.mktemp("arena") / "cup"
    assert referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3",
                   "--placement", "0").returncode == 0
    for name, rate in {"x": 0.0, "y": 0.5, "z": 1.0}.items():
        done = referee("arena", "submit", str(arena), name, f"{HEURISTIC} --mistakes {rate}")
        assert done.returncode == 0, done.stdout + done.stderr
    run = referee("arena", "run", str(arena), "--games", "1", "--jobs", "1")
    assert run.returncode == 0, run.stderr
    published = referee("arena", "publish", str(arena), str(arena.parent / "site"))
    assert published.returncode == 0, published.stderr
    return arena, run.stderr, published.stdout


def test_counts_are_singular_for_one_and_plural_otherwise() -> None:
    assert [counted(n, "round") for n in (0, 1, 2, 1500)] == [
        "0 rounds", "1 round", "2 rounds", "1,500 rounds"]


def test_one_round_reads_as_one(one_round: tuple[Path, str, str]) -> None:
    arena, run, published = one_round
    assert run.startswith("round 1: 1 table, 3 games, 0 faults, "), run
    assert "(1 round published, 0 already there)" in published, published
    front = (arena.parent / "site" / "index.html").read_text()
    assert "3 games in 1 round.</p>" in front
