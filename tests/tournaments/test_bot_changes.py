"""Issue 12, part 4, with real bots: a bot rebuilt between runs (its script rewritten, its
executable replaced) is refused at resume, named with its file and both hashes; --restart
keeps the old results in a backup that still opens; the records say which files and which
referee played; a db made before bots were recorded still reads, and resumes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import referee
from tests.cli_support import run_main
from tournaments.store.results_db import ResultStore

RANDOM = "python bots/rage_random.py"
# A deterministic stdio bot: the first legal answer to every request.
PY_BOT = ("import os, sys\n"
          "print('HELLO 2', os.environ['REFEREE_TOKEN'], 'firstpy {version}', flush=True)\n"
          "for line in sys.stdin:\n"
          "    words = line.split()\n"
          "    if words and words[0].endswith('?'):\n"
          "        print(words[1], flush=True)\n")
SH_BOT = ("#!/bin/sh\n"
          "echo \"HELLO 2 $REFEREE_TOKEN firstsh {version}\"\n"
          "while IFS= read -r line; do\n"
          "    set -- $line\n"
          "    case \"$1\" in *\\?) echo \"$2\" ;; BYE) exit 0 ;; esac\n"
          "done\n")


def bot_files(tmp_path: Path) -> tuple[Path, Path]:
    """A Python script and a shell executable, in a folder a sandboxed bot may read."""
    for path in (tmp_path.parent, tmp_path):  # a sandboxed bot runs as another user
        path.chmod(0o755)
    script, program = tmp_path / "first.py", tmp_path / "first.sh"
    script.write_text(PY_BOT.format(version="1.0"))
    program.write_text(SH_BOT.format(version="1.0"))
    program.chmod(0o755)
    return script, program


def tournament(db: Path, script: Path, program: Path, *extra: str) -> tuple[int, str, str]:
    """3 bots at one table of 3, 1 deal: 3 games."""
    return run_main(["tournament", "rage", "--db", str(db), "--jobs", "1", *extra,
                     f"py=stdio:python {script}", f"sh=stdio:{program}", f"rnd={RANDOM}"])


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_rewritten_script_is_refused_at_resume_naming_the_bot(tmp_path: Path) -> None:
    script, program = bot_files(tmp_path)
    db = tmp_path / "results" / "r.sqlite"  # not in the bots' folder
    assert tournament(db, script, program)[0] == 0
    old = sha256(script)
    script.write_text(PY_BOT.format(version="2.0"))
    before = db.read_bytes()
    code, out, err = tournament(db, script, program)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    for word in ("bot 'py' changed", f"script {script}", sha256(script)[:12], old[:12],
                 "--restart"):
        assert word in err, err
    assert db.read_bytes() == before  # nothing played, nothing written


def test_a_replaced_executable_is_refused_too(tmp_path: Path) -> None:
    script, program = bot_files(tmp_path)
    db = tmp_path / "results" / "r.sqlite"  # not in the bots' folder
    assert tournament(db, script, program)[0] == 0
    old = sha256(program)
    rebuilt = tmp_path / "first.sh.new"  # a build writes the new file, then renames it
    rebuilt.write_text(SH_BOT.format(version="2.0"))
    rebuilt.chmod(0o755)
    os.replace(rebuilt, program)
    code, _, err = tournament(db, script, program)
    assert code == 2 and "bot 'sh' changed" in err and f"executable {program}" in err, err
    assert sha256(program)[:12] in err and old[:12] in err
    assert "'py'" not in err  # the bot that did not change is not blamed


def test_restart_keeps_the_old_results_in_a_backup_that_still_opens(tmp_path: Path) -> None:
    script, program = bot_files(tmp_path)
    db = tmp_path / "results" / "r.sqlite"  # not in the bots' folder
    assert tournament(db, script, program)[0] == 0
    old = sha256(script)
    script.write_text(PY_BOT.format(version="2.0"))
    code, _, err = tournament(db, script, program, "--restart", "--format", "json")
    assert code == 0, err
    (backup,) = [path for path in db.parent.iterdir() if path.name.startswith("r.bak-")]
    assert f"old results are kept in {backup}/" in err
    assert sorted(path.name for path in backup.iterdir()) == ["r-logs", "r.sqlite"]
    code, out, err = run_main(["results", str(backup / "r.sqlite"), "--bot", "py",
                               "--format", "json"])
    assert code == 0, err
    shown = json.loads(out)
    (row,) = shown["tables"]["bots"]["rows"]
    assert row["script_sha256"] == old[:12] and row["hello"] == "'firstpy 1.0'"
    games = shown["tables"]["bot_games"]["rows"]
    assert all(Path(game["log"]).is_relative_to(backup) and Path(game["log"]).is_file()
               for game in games), games
    with ResultStore.open_existing(db) as fresh:  # the new db: the new bot, all games
        assert fresh.bots()["py"].hashes.script == sha256(script)
        assert fresh.bots()["py"].hello == ("firstpy", "2.0")
        assert len(fresh.done()) == 3


def test_each_record_says_which_files_seats_hellos_and_referee_played(
        tmp_path: Path) -> None:
    script, program = bot_files(tmp_path)
    db = tmp_path / "results" / "r.sqlite"  # not in the bots' folder
    assert tournament(db, script, program)[0] == 0
    with ResultStore.open_existing(db) as store:
        records, names = store.records(), store.spec.bot_names
        bots = store.bots()
    hellos = {"py": ("firstpy", "1.0"), "sh": ("firstsh", "1.0"),
              "rnd": ("rage_random", "1.0")}
    assert len(records) == 3 and names == ("py", "sh", "rnd")
    for record in records:
        assert record.referee_version == referee.__version__
        assert record.seats is not None and record.hashes is not None
        assert tuple(names[bot] for bot in record.seats) == record.bots
        assert record.hashes == tuple(bots[name].hashes for name in record.bots)
        assert record.hellos == tuple(hellos[name] for name in record.bots)
    assert bots["py"].hashes.script == sha256(script)
    assert bots["sh"].hashes.executable == sha256(program) and bots["sh"].script is None
    assert {name: bot.hello for name, bot in bots.items()} == hellos


def as_schema_1(db: Path) -> None:
    """What a referee before bot provenance made: no bots table (nor replaced_games, of
    schema 3), records without seats, hashes, hellos or version, schema "1"."""
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE bots")
        conn.execute("DROP TABLE replaced_games")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        conn.execute("UPDATE games SET record = json_remove(record, '$.seats', '$.hashes', "
                     "'$.hellos', '$.referee_version')")


def test_a_db_of_schema_1_reads_and_resumes_recording_the_bots_then(
        tmp_path: Path) -> None:
    script, program = bot_files(tmp_path)
    db = tmp_path / "results" / "r.sqlite"  # not in the bots' folder
    assert tournament(db, script, program)[0] == 0
    with sqlite3.connect(db) as conn:  # one game left to play at the resume
        conn.execute("DELETE FROM games WHERE fixture_index = 2")
    as_schema_1(db)
    code, out, err = run_main(["results", str(db), "--format", "json"])
    assert code == 0, err
    assert [row["executable"] for row in json.loads(out)["tables"]["bots"]["rows"]] == [None] * 3
    code, out, err = tournament(db, script, program)
    assert code == 0, err
    assert "made before bots' files were recorded" in err and "3/3 games (2 resumed)" in err
    with ResultStore.open_existing(db) as store:
        assert store.bots()["py"].hashes.script == sha256(script)
        records = store.records()
    assert [record.hashes is not None for record in records] == [False, False, True]
    script.write_text(PY_BOT.format(version="2.0"))  # from now on, it is checked
    code, _, err = tournament(db, script, program)
    assert code == 2 and "bot 'py' changed" in err, err
