"""`referee reproduce`: a seat of a logged game played again by a bot (issue 29, part 6).

Real student bots (fault_bots/student.py, over stdio) in real games: a crash in mid-game
reproduced at its step, the fixed bot passing that step, a changed bot stopped at its
first differing reply; steps numbered as `referee view` numbers them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from referee.registry.game_logs import load_log
from referee.viewer.steps import decisions
from tests.cli_support import assert_bad_input, run_main

STUDENT = Path(__file__).parent / "fault_bots" / "student.py"
FIRST = "stdio:bots/rage_first.sh"


def student(mode: str, at: int = 1) -> str:
    return f"stdio:{sys.executable} {STUDENT} {mode} {at}"


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Rage game whose seat 1 crashed at its 9th request (round 2 or later)."""
    log = tmp_path_factory.mktemp("reproduce") / "game.jsonl.gz"
    code, _, err = run_main(["play", "rage", "--seed", "5", "--sandbox", "off", "--log",
                             str(log), FIRST, student("crash", 9), FIRST, FIRST])
    assert code == 0, err
    assert f"reproduce: referee reproduce --log {log} --seat 1" in err
    return log


def seat_steps(log: Path, seat: int) -> list[int]:
    """The steps (`referee view`'s numbers) where `seat` was asked, in order."""
    steps = decisions(load_log(log))[0]
    return [i for i, step in enumerate(steps) if step.seat == seat and step.kind]


def fault_step(log: Path) -> int:
    steps = decisions(load_log(log))[0]
    return next(i for i, step in enumerate(steps) if step.faults)


def reproduce(log: Path, seat: int, *bot: str) -> tuple[int, str, str]:
    return run_main(["reproduce", "--log", str(log), "--seat", str(seat), "--sandbox",
                     "off", *bot])


def test_the_stored_command_crashes_again_at_the_same_step(
        crashed: Path, capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    code, out, err = reproduce(crashed, 1)  # no BOT: the log's command for seat 1
    step = fault_step(crashed)
    assert step == seat_steps(crashed, 1)[8]
    assert code == 1, out + err
    assert f"step {step}: the fault is reproduced" in out
    assert f"#step={step}" in out
    assert "logged: crash: bot exited with code 1" in out
    assert "now:    crash: bot exited with code 1" in out
    # the bot's stderr goes to the student's terminal, as in a game
    assert "[student] KeyError: 'oops'" in capfd.readouterr().err


def test_the_fixed_bot_passes_the_step_that_failed(crashed: Path) -> None:
    code, out, err = reproduce(crashed, 1, student("first"))
    step = fault_step(crashed)
    assert code == 0, out + err
    assert f"step {step}: passes the step the log has its fault at" in out
    assert "logged: crash: bot exited with code 1" in out
    # the fallback plays the first legal option, as this bot does: the game goes on
    # as logged to its end
    assert "the game is over: the bot plays on to the game's end" in out


def test_a_fixed_bot_that_plays_otherwise_diverges_after_the_step(crashed: Path) -> None:
    code, out, err = reproduce(crashed, 1, student("last", 9))
    step = fault_step(crashed)
    assert code == 0, out + err
    assert f"step {step}: passes the step" in out
    assert "diverges at step" in out and "from here on the game would differ" in out
    # each move named once, as a person says it ("the log's fallback's play was b3")
    assert re.search(r"fallback's (play|bid) was \S+, the bot's (play|bid) is \S+:", out), out


def test_a_changed_bot_stops_at_its_first_differing_reply(crashed: Path) -> None:
    code, out, err = reproduce(crashed, 0, student("last", 4))
    step = seat_steps(crashed, 0)[3]
    assert code == 1, out + err
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if "the reply differs" in line))
    assert lines[at].startswith(f"step {step}: the reply differs from the log's")
    sent, logged, now = (line.split(":", 1)[1].strip() for line in lines[at + 1:at + 4])
    options = sent.split()[1:]
    assert len(options) > 1  # else the last option is the first one
    assert (logged, now) == (repr(options[0]), repr(options[-1]))


def test_an_unchanged_bot_passes_every_step(crashed: Path) -> None:
    code, out, err = reproduce(crashed, 2)
    assert code == 0, out + err
    assert f"passes every step ({len(seat_steps(crashed, 2))} requests" in out


def test_a_stored_game_sandboxed_as_the_tournament_runs_it(tmp_path: Path) -> None:
    db = tmp_path / "class.sqlite"
    code, out, err = run_main(["tournament", "rage", "--deals", "1", "--db", str(db),
                               "--fail-on-fault", f"alice={student('crash', 3)}", FIRST,
                               FIRST, FIRST])
    assert code == 1, err
    assert f"the first: reproduce: referee reproduce {db} rage/d01/t01/r0 --seat 0" in err
    code, out, err = run_main(["reproduce", str(db), "rage/d01/t01/r0", "--seat", "0"])
    assert code == 1, out + err
    assert "with alice" in out and "the fault is reproduced" in out
    code, out, err = run_main(["reproduce", str(db), "rage/d01/t01/r0", "--seat", "0",
                               student("first")])
    assert code == 0, out + err
    assert "passes the step the log has its fault at" in out
    assert_bad_input(["reproduce", str(db), "rage/d09/t01/r0", "--seat", "0"],
                     "no stored game 'rage/d09/t01/r0'")
    assert_bad_input(["reproduce", str(db), "rage/d01/t01/r0", "--seat", "4"],
                     "--seat 4", "seats 0 to 3")


def test_bad_input_is_one_error_line(crashed: Path, tmp_path: Path) -> None:
    assert_bad_input(["reproduce", "--seat", "0"], "DB GAME_ID [BOT]")
    assert_bad_input(["reproduce", "--log", str(crashed), "--seat", "0", "a", "b"],
                     "at most one BOT")
    assert_bad_input(["reproduce", "--log", str(crashed), "--seat", "9"], "--seat 9")
    assert_bad_input(["reproduce", str(tmp_path / "none.sqlite"), "g", "--seat", "0"],
                     "does not exist")
    not_a_log = tmp_path / "notes.txt"
    not_a_log.write_text("hello\n")
    assert_bad_input(["reproduce", "--log", str(not_a_log), "--seat", "0"],
                     "cannot read log")
    assert_bad_input(["reproduce", "--log", str(crashed), "--seat", "0", "nosuch_prog_x"],
                     "not found on PATH")


def test_a_cooperative_game_that_ended_at_the_fault_goes_on_and_stops_there(
        tmp_path: Path) -> None:
    """The Game ends a team's game at a fault: a bot that passes that step takes the game
    where the log has nothing more, which is where reproduce stops, passed."""
    log = tmp_path / "game.jsonl.gz"
    misbehave = Path(__file__).parent / "fault_bots" / "misbehave.py"
    heuristic = "python bots/thegame_heuristic.py"
    code, _, err = run_main(["play", "thegame", "--seed", "3", "--sandbox", "off", "--log",
                             str(log), heuristic, f"python {misbehave} good"])
    assert code == 0 and "seat 1 misbehave: protocol" in err, err
    code, out, err = reproduce(log, 1, heuristic)
    assert code == 0, out + err
    assert f"step {fault_step(log)}: passes the step the log has its fault at" in out
    assert "diverges after step" in out and "the log's game ended at the fault" in out
