"""A sandboxed bot sees its own folder and no other student's, however its command is
written: real `referee play` runs in a classroom-like working folder (issue 26: `python
-W ignore students/alice/bot.py` showed the whole working folder, so alice read bob's
files). Also `--bot-dir NAME=DIR` from the command line, and `dir =` in a tournament file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.processes.sandbox import sandbox_problem

ROOT = Path(__file__).resolve().parents[2]
# Reads each file named after its arguments' `--`, reports on stderr, then plays randomly.
PEEKER = """\
import sys
for path in sys.argv[1:]:
    try:
        open(path).read()
        said = "read"
    except OSError as error:
        said = f"error {error.errno}"
    print(f"PEEK {path} {said}", file=sys.stderr, flush=True)
sys.argv[1:] = []
import runpy
runpy.run_module("bots.rage_random", run_name="__main__")
"""
RANDOM = f"python {ROOT / 'bots' / 'rage_random.py'}"

pytestmark = pytest.mark.skipif(sandbox_problem() is not None,
                                reason=f"no sandbox here: {sandbox_problem()}")


@pytest.fixture
def classroom() -> Iterator[Path]:
    """A working folder outside /tmp (a bot's /tmp is private), readable by the bots'
    uid: students/alice/bot.py and own.txt, students/bob/secret.txt, top.txt."""
    room = Path(tempfile.mkdtemp(prefix="classroom-", dir="/var/tmp"))
    room.chmod(0o755)
    for folder in ("students/alice", "students/bob"):
        (room / folder).mkdir(parents=True)
        (room / folder).chmod(0o755)
    (room / "students/alice/bot.py").write_text(PEEKER)
    (room / "students/alice/run.sh").write_text(
        f'exec {sys.executable} students/alice/bot.py "$@"\n')
    for name in ("students/alice/own.txt", "students/bob/secret.txt", "top.txt"):
        (room / name).write_text("x\n")
    for path in room.rglob("*"):
        path.chmod(path.stat().st_mode | 0o444)
    yield room
    shutil.rmtree(room, ignore_errors=True)


PEEKS = ("students/alice/own.txt", "students/bob/secret.txt", "top.txt")


def referee(room: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=room, text=True,
                          capture_output=True, timeout=120, check=False)


def peeks(stderr: str) -> dict[str, str]:
    found = {}
    for line in stderr.splitlines():
        if "PEEK " in line:  # led by the bot's `[name] `
            path, said = line.split("PEEK ", 1)[1].split(" ", 1)
            found[path] = said
    return found


def play(room: Path, alice: str, *options: str) -> dict[str, str]:
    done = referee(room, "play", "rage", "--seed", "3", "--sandbox", "on",
                   "--startup-time", "20", "--move-time", "5", *options,
                   f"alice={alice} {' '.join(PEEKS)}", RANDOM, RANDOM)
    assert done.returncode == 0, done.stderr
    assert "fault" not in done.stderr, done.stderr
    return peeks(done.stderr)


def test_a_python_option_with_a_value_shows_only_the_scripts_folder(
        classroom: Path) -> None:
    found = play(classroom, "python -W ignore students/alice/bot.py")
    assert found["students/alice/own.txt"] == "read"
    assert found["students/bob/secret.txt"].startswith("error")
    assert found["top.txt"].startswith("error")


def test_an_ambiguous_command_is_refused_then_runs_in_its_declared_folder(
        classroom: Path) -> None:
    refused = referee(classroom, "play", "rage", "--sandbox", "on",
                      "alice=sh -e students/alice/run.sh", RANDOM, RANDOM)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--bot-dir NAME=DIR" in refused.stderr
    found = play(classroom, "sh -e students/alice/run.sh", "--bot-dir",
                 "alice=students/alice")
    assert found["students/alice/own.txt"] == "read"
    assert found["students/bob/secret.txt"].startswith("error")
    assert found["top.txt"].startswith("error")


def test_bot_dir_names_a_bot_that_exists(classroom: Path) -> None:
    done = referee(classroom, "play", "rage", "--bot-dir", "carol=students/alice",
                   RANDOM, RANDOM, RANDOM)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "no bot is named 'carol'" in done.stderr


def test_a_tournament_files_dir_is_the_folder_its_bot_sees(classroom: Path) -> None:
    (classroom / "t.toml").write_text(f"""\
game = "rage"
table_size = 3
[limits]
startup = 20.0
move = 5.0
[[bots]]
name = "alice"
command = "sh -e students/alice/run.sh {' '.join(PEEKS)}"
dir = "students/alice"
[[bots]]
name = "r1"
command = "{RANDOM}"
[[bots]]
name = "r2"
command = "{RANDOM}"
""")
    done = referee(classroom, "tournament", "t.toml", "--sandbox", "on", "--jobs", "1",
                   "--db", "out/r.sqlite")
    assert done.returncode == 0, done.stderr
    kept = "".join(path.read_text(errors="replace")
                   for path in (classroom / "out").rglob("*") if path.is_file()
                   and "stderr" in path.name)
    found = peeks(done.stderr + kept)
    assert found["students/alice/own.txt"] == "read", kept
    assert found["students/bob/secret.txt"].startswith("error")
    assert found["top.txt"].startswith("error")


def test_a_tournament_files_dir_must_be_a_folder(classroom: Path) -> None:
    (classroom / "t.toml").write_text(f"""\
game = "rage"
[[bots]]
name = "alice"
command = "{RANDOM}"
dir = "students/nobody"
[[bots]]
name = "r1"
command = "{RANDOM}"
""")
    done = referee(classroom, "tournament", "t.toml")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "line 5" in done.stderr and "is not a folder" in done.stderr
