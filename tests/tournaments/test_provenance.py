"""Bot provenance without playing: which files a bot command runs, their sha256, the bots
table of a results db, its checks, the Bots report table, and the backup of --restart."""

from __future__ import annotations

import hashlib
import io
import sqlite3
import sys
from datetime import datetime
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.players.lineup import bot_specs
from tests.cli_support import run_main
from tests.tournaments.fakes import TEST_SECRET, FakeContext, fake_play, make_spec
from tournaments.store import provenance
from tournaments.store.backup import back_up
from tournaments.output.bots_table import bots_table
from tournaments.store.provenance import BotProvenance, bots_provenance, file_sha256
from tournaments.store.records import BotHashes
from tournaments.output.formats import OutputFormat
from tournaments.output.render import render
from tournaments.output.results import metadata
from tournaments.schedule.fixtures import fixtures_for
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.store.results_db import DamagedResults, ResultStore, logs_dir

ROOT = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def provenance_of(*commands: str) -> tuple[BotProvenance, ...]:
    entries = [BotEntry(f"b{i}", command) for i, command in enumerate(commands)]
    return bots_provenance(entries, bot_specs(commands, [e.name for e in entries]), ROOT)


def test_an_interpreters_script_and_a_programs_own_file_are_hashed() -> None:
    python, shell, inline = provenance_of("python bots/rage_random.py",
                                          "stdio:bots/rage_first.sh",
                                          "stdio:sh -c 'exit 1'")
    own = Path(sys.executable).resolve()
    assert python.executable == str(own) and python.hashes.executable == sha256(own)
    assert python.script == str(ROOT / "bots" / "rage_random.py")
    assert python.hashes.script == sha256(ROOT / "bots" / "rage_random.py")
    assert shell.executable == str(ROOT / "bots" / "rage_first.sh") and shell.script is None
    assert shell.hashes == BotHashes(sha256(ROOT / "bots" / "rage_first.sh"))
    assert Path(inline.executable).name in ("sh", "dash", "bash") and inline.script is None


def test_a_folder_is_no_script_and_a_later_file_argument_is(tmp_path: Path) -> None:
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"\x00\x01" * 1000)
    (folder,) = provenance_of(f"stdio:sh {tmp_path}")
    (given,) = provenance_of(f"stdio:sh -c true {tmp_path} {weights}")
    assert folder.script is None
    assert given.script == str(weights) and given.hashes.script == sha256(weights)


def test_a_big_file_hashes_in_chunks_to_its_sha256(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.write_bytes(bytes(range(256)) * (40 << 12))  # 40 MiB
    assert file_sha256(big) == sha256(big)


def test_an_unreadable_file_names_the_bot_and_the_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Root reads any file, so the refusal of the open is simulated at the one seam."""
    def refuse(path: Path) -> io.BufferedReader:
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr(provenance, "_open_binary", refuse)
    with pytest.raises(ConfigError, match=r"bot 'b0': cannot read its executable .*"
                                          "Permission denied"):
        provenance_of("python bots/rage_random.py")


def test_an_unreadable_script_stops_the_tournament_before_any_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = provenance._open_binary

    def refuse_scripts(path: Path) -> io.BufferedReader:
        if path.suffix == ".py":
            raise PermissionError(13, "Permission denied", str(path))
        return opened(path)
    monkeypatch.setattr(provenance, "_open_binary", refuse_scripts)
    db = tmp_path / "r.sqlite"
    code, out, err = run_main(["tournament", "rage", "--db", str(db), "--jobs", "1",
                               "python bots/rage_random.py", "stdio:bots/rage_first.sh"])
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "'rage_random'" in err and "rage_random.py" in err and "Permission" in err
    assert not db.exists()


SPEC = make_spec(n_bots=3)
BOTS = tuple(BotProvenance(bot.name, "candidate", bot.command, "/usr/bin/python3",
                           None, BotHashes(f"{i:x}" * 64)) for i, bot in enumerate(SPEC.bots))


def test_the_store_records_the_bots_and_refuses_one_that_changed(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with ResultStore(db, SPEC) as store:
        assert not store.claim_bots(BOTS).unchecked
    changed = BOTS[1].__class__(**{**BOTS[1].__dict__,
                                   "hashes": BotHashes("f" * 64, "e" * 64),
                                   "script": "/x/b.py"})
    with ResultStore(db, SPEC) as store:
        assert not store.claim_bots(BOTS).unchecked  # the same files: resumes
        with pytest.raises(ConfigError) as refused:
            store.claim_bots((BOTS[0], changed, BOTS[2]))
        assert store.bots() == {bot.name: bot for bot in BOTS}  # nothing written
    words = str(refused.value)
    for word in ("bot 'b'", "executable /usr/bin/python3", "ffffffffffff now",
                 "111111111111 in the db", "script /x/b.py", "eeeeeeeeeeee now",
                 "none in the db", "--restart", "--db"):
        assert word in words, words


def test_each_bots_first_hello_is_kept(tmp_path: Path) -> None:
    fixtures = fixtures_for(SPEC, TEST_SECRET)
    records = [fake_play(fixture, FakeContext(SPEC.bot_names)) for fixture in fixtures[:2]]
    first, second = (record.__class__(**{**record.__dict__, "hellos": tuple(
        (f"{name}-bot", version) for name in record.bots)})
        for record, version in zip(records, ("1.0", "2.0")))
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        store.claim_bots(BOTS)
        store.add(first)
        store.add(second)
        hellos = {name: bot.hello for name, bot in store.bots().items()}
    assert hellos == {name: (f"{name}-bot", "1.0") for name in first.bots}


def test_a_tampered_bots_row_is_a_damaged_db(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with ResultStore(db, SPEC) as store:
        store.claim_bots(BOTS)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE bots SET executable_sha256 = x'05' WHERE name = 'a'")
    with ResultStore.open_existing(db) as store, pytest.raises(DamagedResults, match="bots"):
        store.bots()
    code, out, err = run_main(["results", str(db)])
    assert code == 1 and out == "" and "damaged results db" in err, err


def test_the_bots_table_escapes_commands_in_html_and_marks_what_is_unknown() -> None:
    spec = TournamentSpec.create("rage", (BotEntry("x", "stdio:sh -c 'echo <b>hi</b>'"),
                                          BotEntry("y", "python y.py", reference=True)))
    recorded = {"y": BotProvenance("y", "reference", "python y.py", "/p", "/y.py",
                                   BotHashes("a" * 64, "b" * 64), ("why", "0.1"))}
    table = bots_table(spec, recorded)
    assert table.title == "Bots"
    assert table.rows[0][:5] == ("x", "candidate", None, "stdio:sh -c 'echo <b>hi</b>'",
                                 None)
    assert table.rows[1] == ("y", "reference", 1, "python y.py", "'why 0.1'", "/p",
                             "a" * 12, "/y.py", "b" * 12)
    shown = render([table], metadata(spec, 0), OutputFormat.HTML).out
    assert "<b>hi" not in shown and "&lt;b&gt;hi" in shown
    assert bots_table(spec, recorded, only="y").rows == table.rows[1:]


def test_a_backup_is_a_new_folder_and_never_overwrites_another(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    now = datetime(2024, 5, 6, 7, 8, 9)
    folders = []
    for game in range(2):
        with ResultStore(db, SPEC) as store:
            store.add(fake_play(fixtures_for(SPEC, store.deal_secret)[game],
                                FakeContext(SPEC.bot_names)))
        (logs_dir(db) / "a.jsonl").write_text(f"game {game}")
        folders.append(back_up(db, now))
    assert [f.name for f in folders if f] == ["r.bak-20240506-070809",
                                              "r.bak-20240506-070809-2"]
    for game, folder in enumerate(folders):
        assert folder is not None
        assert sorted(p.name for p in folder.iterdir()) == ["r-logs", "r.sqlite"]
        assert (folder / "r-logs" / "a.jsonl").read_text() == f"game {game}"
    assert not db.exists() and not logs_dir(db).exists()
    assert back_up(db, now) is None  # nothing to back up


def test_a_db_that_is_a_symbolic_link_is_not_moved_by_a_restart(tmp_path: Path) -> None:
    """Moving a relative link into the backup folder would make a backup of nothing."""
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "r.sqlite"
    with ResultStore(target, SPEC):
        pass
    link = tmp_path / "r.sqlite"
    link.symlink_to(Path("real") / "r.sqlite")
    with pytest.raises(ConfigError, match="symbolic link"):
        back_up(link)
    assert link.resolve() == target.resolve() and target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite", "real"]


def test_restart_moves_only_a_results_db(tmp_path: Path) -> None:
    notes = tmp_path / "notes.sqlite"
    notes.write_text("my notes, not results " * 50)
    code, _, err = run_main(["tournament", "rage", "--db", str(notes), "--restart",
                             "python bots/rage_random.py", "stdio:bots/rage_first.sh"])
    assert code == 2 and "not a results db" in err and err.count("\n") == 1, err
    assert notes.read_text() == "my notes, not results " * 50
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]


def test_a_db_without_meta_is_damaged_and_one_of_a_newer_schema_is_refused(
        tmp_path: Path) -> None:
    lost, newer = tmp_path / "lost.sqlite", tmp_path / "newer.sqlite"
    for db in (lost, newer):
        with ResultStore(db, SPEC) as store:
            store.claim_bots(BOTS)
    with sqlite3.connect(lost) as conn:
        conn.execute("DROP TABLE meta")
    with sqlite3.connect(newer) as conn:
        conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
    code, _, err = run_main(["results", str(lost)])
    assert code == 1 and "damaged results db" in err and "no meta" in err, err
    code, _, err = run_main(["results", str(newer)])
    assert code == 2 and "schema '4'" in err and "reads schemas 1, 2, 3" in err, err
