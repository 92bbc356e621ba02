"""Issue 26, part 7: a `referee play` cut short loses nothing. Its standard output closed
(`| head -3`), Ctrl-C or SIGTERM in mid-game: one error line and a documented exit code,
every bot stopped (no process, no socket folder left), and a log that ends with an
`interrupted` record, which `show` reads up to there and `replay` names. Real `referee
play` processes and real bots; each is stopped once its game has visibly started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee.cli.exit_codes import CUT_SHORT, INTERRUPTED, STDOUT_CLOSED, TERMINATED
from referee.logs.lines import read_records
from referee.registry.game_logs import read_log
from tests.cli_support import run_main, running_with

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = Path(__file__).parent / "fault_bots" / "scripted.py"


def start_play(tmp_path: Path, marker: str) -> tuple[subprocess.Popen[str], Path]:
    """`referee play thegame` between two bots whose replies take 50 ms (a game of
    seconds); `marker` is in their command lines, TMPDIR is the test's own."""
    log, tmp = tmp_path / "g.jsonl", tmp_path / "tmp"
    tmp.mkdir()
    bot = f"python {SCRIPTED} thegame pace* {marker}"
    run = subprocess.Popen(
        [sys.executable, "-m", "referee", "play", "thegame", "--seed", "3", "--log",
         str(log), bot, bot], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True, env={**os.environ, "TMPDIR": str(tmp)})
    return run, log


def read_until_a_turn(run: subprocess.Popen[str]) -> list[str]:
    """The account's lines up to the first turn played: the game has begun."""
    assert run.stdout is not None
    lines = []
    for line in run.stdout:
        lines.append(line)
        if line.startswith("turn"):
            return lines
    raise AssertionError(f"the game never started: {lines}")


def assert_cut_short(run: subprocess.Popen[str], err: str, code: int, log: Path,
                     marker: str, tmp_path: Path, why: str) -> None:
    """One error line and `code`; no bot left; `show` reads the log up to its
    `interrupted` record, which says `why`, and `replay` says it was interrupted."""
    assert run.returncode == code, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("referee: ") and str(log) in err, err
    deadline = time.monotonic() + 10
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running_with(marker), "bot processes left after the stop"
    assert list((tmp_path / "tmp").iterdir()) == [], "files left in TMPDIR"
    code, out, err = run_main(["show", str(log)])
    assert code == 0, err
    shown = out.splitlines()
    assert any(" > " in line for line in shown)  # the replies heard before it
    assert f"INTERRUPTED ({why}): the game stopped here" in shown[-1]
    code, out, err = run_main(["replay", str(log)])
    assert code == CUT_SHORT and out == "", err
    [line] = err.splitlines()
    assert line.startswith(f"referee: {log}: the game was interrupted ({why}) after ")
    assert line.endswith("; nothing to reproduce beyond it")
    page = tmp_path / "g.html"
    code, _, err = run_main(["view", str(log), "-o", str(page)])
    assert code == 0, err
    assert f"interrupted ({why}): the game stopped here" in page.read_text()


def test_a_closed_standard_output_stops_the_game_and_keeps_its_log(tmp_path: Path) -> None:
    """`referee play ... | head -3`: before, exit 1, nothing said, and a log that neither
    show nor replay would read."""
    marker = f"cut-{uuid.uuid4().hex}"
    run, log = start_play(tmp_path, marker)
    assert run.stdout is not None and run.stderr is not None
    read_until_a_turn(run)
    run.stdout.close()  # as `head` ends: the referee's next line meets a closed pipe
    err = run.stderr.read()
    run.wait(timeout=60)
    assert "standard output closed" in err
    assert_cut_short(run, err, STDOUT_CLOSED, log, marker, tmp_path,
                     "standard output closed")


@pytest.mark.parametrize("signum, code, name", [
    (signal.SIGINT, INTERRUPTED, "SIGINT"), (signal.SIGTERM, TERMINATED, "SIGTERM")])
def test_a_play_stopped_by_a_signal_keeps_its_log(tmp_path: Path, signum: int, code: int,
                                                  name: str) -> None:
    """Ctrl-C (to the whole process group, as a terminal sends it) or SIGTERM (to the
    referee alone) in mid-game."""
    marker = f"sig-{uuid.uuid4().hex}"
    run, log = start_play(tmp_path, marker)
    read_until_a_turn(run)
    os.killpg(run.pid, signum) if signum == signal.SIGINT else run.send_signal(signum)
    _, err = run.communicate(timeout=60)
    assert f"({name})" in err
    assert_cut_short(run, err, code, log, marker, tmp_path, name)


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real Rage game's log, untimed, with a seat that sends LOG lines and one that
    faults mid-game (so the stream holds lines heard, found and written out)."""
    log = tmp_path_factory.mktemp("whole") / "game.jsonl"
    code, _, err = run_main([
        "play", "rage", "--seed", "5", "--no-log-times", "--sandbox", "off", "--log",
        str(log), f"python {SCRIPTED} rage log,postlog,log", f"python {SCRIPTED} rage "
        "ok,ok,ok,ok,after", "python bots/rage_random.py"])
    assert code == 0, err
    return log


def cut(records: list[Any], at: int) -> list[Any]:
    """The log's JSON values up to the `at`-th item after its header (a stream's item or
    a record), then an `interrupted` record: the log of the game stopped there."""
    kept: list[Any] = [records[0]]
    for record in records[1:]:
        size = len(record) if isinstance(record, list) else 1
        if at < size:
            if isinstance(record, list) and at:
                kept.append(record[:at])
            break
        kept.append(record)
        at -= size
    return [*kept, {"type": "interrupted", "why": "SIGINT"}]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.integers(0, 10**6))
def test_a_log_cut_anywhere_and_marked_interrupted_reads_as_the_whole_games_beginning(
        tmp_path_factory: pytest.TempPathFactory, whole_game: Path, at: int) -> None:
    """Wherever the game stopped (after any item of its stream or any record), the log
    reads, and as the whole game's log began: every line, move and fault up to there,
    then the `interrupted` record."""
    records = read_records(whole_game)
    items = sum(len(r) if isinstance(r, list) else 1 for r in records[1:])
    path = tmp_path_factory.mktemp("cut") / "cut.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in cut(records, at % items)))
    whole, read = read_log(whole_game), read_log(path)
    assert read[-1] == {"type": "interrupted", "why": "SIGINT"}
    assert read[:-1] == whole[:len(read) - 1]
