"""What the arena shows, as people read it: counts in words that agree with their number
("1 round", not "1 rounds"); versions of one script with other arguments told apart by
their command line's hash; a round's published pages that cannot be taken for a Rage
round (a trick round inside a game), checked in Chromium."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.arena.store import hash_command_line
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
        assert f"referee arena: {name} v1 (sha256 " in done.stdout
        assert ", command line sha256 " in done.stdout
    run = referee("arena", "run", str(arena), "--games", "1", "--jobs", "1")
    assert run.returncode == 0, run.stderr
    published = referee("arena", "publish", str(arena), str(arena.parent / "site"))
    assert published.returncode == 0, published.stderr
    return arena, run.stderr, published.stdout


def history(arena: Path) -> list[dict[str, str]]:
    shown = referee("arena", "standings", str(arena), "--history", "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    return list(csv.DictReader(io.StringIO(shown.stdout)))


def test_counts_are_singular_for_one_and_plural_otherwise() -> None:
    assert [counted(n, "round") for n in (0, 1, 2, 1500)] == [
        "0 rounds", "1 round", "2 rounds", "1,500 rounds"]


def test_one_round_reads_as_one(one_round: tuple[Path, str, str]) -> None:
    arena, run, published = one_round
    assert run.startswith("round 1: 1 table, 3 games, 0 faults, "), run
    assert "(1 round published, 0 already there)" in published, published
    front = (arena.parent / "site" / "index.html").read_text()
    assert "3 games in 1 round.</p>" in front


def test_versions_of_one_script_with_other_arguments_are_told_apart(
        one_round: tuple[Path, str, str]) -> None:
    """x, y and z run rage_heuristic.py with --mistakes 0.0, 0.5 and 1.0: one script,
    so one files' sha256; their command lines' hashes differ. And the arena run that
    followed set none of them aside as changed: `sha256` is still their files'."""
    arena, run, _ = one_round
    rows = history(arena)
    assert [row["contestant"] for row in rows] == ["x", "y", "z"]
    assert len({row["sha256"] for row in rows}) == 1
    assert len({row["command_line_sha256"] for row in rows}) == 3
    assert "changed" not in run and {row["status"] for row in rows} == {"active"}
    with sqlite3.connect(arena / "arena.db") as db:
        commands = [command for (command,) in
                    db.execute("SELECT command FROM versions ORDER BY name")]
    assert [row["command_line_sha256"] for row in rows] == [
        hash_command_line(command, None)[:12] for command in commands]


def test_a_command_lines_hash_reads_the_versions_own_folder_as_dot() -> None:
    """The same --cmd over --dir copies hashes the same in every version and wherever
    the arena is; other arguments, or another folder, hash apart."""
    def line(arena: str, version: int, argument: str = "") -> str:
        return hash_command_line(f"python {arena}/submissions/bob/v{version}/bot.py"
                                 f"{argument}", f"submissions/bob/v{version}")
    assert line("/srv/a", 1) == line("/srv/a", 2) == line("/home/b/arena", 7)
    assert line("/srv/a", 1) != line("/srv/a", 1, " --mistakes 0.1") != \
        line("/srv/a", 1, " --mistakes 0.3")
    assert hash_command_line("java -cp /srv/a/submissions/bob/v3 Main",
                             "submissions/bob/v3") == \
        hash_command_line("java -cp /x/submissions/bob/v4 Main", "submissions/bob/v4")
    assert hash_command_line("python /srv/a/submissions/bob/v10/bot.py",
                             "submissions/bob/v1") != line("/srv/a", 10)
