"""`referee arena run`, `standings` and `publish` with real sample bots (issue 31): rounds
planned, played and counted; a new version mid-run placed and ranked while the old one
keeps its history; a SIGKILLed run resumed with nothing lost or counted twice."""

from __future__ import annotations

import json
import os
import signal
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tournaments.arena.store import ArenaDb
from tournaments.store.run_lock import run_lock

ROOT = Path(__file__).resolve().parents[3]
HEURISTIC = "python bots/rage_heuristic.py"


def referee(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def make_arena(folder: Path, mistakes: dict[str, float], size: int = 3) -> None:
    assert referee("arena", "init", str(folder), "--game", "rage", "--table-size",
                   str(size), "--placement", "1").returncode == 0
    for name, rate in mistakes.items():
        done = referee("arena", "submit", str(folder), name, f"{HEURISTIC} --mistakes {rate}")
        assert done.returncode == 0, done.stdout + done.stderr


def arena_rows(folder: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(folder / "arena.db") as db:
        return db.execute(query).fetchall()


def round_games(folder: Path, number: int) -> int:
    with sqlite3.connect(folder / "rounds" / f"round-{number:06d}.sqlite") as db:
        (count,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
    return int(count)


def assert_counted_once(folder: Path, size: int, allow_planned: bool = False) -> None:
    """Every round played (but the last, if interrupted), each counted with exactly its
    tables' games, none twice."""
    rounds = arena_rows(folder, "SELECT round, tables, status FROM rounds ORDER BY round")
    if allow_planned and rounds and rounds[-1][2] == "planned":
        rounds = rounds[:-1]
    assert rounds and all(status == "played" for _, _, status in rounds)
    for number, tables, _ in rounds:
        planned = len(json.loads(str(tables))) * size
        (counted,) = arena_rows(folder, f"SELECT COUNT(*) FROM games WHERE round = {number}")[0]
        assert counted == planned == round_games(folder, int(str(number)))


def standings_json(folder: Path, *extra: str) -> dict[str, list[dict[str, object]]]:
    done = referee("arena", "standings", str(folder), "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)["tables"]
    return {name: table["rows"] for name, table in tables.items()}


def test_run_plays_rounds_counts_them_and_prints_the_leaderboard(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    make_arena(arena, {"sharp": 0.0, "sloppy": 0.5, "wild": 1.0})
    done = referee("arena", "run", str(arena), "--games", "20", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "round 1: " in done.stderr and " games, " in done.stderr
    assert "Leaderboard" in done.stdout and "score = mu - 3 sigma" in done.stdout
    assert_counted_once(arena, 3)
    (games,) = arena_rows(arena, "SELECT COUNT(*) FROM games")[0]
    assert int(str(games)) >= 20
    board = standings_json(arena)["leaderboard"]
    assert [row["rank"] for row in board] == [1, 2, 3]
    assert {row["contestant"] for row in board} == {"sharp", "sloppy", "wild"}
    assert all(row["games"] == games for row in board)  # 3 versions at tables of 3
    # a round is a tournament: its db reads as one
    results = referee("results", str(arena / "rounds" / "round-000001.sqlite"))
    assert results.returncode == 0 and "sharp@v1" in results.stdout, results.stderr


def test_a_new_version_mid_run_is_checked_placed_and_ranked_and_the_old_keeps_its_history(
        tmp_path: Path) -> None:
    """Submitted while `arena run` plays: the run seats the new version from its next
    round on, placement table first; SIGTERM to its group (as `timeout` sends, and as
    Ctrl-C does: SIGINT, which a shell may have set ignored for a test run in the
    background) then stops the run (143), keeping its games."""
    arena = tmp_path / "a"
    make_arena(arena, {"ann": 1.0, "bob": 0.5, "cat": 0.0, "dan": 0.5})
    run = subprocess.Popen([sys.executable, "-m", "referee", "arena", "run", str(arena),
                            "--jobs", "1"], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: _rounds_played(arena) >= 1)
        new = referee("arena", "submit", str(arena), "ann", f"{HEURISTIC} --mistakes 0")
        assert new.returncode == 0 and "ann v2" in new.stdout and "active" in new.stdout
        wait_for(lambda: bool(arena_rows(
            arena, "SELECT round FROM games WHERE record LIKE '%ann@v2%' LIMIT 1")))
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        _, err = run.communicate(timeout=120)
    assert run.returncode == 143, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("referee: arena run interrupted: its games so far are kept"), err
    assert last.count("resume") == 1, last  # it said so twice
    placed = [json.loads(str(t))[0] for (t,) in arena_rows(
        arena, "SELECT tables FROM rounds WHERE tables LIKE '%ann@v2%' ORDER BY round")]
    assert placed[0][0] == "ann@v2"  # its first round opens with its placement table
    tables_ = standings_json(arena, "--history")
    assert [row["contestant"] for row in tables_["leaderboard"]].count("ann") == 1
    history = {(row["contestant"], row["version"]): row for row in tables_["history"]}
    old, current = history["ann", 1], history["ann", 2]
    assert old["status"] == "retired" and int(str(old["games"])) > 0
    assert old["mu"] is not None  # its rating stays
    assert current["status"] == "active" and int(str(current["games"])) > 0
    assert_counted_once(arena, 3, allow_planned=True)


def wait_for(condition: Callable[[], bool], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.1)


def _rounds_played(arena: Path) -> int:
    return len(arena_rows(arena, "SELECT round FROM rounds WHERE status = 'played'"))


def test_a_sigkilled_run_resumes_with_nothing_lost_or_counted_twice(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    make_arena(arena, {"p": 0.0, "q": 0.3, "r": 0.6, "s": 1.0})
    run = subprocess.Popen([sys.executable, "-m", "referee", "arena", "run", str(arena),
                            "--jobs", "1"], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    second = arena / "rounds" / "round-000002.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # kill it in the middle of round 2
        if second.exists() and _games_in(second) >= 1:
            break
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=30)
    assert _games_in(second) >= 1
    statuses = arena_rows(arena, "SELECT round, status FROM rounds ORDER BY round")
    assert statuses[0] == (1, "played") and statuses[1] == (2, "planned")
    (before,) = arena_rows(arena, "SELECT COUNT(*) FROM games")[0]
    done = referee("arena", "run", str(arena), "--games", "1", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("round 2: ")  # the killed round is finished first
    assert_counted_once(arena, 3)
    (after,) = arena_rows(arena, "SELECT COUNT(*) FROM games")[0]
    assert int(str(after)) > int(str(before))


def _games_in(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            (count,) = conn.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(count)
    except sqlite3.Error:
        return 0  # not made yet


def test_publish_writes_the_leaderboard_and_each_round(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    make_arena(arena, {"x": 0.0, "y": 0.5, "z": 1.0})
    assert referee("arena", "run", str(arena), "--games", "6", "--jobs", "1").returncode == 0
    site = tmp_path / "site"
    done = referee("arena", "publish", str(arena), str(site), "--replays", "none")
    assert done.returncode == 0, done.stderr
    page = (site / "index.html").read_text()
    assert 'id="leaderboard"' in page and 'id="history"' in page
    assert 'href="rounds/round-000001/index.html"' in page
    round_page = (site / "rounds" / "round-000001" / "index.html").read_text()
    assert '<a id="up" href="../../index.html">' in round_page  # back to the leaderboard
    again = referee("arena", "publish", str(arena), str(site), "--replays", "none")
    assert "0 rounds published" in again.stdout and "already there" in again.stdout


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An arena of two versions at tables of 3: one short of a table."""
    arena = tmp_path_factory.mktemp("arena") / "a"
    make_arena(arena, {"only": 0.0, "two": 1.0})
    return arena


@pytest.mark.parametrize("args, why", [
    (("standings", "{arena}/none"), "is no arena"),
    (("run", "{arena}", "--games", "3"), "2 active versions; tables of 3 need 3"),
    (("run", "{arena}", "--top", "1"), "--confidence and --top go with --until-settled"),
    (("run", "{arena}", "--jobs", "1", "--cluster", "local:1"), "exclude each other"),
])
def test_bad_input_is_one_error_line(two_versions: Path, args: tuple[str, ...],
                                     why: str) -> None:
    done = referee("arena", *(a.format(arena=two_versions) for a in args))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("referee: error: ") and why in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert arena_rows(two_versions, "SELECT COUNT(*) FROM rounds") == [(0,)]


@pytest.mark.parametrize("fmt, expected", [
    ("text", "Leaderboard: the active versions"), ("markdown", "|   Rank | Contestant"),
    ("csv", "rank,contestant,version,games,tables,mu,interval"),
    ("html", '<table id="leaderboard">')])
def test_standings_in_every_format_before_any_game(two_versions: Path, fmt: str,
                                                   expected: str) -> None:
    """Versions with no game yet are listed, their rating not yet known (n/a)."""
    done = referee("arena", "standings", str(two_versions), "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout and "only" in done.stdout and "two" in done.stdout


def test_standings_history_in_csv_is_the_history(two_versions: Path) -> None:
    """CSV holds one table: with --history, the one asked for (every version, with its
    status), not the leaderboard again."""
    done = referee("arena", "standings", str(two_versions), "--history", "--format", "csv")
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.startswith("contestant,version,status,submitted,sha256,command_line_sha256,"
                             "games,"), header
    assert [row.split(",")[:3] for row in rows] == [["only", "1", "active"],
                                                     ["two", "1", "active"]]


def test_a_damaged_arena_db_is_one_error_line(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    assert referee("arena", "init", str(arena), "--game", "rage").returncode == 0
    (arena / "arena.db").write_bytes(b"not a database at all" * 100)
    for command in ("standings", "run"):
        done = referee("arena", command, str(arena))
        assert done.returncode == 2 and "is not an arena's db" in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1


def test_a_version_row_of_no_known_status_is_one_error_line(two_versions: Path,
                                                            tmp_path: Path) -> None:
    """An edited arena.db: a version of an unknown status was silently left out of the
    leaderboard while --history listed it."""
    arena = tmp_path / "a"
    shutil.copytree(two_versions, arena)
    with sqlite3.connect(arena / "arena.db") as db:
        db.execute("UPDATE versions SET status = 'weird' WHERE name = 'two'")
    for args in (("standings",), ("standings", "--history"), ("run", "--games", "1")):
        done = referee("arena", args[0], str(arena), *args[1:])
        assert done.returncode == 2, done.stdout + done.stderr
        assert "version two v1 has the status 'weird'" in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1


def test_run_on_a_local_cluster_plays_and_counts_every_round(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    make_arena(arena, {"one": 0.0, "two": 0.5, "three": 1.0})
    done = referee("arena", "run", str(arena), "--games", "30", "--cluster", "local:2")
    assert done.returncode == 0, done.stderr
    rounds = [line for line in done.stderr.splitlines() if line.startswith("round ")]
    assert len(rounds) >= 2, done.stderr  # tables for 2 threads: several rounds for 30
    assert_counted_once(arena, 3)


def submit_own_folder(arena: Path, tmp_path: Path) -> None:
    """Contestant `me`, v1: a copy of the random bot, submitted with --dir."""
    source = tmp_path / "mine"
    source.mkdir()
    (source / "bot.py").write_bytes((ROOT / "bots" / "rage_random.py").read_bytes())
    own = referee("arena", "submit", str(arena), "me", "--dir", str(source), "--cmd",
                  "python bot.py")
    assert own.returncode == 0, own.stdout + own.stderr


def test_a_version_whose_files_change_after_submission_is_seated_no_more(
        tmp_path: Path) -> None:
    """A version's files are hashed when it is submitted; written to afterwards (here its
    frozen copy, made writable again), it would play code nobody checked. The run sets
    it aside, says so, and its games stay."""
    arena = tmp_path / "a"
    make_arena(arena, {"p": 0.0, "q": 0.5, "r": 1.0})
    submit_own_folder(arena, tmp_path)
    assert referee("arena", "run", str(arena), "--games", "1", "--jobs", "1").returncode == 0
    copy = arena / "submissions" / "me" / "v1" / "bot.py"
    copy.chmod(0o644)
    copy.write_text(copy.read_text() + "\n# changed after the check\n")
    done = referee("arena", "run", str(arena), "--games", "1", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "me@v1: its files changed after it was submitted" in done.stderr
    history = {row["contestant"]: row for row in standings_json(arena, "--history")["history"]}
    assert history["me"]["status"] == "changed" and int(str(history["me"]["games"])) > 0
    (last,) = arena_rows(arena, "SELECT tables FROM rounds ORDER BY round DESC LIMIT 1")[0]
    assert "me@v1" not in str(last)


def test_until_settled_stopped_by_games_says_it_is_not_settled(tmp_path: Path) -> None:
    """Three copies of the seeded random bot tie at every table (each plays the deal's
    every seat alike), so their order cannot settle: --games stops the run, and the run
    says so rather than leave its leaderboard to be read as settled."""
    arena = tmp_path / "a"
    assert referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3",
                   "--placement", "0").returncode == 0
    for name in ("ann", "ben", "cat"):
        done = referee("arena", "submit", str(arena), name, "python bots/rage_random.py")
        assert done.returncode == 0, done.stdout + done.stderr
    done = referee("arena", "run", str(arena), "--until-settled", "--games", "1",
                   "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "settled after" not in done.stdout
    last = done.stdout.splitlines()[-1]
    assert last.startswith("not settled: stopped at --games 1 (3 games this run), the order "
                           "at 95% confidence; 2 pairs open, least certain: "), last
    assert re.search(r"(\S+) above \S+ \(the chance \1 is the stronger: \d+%\)$", last), last


def test_a_planned_round_seating_a_changed_version_is_abandoned(tmp_path: Path) -> None:
    """A run killed with a round planned; then a version's files change. That round can
    be neither played as planned (the version is set aside) nor resumed (its results db
    refuses a changed bot, and would have every later run fail on it): it is abandoned,
    never counted, and the run goes on."""
    arena = tmp_path / "a"
    make_arena(arena, {"p": 0.0, "q": 0.5})
    submit_own_folder(arena, tmp_path)
    with ArenaDb(arena) as db:  # the round a killed run leaves planned
        db.plan([["p@v1", "q@v1", "me@v1"]])
    copy = arena / "submissions" / "me" / "v1" / "bot.py"
    copy.chmod(0o644)
    copy.write_text(copy.read_text() + "\n# changed after the check\n")
    done = referee("arena", "run", str(arena), "--games", "1", "--jobs", "1")
    assert ("round 1: abandoned, not counted: it seats me@v1, whose files changed"
            in done.stderr), done.stderr
    # two versions are left for tables of 3: the run stops there, in one error line
    assert done.returncode == 2 and done.stderr.splitlines()[-1].startswith(
        "referee: error: "), done.stderr
    assert arena_rows(arena, "SELECT round, status FROM rounds") == [(1, "abandoned")]
    assert arena_rows(arena, "SELECT COUNT(*) FROM games") == [(0,)]


def test_a_second_run_is_refused_without_options_arena_run_lacks(tmp_path: Path) -> None:
    """Another `arena run` holds the arena: one error line, exit 2, and no advice to
    give another --db, which arena run has not."""
    arena = tmp_path / "a"
    assert referee("arena", "init", str(arena), "--game", "rage").returncode == 0
    with run_lock(arena / "arena.db", elsewhere=""):  # as a run under way holds it
        done = referee("arena", "run", str(arena), "--games", "1")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"referee: error: {arena / 'arena.db'} is in use by pid "
                                  f"{os.getpid()}: another run is playing its games"), \
        done.stderr
    assert "--db" not in done.stderr and len(done.stderr.splitlines()) == 1
