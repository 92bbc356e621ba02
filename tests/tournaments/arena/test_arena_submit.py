"""`referee arena init` and `referee arena submit` with real sample bots (issue 31):
settings refused in one error line, versions hashed and frozen, a failing bot refused
with its check's report."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HEURISTIC = "python bots/rage_heuristic.py"


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def versions(arena: Path) -> list[tuple[str, int, str]]:
    with sqlite3.connect(arena / "arena.db") as db:
        return db.execute("SELECT name, version, status FROM versions "
                          "ORDER BY name, version").fetchall()


def test_init_makes_the_arena_and_refuses_a_second_or_bad_settings(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    assert referee("arena", "init", str(arena), "--game", "rage").returncode == 0
    settings = (arena / "arena.toml").read_text()
    assert 'game = "rage"\ntable_size = 4\nplacement = 3\n' in settings
    assert "[limits]\nstartup = 10.0\nmove = 1.0\n" in settings
    assert (arena / "submissions").is_dir()
    for args, why in [((str(arena), "--game", "rage"), "holds an arena already"),
                      ((str(tmp_path / "b"), "--game", "thegame"), "competitive games only"),
                      ((str(tmp_path / "c"), "--game", "rage", "--table-size", "9"),
                       "needs 3 to 8 bots, got 9"),
                      ((str(tmp_path / "d"), "--game", "nope"), "unknown game")]:
        done = referee("arena", "init", *args)
        assert done.returncode == 2
        assert done.stderr.startswith("referee: error: ") and why in done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_submit_adds_versions_checks_them_and_freezes_their_files(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3")
    first = referee("arena", "submit", str(arena), "heur", HEURISTIC)
    assert first.returncode == 0, first.stderr
    assert "heur@v1 conforms" in first.stdout and "heur v1" in first.stdout
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_bytes((ROOT / "bots" / "rage_random.py").read_bytes())
    second = referee("arena", "submit", str(arena), "heur", "--dir", str(source),
                     "--cmd", "python bot.py")
    assert second.returncode == 0, second.stdout + second.stderr
    copied = arena / "submissions" / "heur" / "v2" / "bot.py"
    assert copied.read_bytes() == (source / "bot.py").read_bytes()
    assert not copied.stat().st_mode & 0o222 and not copied.parent.stat().st_mode & 0o222
    # v2 takes heur's place at the tables; v1 keeps its history
    assert versions(arena) == [("heur", 1, "retired"), ("heur", 2, "active")]


def test_a_failing_submission_is_refused_with_the_checks_report(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage")
    source = tmp_path / "bad"
    source.mkdir()
    (source / "bot.sh").write_text("#!/bin/sh\necho nonsense\n")
    (source / "bot.sh").chmod(0o755)
    done = referee("arena", "submit", str(arena), "bad", "--dir", str(source))
    assert done.returncode == 1
    assert "FAIL  HELLO in time" in done.stdout and "bad@v1 does not conform" in done.stdout
    assert "refused" in done.stdout
    assert versions(arena) == [("bad", 1, "refused")]
    with sqlite3.connect(arena / "arena.db") as db:
        (report,) = db.execute("SELECT report FROM versions").fetchone()
    assert "died before its HELLO" in report
    history = referee("arena", "standings", str(arena), "--history", "--format", "csv")
    assert history.returncode == 0, history.stderr
    (row,) = csv.DictReader(io.StringIO(history.stdout))
    assert (row["contestant"], row["status"]) == ("bad", "refused")
    assert row["why"] == ("failed its check: HELLO in time, protocol version: startup: "
                          "died before its HELLO: bot exited with code 0"), row


def test_submit_refuses_bad_names_and_arguments(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage")
    for args, why in [(("a+b", HEURISTIC), "bad contestant name"),
                      (("x",), "give a COMMAND or --dir"),
                      (("x", HEURISTIC, "--cmd", "y"), "--cmd goes with --dir"),
                      (("x", "python no_such_file.py"), "none of its words is a file"),
                      (("n" * 38, HEURISTIC), "is too long: with its version (@v1)")]:
        done = referee("arena", "submit", str(arena), *args)
        assert done.returncode == 2 and why in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert referee("arena", "submit", str(tmp_path / "none"), "x",
                   HEURISTIC).stderr.startswith("referee: error: ")
    assert versions(arena) == []


# Plays only 4-seat Rage without variants, and takes 0.5 s over its first play: it passes
# the check's default game, so only a check of the arena's own game refuses it.
NARROW_BOT = f"""
import os, sys, time
sys.path.insert(0, {str(ROOT)!r})
from bots.rage_random import RandomBot
from bots.sdk import run_bot

class Narrow(RandomBot):
    slow = True
    def _on_game(self, message):
        if message.players != 4 or message.variants:
            sys.stderr.write(f"narrow: cannot play {{message.players}} seats\\n")
            os._exit(3)
        super()._on_game(message)
    def _on_play_request(self, request):
        if self.slow:
            self.slow = False
            time.sleep(0.5)
        return super()._on_play_request(request)

run_bot("narrow", "1.0", Narrow())
"""


def test_submit_checks_the_arenas_own_game(tmp_path: Path) -> None:
    """Its table size, variants and time limits (`arena init`'s options, in arena.toml),
    not `referee check`'s defaults: a version that could not play the arena's tables is
    refused."""
    source = tmp_path / "src"  # submitted with --dir: the sandbox shows a bot its folder
    source.mkdir()
    (source / "narrow.py").write_text(NARROW_BOT)
    command = ("--dir", str(source), "--cmd", f"{sys.executable} narrow.py")
    arena = tmp_path / "default"
    referee("arena", "init", str(arena), "--game", "rage")
    passed = referee("arena", "submit", str(arena), "narrow", *command)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    for name, settings, why in [
            ("three", ("--table-size", "3"), "FAIL  game 3 seats"),
            ("variant", ("--variant", "plus-minus-one"),
             "FAIL  game 4 seats --variant plus-minus-one"),
            ("quick", ("--move-time", "0.2"), "no reply to PLAY? within 0.2 s")]:
        arena = tmp_path / name
        made = referee("arena", "init", str(arena), "--game", "rage", *settings)
        assert made.returncode == 0, made.stderr
        done = referee("arena", "submit", str(arena), "narrow", *command)
        assert done.returncode == 1, (name, done.stdout + done.stderr)
        assert why in done.stdout, (name, done.stdout)
        assert versions(arena) == [("narrow", 1, "refused")]


def test_submit_refuses_an_arena_toml_the_game_cannot_play(tmp_path: Path) -> None:
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage")
    with (arena / "arena.toml").open("a") as toml:
        toml.write('\n[options]\nvariants = ["no-such-variant"]\n')
    done = referee("arena", "submit", str(arena), "heur", HEURISTIC)
    assert done.returncode == 2
    assert done.stderr.startswith("referee: error: the arena's settings (arena.toml): ")
    assert "no-such-variant" in done.stderr and len(done.stderr.splitlines()) == 1
    assert versions(arena) == []


def test_a_folder_that_cannot_be_copied_is_one_error_line_and_leaves_nothing(
        tmp_path: Path) -> None:
    """A dangling link in a --dir folder: one error line naming it, exit 2, no partial
    copy left behind, so the same contestant's next submit is its v1 (a left copy made
    every later submit of that name fail with 'File exists')."""
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3")
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_bytes((ROOT / "bots" / "rage_random.py").read_bytes())
    (source / "data").symlink_to(tmp_path / "nowhere")
    done = referee("arena", "submit", str(arena), "linky", "--dir", str(source), "--cmd",
                   "python bot.py")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"referee: error: cannot copy {source}: {source / 'data'}: ")
    assert len(done.stderr.splitlines()) == 1
    assert not (arena / "submissions" / "linky" / "v1").exists()
    (source / "data").unlink()
    again = referee("arena", "submit", str(arena), "linky", "--dir", str(source), "--cmd",
                    "python bot.py")
    assert again.returncode == 0, again.stdout + again.stderr
    assert versions(arena) == [("linky", 1, "active")]


def _submitting(arena: Path, name: str, source: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "referee", "arena", "submit", str(arena),
                             name, "--dir", str(source), "--cmd", "python bot.py"],
                            cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_submits_take_turns_and_a_killed_ones_copy_is_cleared(tmp_path: Path) -> None:
    """Two submits of one name at once are v1 and v2, each with its own copy (both took
    v1 before: the loser removed the winner's copy). A submit SIGKILLed during its check
    leaves a copy with no row; the next submit of that name clears it and is v1."""
    arena = tmp_path / "a"
    referee("arena", "init", str(arena), "--game", "rage", "--table-size", "3")
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_bytes((ROOT / "bots" / "rage_random.py").read_bytes())
    racing = [_submitting(arena, "twin", source) for _ in range(2)]
    for process in racing:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    assert versions(arena) == [("twin", 1, "retired"), ("twin", 2, "active")]
    for version in (1, 2):
        assert (arena / "submissions" / "twin" / f"v{version}" / "bot.py").is_file()
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.py").write_text("import time\ntime.sleep(60)\n")  # no HELLO: a long check
    killed = _submitting(arena, "late", slow)
    copy = arena / "submissions" / "late" / "v1"
    deadline = time.monotonic() + 60
    while not (copy / "bot.py").exists():
        assert time.monotonic() < deadline and killed.poll() is None, "no copy made"
        time.sleep(0.05)
    killed.kill()
    killed.communicate(timeout=30)
    again = referee("arena", "submit", str(arena), "late", "--dir", str(source), "--cmd",
                    "python bot.py")
    assert again.returncode == 0, again.stdout + again.stderr
    assert ("late", 1, "active") in versions(arena)
    assert (copy / "bot.py").read_bytes() == (source / "bot.py").read_bytes()
