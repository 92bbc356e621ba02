"""A damaged results db, a full disk and an unwritable results folder: one clear line, a
documented exit code (1: the db or the machine failed; 2: bad usage), and nothing that
was stored is lost, so the same command resumes once the trouble is gone."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests.tournaments.db_support import unplayed_copy

from tests.cli_support import assert_bad_input, run_main
from tests.tournaments.fakes import FakeContext, fake_play, make_spec
from tournaments.store import results_db as store_module
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.results_db import DamagedResults, ResultStore, ResultsWriteError

SPEC = make_spec(n_bots=5, deals=1)  # 5 tables x 4 rotations
FIXTURES = fixtures_for(SPEC, b"s" * 32)  # any secret: these tests are of the store
CONTEXT = FakeContext(SPEC.bot_names)
RANDOM = "python bots/rage_random.py"
HEURISTIC = "python bots/rage_heuristic.py"
FIRST = "stdio:bots/rage_first.sh"
ROOT = Path(__file__).resolve().parents[2]


def filled_db(path: Path, games: int = 5) -> Path:
    with ResultStore(path, SPEC) as store:
        for fixture in FIXTURES[:games]:
            store.add(fake_play(fixture, CONTEXT))
    return path


def tampered(tmp_path: Path, sql: str) -> Path:
    db = filled_db(tmp_path / "r.sqlite")
    with sqlite3.connect(db) as conn:
        conn.executescript(sql)
    return db


def stored_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute(
            "SELECT fixture_id FROM games ORDER BY fixture_index")]


FIRST_ROW = "WHERE fixture_index = 0"
TAMPERING = {
    "broken json": f"UPDATE games SET record = '{{broken' {FIRST_ROW}",
    "json not an object": f"UPDATE games SET record = '[1, 2]' {FIRST_ROW}",
    "a number for the record": f"UPDATE games SET record = 5 {FIRST_ROW}",
    "a key missing": f"UPDATE games SET record = json_remove(record, '$.scores') {FIRST_ROW}",
    "a fault without seat": "UPDATE games SET record = json_set(record, '$.faults', "
                            f"json('[{{\"kind\": \"timeout\"}}]')) {FIRST_ROW}",
    "scores of the wrong type": "UPDATE games SET record = json_set(record, '$.scores', "
                                f"json('[\"a\", \"b\", \"c\", \"d\"]')) {FIRST_ROW}",
    "a bot of no tournament": "UPDATE games SET record = json_set(record, '$.bots[0]', "
                              f"'mallory') {FIRST_ROW}",
    "a row moved to another game": f"UPDATE games SET fixture_id = 'rage/x' {FIRST_ROW}",
    "games table dropped": "DROP TABLE games",
    "record column dropped": "ALTER TABLE games DROP COLUMN record",
    "meta without columns": "DROP TABLE meta; CREATE TABLE meta (key TEXT)",
    "spec key deleted": "DELETE FROM meta WHERE key = 'spec'",
    "spec unreadable": "UPDATE meta SET value = '{\"game\": \"rage\"}' WHERE key = 'spec'",
    "spec out of range": "UPDATE meta SET value = json_set(value, '$.deals', 0) "
                         "WHERE key = 'spec'",
}


@pytest.mark.parametrize("damage", sorted(TAMPERING))
def test_results_of_a_tampered_db_is_one_line_and_exit_1(damage: str, tmp_path: Path) -> None:
    db = tampered(tmp_path, TAMPERING[damage])
    code, out, err = run_main(["results", str(db)])
    lines = err.strip().splitlines()
    assert code == 1 and out == "", err
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), err
    assert "damaged results db" in lines[0] and str(db) in lines[0]


@pytest.mark.parametrize("cut", ["truncated", "overwritten"])
def test_a_malformed_sqlite_file_is_damaged_too(cut: str, tmp_path: Path) -> None:
    db = filled_db(tmp_path / "r.sqlite")
    data = db.read_bytes()
    db.write_bytes(data[:len(data) // 2] if cut == "truncated"
                   else data[:100] + b"\xff" * (len(data) - 100))
    code, _, err = run_main(["results", str(db)])
    assert code == 1 and "damaged results db" in err and "Traceback" not in err


def test_a_file_that_is_no_results_db_stays_bad_usage(tmp_path: Path) -> None:
    (tmp_path / "notes.sqlite").write_text("just words, not a database " * 100)
    assert_bad_input(["results", str(tmp_path / "notes.sqlite")], "not a results db")
    with sqlite3.connect(tmp_path / "other.sqlite") as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    assert_bad_input(["results", str(tmp_path / "other.sqlite")], "not a results db")


def test_resuming_into_a_damaged_db_is_exit_1_and_changes_nothing(tmp_path: Path) -> None:
    db = tampered(tmp_path, "DELETE FROM meta WHERE key = 'fingerprint'")
    before = db.read_bytes()
    code, _, err = run_main(["tournament", "rage", "--db", str(db), RANDOM, RANDOM])
    assert code == 1 and "damaged results db" in err and "Traceback" not in err
    assert db.read_bytes() == before


def test_the_store_checks_every_row_it_reads(tmp_path: Path) -> None:
    db = tampered(tmp_path, TAMPERING["scores of the wrong type"])
    with ResultStore.open_existing(db) as store:
        with pytest.raises(DamagedResults, match="scores"):
            store.records()


# ---------------------------------------------------------------- a full disk

def test_a_full_disk_fails_the_write_cleanly_and_keeps_every_committed_game(
        tmp_path: Path) -> None:
    """SQLite's own disk-full error, from a page limit on the connection."""
    db = filled_db(tmp_path / "r.sqlite", games=3)
    with ResultStore(db, SPEC) as store:
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")
        big = fake_play(FIXTURES[3], CONTEXT)
        flood = GameRecord(**{**big.__dict__, "log_path": "x" * 100_000})
        with pytest.raises(ResultsWriteError, match="full") as caught:
            store.add(flood)
        assert "resumes" in str(caught.value)
        assert not store._conn.in_transaction
        store._conn.execute(f"PRAGMA max_page_count = {pages * 100}")
        assert store.add(fake_play(FIXTURES[4], CONTEXT))  # the store is still usable
    assert stored_ids(db) == [fixture.fixture_id for fixture in FIXTURES[:3] + FIXTURES[4:5]]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_failed_commit_is_rolled_back(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    db = filled_db(tmp_path / "r.sqlite", games=2)

    def insert_then_fail(conn: sqlite3.Connection, index: int, record: GameRecord) -> None:
        conn.execute("INSERT INTO games (fixture_index, fixture_id, record) VALUES (?, ?, ?)",
                     (index, record.fixture_id, json.dumps(record.to_json())))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module, "_insert", insert_then_fail)
    with ResultStore(db, SPEC) as store:
        with pytest.raises(ResultsWriteError, match="No space left"):
            store.add(fake_play(FIXTURES[2], CONTEXT))
        assert store.done() == {fixture.fixture_id for fixture in FIXTURES[:2]}


def rage_args(db: Path) -> list[str]:
    """3 sample bots at tables of 3, 2 deals: 6 games."""
    return ["tournament", "rage", "--deals", "2", "--jobs", "1", "--db", str(db),
            "--format", "json", "--move-time", "5", RANDOM, HEURISTIC, FIRST]


def test_a_disk_full_mid_tournament_is_one_line_exit_1_and_resumable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    real_insert = store_module._insert
    writes: list[str] = []

    def fills_up(conn: sqlite3.Connection, index: int, record: GameRecord) -> None:
        if len(writes) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        writes.append(record.fixture_id)
        real_insert(conn, index, record)

    db = tmp_path / "full.sqlite"
    monkeypatch.setattr(store_module, "_insert", fills_up)
    code, out, err = run_main(rage_args(db))
    monkeypatch.setattr(store_module, "_insert", real_insert)
    errors = [line for line in err.splitlines() if line.startswith("referee: error: ")]
    assert code == 1 and out == "" and "Traceback" not in err, err
    assert len(errors) == 1 and "No space left on device" in errors[0], err
    assert stored_ids(db) == writes  # the games committed before are all there

    code, resumed, err = run_main(rage_args(db))
    assert code == 0 and "(2 resumed)" in err, err
    unplayed_copy(db, tmp_path / "clean.sqlite")  # the same deal secret, so the same deals
    code, clean, _ = run_main(rage_args(tmp_path / "clean.sqlite"))
    assert code == 0 and resumed == clean and json.loads(clean)


# ---------------------------------------------------------------- an unwritable folder

def test_a_results_folder_that_cannot_be_written_is_refused_at_start(tmp_path: Path) -> None:
    assert_bad_input(["tournament", "rage", "--db", "/proc/referee-test/r.sqlite",
                      RANDOM, RANDOM], "cannot use", "r.sqlite")


def test_resuming_in_a_folder_no_longer_writable_is_refused_before_any_game(tmp_path: Path) -> None:
    """SQLite makes its journal beside the db at the first write; here it cannot (a
    dangling link into /proc stands where the journal goes, which stops root too)."""
    db = filled_db(tmp_path / "r.sqlite", games=2)
    journal = tmp_path / "r.sqlite-journal"
    journal.symlink_to("/proc/referee-no-such-folder/journal")
    with pytest.raises(sqlite3.OperationalError):
        ResultStore(db, SPEC)
    journal.unlink()
    assert stored_ids(db) == [fixture.fixture_id for fixture in FIXTURES[:2]]
    with ResultStore(db, SPEC) as store:  # writable again: the same store resumes
        assert store.add(fake_play(FIXTURES[2], CONTEXT))


def test_an_unwritable_game_logs_folder_is_refused_before_any_game(tmp_path: Path) -> None:
    (tmp_path / "r-logs").write_text("a file where the game logs go")
    assert_bad_input(["tournament", "rage", "--db", str(tmp_path / "r.sqlite"),
                      RANDOM, RANDOM], "cannot write game logs", "r-logs")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod")
def test_a_read_only_results_folder_is_refused(tmp_path: Path) -> None:
    db = filled_db(tmp_path / "ro" / "r.sqlite", games=2)
    db.parent.chmod(0o555)
    try:
        with pytest.raises(sqlite3.OperationalError):
            ResultStore(db, SPEC)
    finally:
        db.parent.chmod(0o755)
    assert len(stored_ids(db)) == 2


def test_a_db_locked_by_another_run_for_too_long_is_one_line_and_exit_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = filled_db(tmp_path / "r.sqlite")
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect",  # wait 0.1 s for the lock, not a minute
                        lambda *args, **options: real_connect(*args, **{**options,
                                                                        "timeout": 0.1}))
    holder = real_connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another writer in the middle of a commit
    try:
        code, out, err = run_main(["results", str(db)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.startswith("referee: error: ") and "locked" in err and len(err.splitlines()) == 1
