"""What the arena shows, as people read it: counts in words that agree with their number
("1 round", not "1 rounds"); versions of one script with other arguments told apart by
their command line's hash; a round's published pages that cannot be taken for a Rage
round (a trick round inside a game), checked in Chromium."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tournaments.arena.store import hash_command_line, round_title
from tournaments.spec.definition import MAX_TITLE
from referee.words import counted

ROOT = Path(__file__).resolve().parents[3]
HEURISTIC = "python bots/rage_heuristic.py"
# "round 1" on its own: not as part of "arena round 1" (a Rage round is "Round 1")
BARE_ROUND = re.compile(r"(?<!arena )\bround 1\b", re.IGNORECASE)


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


def seen(browser: Any, page: Path) -> tuple[str, str, list[str]]:
    """The page as Chromium shows it: its title, its visible text, its links' texts."""
    tab = browser.new_page()
    try:
        tab.goto(page.as_uri())
        return (tab.title(), tab.inner_text("body"),
                [link.inner_text() for link in tab.query_selector_all("a")])
    finally:
        tab.close()


def test_a_rounds_pages_say_arena_round(one_round: tuple[Path, str, str],
                                        browser: Any) -> None:
    """Its index, its versions' pages and its replays name "cup, arena round 1"; no
    "round 1" is left bare to be taken for a Rage round, which the replay itself shows
    as "Round 1"."""
    arena = one_round[0]
    site = arena.parent / "site"
    rounds = site / "rounds" / "round-000001"
    title, text, _ = seen(browser, rounds / "index.html")
    assert title == "cup, arena round 1" and "tournament\tcup, arena round 1" in text
    assert not BARE_ROUND.search(text), text[:400]
    title, text, _ = seen(browser, rounds / "bots" / "bot-1.html")
    assert title == "cup, arena round 1: x@v1" and not BARE_ROUND.search(text)
    replays = sorted((rounds / "games").glob("*.html"))
    assert len(replays) == 3
    _, text, links = seen(browser, replays[0])
    assert links[0] == "\u2190 cup, arena round 1: all results"
    assert "Round 1" in text  # Rage's own round, beside the arena's named in full
    _, text, links = seen(browser, site / "index.html")
    assert "arena round 1" in links and not BARE_ROUND.search(text)


def test_a_round_played_under_the_old_title_is_published_under_the_new(
        one_round: tuple[Path, str, str], tmp_path: Path) -> None:
    """Rounds played before were titled "cup round 1" in their results db: publishing
    names them as the arena names its rounds now."""
    arena = tmp_path / "old" / "cup"
    shutil.copytree(one_round[0], arena)
    with sqlite3.connect(arena / "rounds" / "round-000001.sqlite") as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()
        spec = json.loads(text)
        assert spec["title"] == "cup, arena round 1"
        db.execute("UPDATE meta SET value = ? WHERE key = 'spec'",
                   (json.dumps({**spec, "title": "cup round 1"}),))
    site = tmp_path / "site"
    done = referee("arena", "publish", str(arena), str(site), "--replays", "none")
    assert done.returncode == 0, done.stderr
    page = (site / "rounds" / "round-000001" / "index.html").read_text()
    assert "<title>cup, arena round 1</title>" in page and "cup round 1" not in page


def test_a_long_or_unprintable_arena_name_still_makes_a_title(tmp_path: Path) -> None:
    name = "n" * 120
    title = round_title(tmp_path / name, 12)
    assert len(title) == MAX_TITLE and title.endswith("\u2026, arena round 12")
    assert round_title(tmp_path / "cup", 3) == "cup, arena round 3"
    assert round_title(tmp_path / "a\tb", 3) == "a\\tb, arena round 3"


def test_publishing_public_replaces_the_rounds_published_for_the_organiser(
        one_round: tuple[Path, str, str], tmp_path: Path) -> None:
    """A round already published is kept only if it was published alike: the organiser's
    replays (every hand, the versions' paths) never stay beside a --public front page."""
    arena = one_round[0]
    site = tmp_path / "site"
    shutil.copytree(arena.parent / "site", site)
    round_pages = site / "rounds" / "round-000001"
    script = str(ROOT / "bots" / "rage_heuristic.py")  # the versions' command lines hold it
    assert script in (round_pages / "index.html").read_text()  # the check can fail
    done = referee("arena", "publish", str(arena), str(site), "--public")
    assert done.returncode == 0, done.stderr
    assert "(1 round published, 0 already there)" in done.stdout, done.stdout
    pages = "".join(page.read_text() for page in site.rglob("*.html"))  # the front too
    assert script not in pages and "as a spectator saw it" in pages
    again = referee("arena", "publish", str(arena), str(site), "--public")
    assert "(0 rounds published, 1 already there)" in again.stdout, again.stdout
