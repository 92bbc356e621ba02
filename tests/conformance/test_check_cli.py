"""`referee check` with real bot processes: the sample bots conform, and each misbehaving
bot fails the check its misbehaviour belongs to, with the evidence (README, Checking a bot).

Every run's report is read twice: the JSON, and the JUnit XML through junitparser (a real
JUnit reader), which must agree on every check. Every check name the suite can report has a
bot here that fails it: HELLO (nohello, oldproto), each game (crash/garbage/flood/stall at
one seat count, crash under one variant), games in a row (repeat), BYE (byecode,
lingering), nothing left running (child), and each rule and reply times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, Skipped, TestSuite

from referee.conformance import exit_probe
from referee.conformance.bye import BYE_CHECK, LEFTOVER_CHECK, ROW_CHECK
from referee.conformance.setups import full_setups, quick_setups
from referee.conformance.suite import HELLO_CHECK
from referee.processes.cgroups import CgroupRoot
from referee.processes.sandbox import sandbox_problem
from referee.registry.games import lookup
from tests.cli_support import assert_bad_input, run_main
from tests.referee.fault_bots.support import wait_until

ROOT = Path(__file__).resolve().parents[2]
QUIRKS = Path(__file__).with_name("bots") / "rage_quirks.py"
THEGAME_QUIRKS = QUIRKS.with_name("thegame_quirks.py")
FAULT_BOTS = ROOT / "tests" / "referee" / "fault_bots"
# For checks that are not about time: no reply of a sound bot comes near it, however loaded.
GENEROUS = ("--move-time", "5")
RULES = {"rage": ["replies in time", "no crash", "legal moves only", "no unsolicited lines",
                  "well-formed lines", "no flood"],
         "thegame": ["replies in time", "no crash", "legal moves only", "no unsolicited lines",
                     "no numeric hint", "well-formed lines", "no flood"]}


def all_checks(game: str, quick: bool) -> list[str]:
    """Every check the suite reports for `game`, in order (the games: test_suite_parts)."""
    setups = quick_setups(lookup(game)) if quick else full_setups(lookup(game))
    row = [] if quick else [ROW_CHECK]
    return [HELLO_CHECK, *(s.name for s in setups), *row, BYE_CHECK, LEFTOVER_CHECK,
            *RULES[game], "reply times"]


def check(tmp_path: Path, game: str, bot: str, *more: str) -> tuple[int, str, dict[str, Any]]:
    """Exit code, stdout and the JSON report of `referee check`, which names every check
    once, as the JUnit report does (read_junit)."""
    report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    code, out, err = run_main(["check", "--game", game, bot, "--json", str(report),
                               "--junit", str(junit), *more])
    assert "Traceback" not in err
    found = json.loads(report.read_text())
    assert [c["name"] for c in found["checks"]] == all_checks(game, "--quick" in more)
    assert_junit_agrees(read_junit(junit), found)
    return code, out, found


def read_junit(path: Path) -> TestSuite:
    suites = list(JUnitXml.fromfile(str(path)))
    assert len(suites) == 1
    return suites[0]


def assert_junit_agrees(suite: TestSuite, report: dict[str, Any]) -> None:
    """The JUnit counts and testcases say what the JSON says: one testcase per check, a
    failure for each failed check, a skip for each skipped one."""
    cases = list(suite)
    assert suite.tests == len(cases) == len(report["checks"])
    assert suite.failures == len(failed(report)) and suite.errors == 0
    assert suite.skipped == list(statuses(report).values()).count("skip")
    assert [case.name for case in cases] == [c["name"] for c in report["checks"]]
    assert {case.name for case in cases if case.is_failure} == failed(report)
    assert all(isinstance(case.result[0], Failure) for case in cases if case.is_failure)
    assert {case.name for case in cases if case.is_skipped} == \
        {name for name, status in statuses(report).items() if status == "skip"}


def verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"]}


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {name: c["status"] for name, c in verdicts(report).items()}


def failed(report: dict[str, Any]) -> set[str]:
    return {name for name, status in statuses(report).items() if status == "fail"}


def quirks(*args: str) -> str:
    return f"stdio:python {QUIRKS} {' '.join(args)}"


def assert_conforms(code: int, out: str, report: dict[str, Any]) -> None:
    assert code == 0, out
    assert report["passed"] and not report["quick"]
    assert set(statuses(report).values()) <= {"pass", "warn"}, out
    assert out.count("\nPASS") + out.count("\nWARN") == len(report["checks"])
    assert out.rstrip().endswith(f"{report['bot']} conforms")


def test_full_suite_passes_a_sample_rage_bot_with_every_seat_count_and_variant(
        tmp_path: Path) -> None:
    code, out, report = check(tmp_path, "rage", "python bots/rage_heuristic.py")
    assert_conforms(code, out, report)
    assert report["game"] == "rage"
    names = set(statuses(report))
    assert {f"game {n} seats" for n in range(3, 9)} <= names
    variants = {name for name in names if "--variant" in name}
    assert len(variants) == 7, variants  # 4 alone, 3 pairs with durchmarsch (ruling R10)
    assert "game 4 seats --variant plus-minus-one --variant durchmarsch" in variants
    assert {"games in a row", BYE_CHECK, LEFTOVER_CHECK, "reply times"} <= names
    assert len(names) == 24
    assert read_junit(tmp_path / "report.xml").failures == 0


def test_full_suite_passes_a_sample_thegame_bot_with_and_without_commands(
        tmp_path: Path) -> None:
    code, out, report = check(tmp_path, "thegame", "python bots/thegame_random.py")
    assert_conforms(code, out, report)
    names = set(statuses(report))
    assert len(names) == 18
    assert {"game 1 seat", *(f"game {n} seats" for n in range(2, 6))} <= names
    assert "game 2 seats --no-commands" in names and "no numeric hint" in names
    times = verdicts(report)["reply times"]["figures"]
    assert 0 < times["p50"] <= times["p99"] <= times["max"] and times["requests"] > 20


@pytest.mark.parametrize("game, bot", [
    ("rage", "python bots/rage_random.py"),
    ("rage", "stdio:bots/rage_first.sh"),  # the sample bot not written in Python
    ("thegame", "python bots/thegame_heuristic.py"),
])
def test_full_suite_passes_every_other_sample_bot(tmp_path: Path, game: str,
                                                  bot: str) -> None:
    code, out, report = check(tmp_path, game, bot)
    assert_conforms(code, out, report)
    assert statuses(report)[ROW_CHECK] == statuses(report)[BYE_CHECK] == "pass"


def test_quick_check_plays_one_game_then_bye(tmp_path: Path) -> None:
    code, out, report = check(tmp_path, "rage", "python bots/rage_random.py", "--quick")
    assert code == 0, out
    assert report["quick"] and len([n for n in statuses(report) if n.startswith("game")]) == 1
    assert statuses(report)[BYE_CHECK] == "pass" and ROW_CHECK not in statuses(report)
    assert read_junit(tmp_path / "report.xml").tests == 11


CPU_CLOCK = pytest.mark.skipif(sandbox_problem() is not None or CgroupRoot.find() is None,
                               reason="--clock cpu needs a sandbox and a cgroup per bot")


@CPU_CLOCK
@pytest.mark.parametrize("game, bot", [("rage", "python bots/rage_heuristic.py"),
                                       ("thegame", "python bots/thegame_heuristic.py")])
def test_sample_bots_conform_when_told_the_cpu_clock(tmp_path: Path, game: str,
                                                     bot: str) -> None:
    """Their SDK reads the GAME line's `clock=cpu` (the opponents' too: sample bots)."""
    code, out, report = check(tmp_path, game, bot, "--quick", "--clock", "cpu", *GENEROUS)
    assert code == 0 and report["passed"], out


@CPU_CLOCK
def test_a_bot_is_told_the_cpu_clock_in_its_game_line_and_only_then(tmp_path: Path) -> None:
    """The quirks bot crashes on a GAME line holding `clock=cpu`: it gets one under
    --clock cpu, and none under the default wall clock."""
    bot = quirks("crash", "clock=cpu")
    code, _, report = check(tmp_path, "rage", bot, "--quick", "--clock", "cpu", *GENEROUS)
    assert code == 1 and "no crash" in failed(report)
    assert "crash" in verdicts(report)[quick_setups(lookup("rage"))[0].name]["evidence"]
    code, out, _ = check(tmp_path, "rage", bot, "--quick", *GENEROUS)
    assert code == 0, out


def test_never_saying_hello_fails_hello_in_time_and_skips_the_rest(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", f"python {FAULT_BOTS}/misbehave.py nohello",
                            "--startup-time", "0.5")
    assert code == 1 and failed(report) == {HELLO_CHECK}
    hello = verdicts(report)[HELLO_CHECK]
    assert hello["evidence"].startswith("startup: no HELLO within")  # issue 29: a kind of its own
    assert list(statuses(report).values()).count("skip") == len(report["checks"]) - 1


def test_wrong_protocol_version_fails_hello_and_skips_the_rest(tmp_path: Path) -> None:
    code, out, report = check(tmp_path, "rage", f"python {FAULT_BOTS}/misbehave.py oldproto",
                              "--quick")
    assert code == 1
    hello = verdicts(report)[HELLO_CHECK]
    assert hello["status"] == "fail" and "protocol version 0" in hello["evidence"]
    assert hello["line"].startswith("HELLO 0 ")
    assert set(statuses(report).values()) == {"fail", "skip"} and failed(report) == {HELLO_CHECK}
    hello_case = next(iter(read_junit(tmp_path / "report.xml")))
    failure = hello_case.result[0]
    assert isinstance(failure, Failure) and "protocol version 0" in failure.message
    assert "line: 'HELLO 0 " in (failure.text or "")
    later = [case.result[0] for case in list(read_junit(tmp_path / "report.xml"))[1:]]
    assert all(isinstance(r, Skipped) and "did not start" in r.message for r in later)
    assert "does not conform" in out


def test_illegal_move_fails_legal_moves_with_the_line(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", f"stdio:python {FAULT_BOTS}/rage_cheat.py illegal",
                            "--quick", *GENEROUS)
    assert code == 1 and failed(report) == {"game 4 seats", "legal moves only"}
    legal = verdicts(report)["legal moves only"]
    assert "illegal" in legal["evidence"] and legal["line"]
    assert statuses(report)[BYE_CHECK] == "pass", "BYE is checked in a session of its own"


def test_unsolicited_line_fails_its_check(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("chatty", "2"), "--quick", *GENEROUS)
    assert code == 1 and failed(report) == {"game 4 seats", "no unsolicited lines"}
    assert verdicts(report)["no unsolicited lines"]["line"] == "chatter"


def test_numeric_hint_fails_its_check(tmp_path: Path) -> None:
    """The bot plays the sample bot's legal turns; only its hints at 3 players break."""
    code, _, report = check(tmp_path, "thegame", f"python {THEGAME_QUIRKS} numbers 3",
                            *GENEROUS)
    assert code == 1 and failed(report) == {"game 3 seats", "no numeric hint"}
    hint = verdicts(report)["no numeric hint"]
    assert hint["status"] == "fail" and "42" in hint["line"]


def test_crash_at_one_seat_count_fails_that_game_alone(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("crash", "players=8"), *GENEROUS)
    assert code == 1 and failed(report) == {"game 8 seats", "no crash"}
    assert "exited with code 3" in verdicts(report)["no crash"]["evidence"]
    assert "referee play rage --seed 6" in verdicts(report)["game 8 seats"]["evidence"]


def test_crash_under_one_variant_fails_each_game_with_it(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("crash", "hidden-bid"), *GENEROUS)
    assert code == 1
    assert failed(report) == {"game 4 seats --variant hidden-bid",
                              "game 4 seats --variant hidden-bid --variant durchmarsch",
                              "no crash"}
    assert "(and 1 more)" in verdicts(report)["no crash"]["evidence"]


def test_no_reply_in_time_fails_replies_in_time(tmp_path: Path) -> None:
    """The bot sleeps 5 s against a 1.5 s move time and no time bank: killed, charged."""
    code, _, report = check(tmp_path, "rage", quirks("stall", "players=5", "5"),
                            "--move-time", "1.5")
    assert code == 1 and failed(report) == {"game 5 seats", "replies in time"}
    assert "timeout" in verdicts(report)["replies in time"]["evidence"]
    assert verdicts(report)["reply times"]["status"] != "fail", "no reply to time"


def test_a_reply_that_spends_time_bank_fails_reply_times(tmp_path: Path) -> None:
    """2 s against a 0.5 s move time is no fault (the bank holds 20 s), but a failed check."""
    code, _, report = check(tmp_path, "rage", quirks("stall", "players=5", "2"),
                            "--move-time", "0.5", "--time-bank", "20")
    assert code == 1 and failed(report) == {"reply times"}
    times = verdicts(report)["reply times"]
    assert times["figures"]["max"] > times["figures"]["limit"] == 0.5
    assert times["line"].startswith("BID? ") and "time bank" in times["evidence"]


def test_a_reply_not_in_utf8_fails_well_formed_lines(tmp_path: Path) -> None:
    """Each undecodable byte shows escaped exactly once (as \\xNN) in all three reports:
    the line is recorded escaped already, and the summary and XML quote it as it is."""
    code, out, report = check(tmp_path, "rage", quirks("garbage", "players=7"), *GENEROUS)
    assert code == 1 and failed(report) == {"game 7 seats", "well-formed lines"}
    formed = verdicts(report)["well-formed lines"]
    assert "UTF-8" in formed["evidence"]
    once = r"\xff\xfe not utf-8 \xc3("
    assert formed["line"] == verdicts(report)["game 7 seats"]["line"] == once
    assert out.count(f"line: '{once}'") == 2 and "\\\\" not in out
    junit = (tmp_path / "report.xml").read_text()
    assert junit.count(f"line: '{once}'") == 2 and "\\\\" not in junit


def test_endless_log_lines_fail_no_flood(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("flood", "players=6"), *GENEROUS)
    assert code == 1 and failed(report) == {"game 6 seats", "no flood"}
    assert verdicts(report)["no flood"]["line"] == "LOG thinking aloud"


def test_a_bot_that_cannot_play_the_same_game_twice_fails_games_in_a_row(
        tmp_path: Path) -> None:
    """The suite's games all differ; only the row repeats one, in one process."""
    code, _, report = check(tmp_path, "rage", quirks("repeat"), *GENEROUS)
    assert code == 1 and failed(report) == {ROW_CHECK, "no crash"}
    assert verdicts(report)[ROW_CHECK]["evidence"].startswith("game 2 of 3: crash (")
    assert "a fresh process" in verdicts(report)[BYE_CHECK]["evidence"]
    # The exit probe's report is the referee's, never a line of the bot's stderr.
    for name in (ROW_CHECK, "no crash"):
        assert not any(exit_probe.REPORT in line for line in verdicts(report)[name]["stderr"])


def test_exit_code_1_on_bye_fails_the_bye_check(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("byecode", "1"), "--quick")
    assert code == 1 and failed(report) == {BYE_CHECK}
    assert "exited with code 1" in verdicts(report)[BYE_CHECK]["evidence"]


def test_slow_exit_after_bye_fails_the_bye_check(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("lingering", "0.8"), "--quick")
    assert code == 1 and failed(report) == {BYE_CHECK}
    assert verdicts(report)[BYE_CHECK]["figures"]["seconds"] > 0.2


def sleeping(marker: str) -> bool:
    """Is a `sleep MARKER` process running anywhere?"""
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and Path(f"/proc/{entry}/cmdline").read_bytes() == \
                    f"sleep\0{marker}\0".encode():
                return True
        except OSError:
            continue
    return False


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_child_left_after_bye_fails_and_is_killed(tmp_path: Path, sandbox: str) -> None:
    marker = f"{3000 + os.getpid() % 500}.{len(sandbox)}"  # a sleep no other test runs
    code, _, report = check(tmp_path, "rage", quirks("child", marker), "--quick",
                            "--sandbox", sandbox)
    assert code == 1 and failed(report) == {LEFTOVER_CHECK}
    assert f"sleep {marker}" in verdicts(report)[LEFTOVER_CHECK]["evidence"]
    assert wait_until(lambda: not sleeping(marker)), "the child outlived the check"


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_bot_hanging_after_bye_cannot_pass_by_forging_the_probe_report(
        tmp_path: Path, sandbox: str) -> None:
    code, _, report = check(tmp_path, "rage", quirks("forge", "hang"), "--quick",
                            "--sandbox", sandbox)
    assert code == 1 and failed(report) == {BYE_CHECK, LEFTOVER_CHECK}
    assert "still running" in verdicts(report)[BYE_CHECK]["evidence"]


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_child_left_after_bye_cannot_pass_by_forging_the_probe_report(
        tmp_path: Path, sandbox: str) -> None:
    code, _, report = check(tmp_path, "rage", quirks("forge", "child"), "--quick",
                            "--sandbox", sandbox)
    assert code == 1 and failed(report) == {LEFTOVER_CHECK}
    assert verdicts(report)[LEFTOVER_CHECK]["figures"]["left"] == 1  # the writing child


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_bot_that_kills_its_probe_cannot_pass_with_a_forged_report(
        tmp_path: Path, sandbox: str) -> None:
    """The forged line stays the last one when the probe is dead; the probe's exit status
    then does not match it, so it is not taken as the probe's word."""
    code, _, report = check(tmp_path, "rage", quirks("forge", "kill"), "--quick",
                            "--sandbox", sandbox)
    assert code == 1 and failed(report) == {BYE_CHECK, LEFTOVER_CHECK}
    assert "still running" in verdicts(report)[BYE_CHECK]["evidence"]


def test_slow_replies_warn_above_half_the_limit(tmp_path: Path) -> None:
    code, out, report = check(tmp_path, "rage", quirks("slow", "1.2", "2"), "--quick",
                              "--move-time", "2")
    assert code == 0, out
    times = verdicts(report)["reply times"]
    assert times["status"] == "warn" and 1.0 < times["figures"]["max"] < 2.0
    assert times["line"].split()[0] in ("BID?", "PLAY?")
    assert "\nWARN  reply times" in out


def test_bad_usage_is_one_line_and_exit_2(tmp_path: Path) -> None:
    assert_bad_input(["check", "--game", "chess", "python bots/rage_random.py"], "chess")
    assert_bad_input(["check", "python bots/rage_random.py"], "--game")
    assert_bad_input(["check", "--game", "rage", "python no/such/bot.py"], "does not exist")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_bad_input(["check", "--game", "rage", "python bots/rage_random.py",
                      "--junit", str(blocker / "report.xml")], "cannot write")


def test_a_closed_standard_output_still_gets_the_reports_written(tmp_path: Path) -> None:
    """`referee check ... | head -1` in CI: click turned the first write to the closed pipe
    into a silent exit 1 (the code of a failed check) and no --junit or --json was
    written. The summary's reader is gone; the check goes on and writes its reports."""
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "check", "--game", "rage", "--quick", *GENEROUS,
         f"python {ROOT}/bots/rage_random.py", "--junit", str(junit), "--json", str(report)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    assert json.loads(report.read_text())["passed"] is True
    assert all(case.result == [] for suite in JUnitXml.fromfile(str(junit)) for case in suite)
    assert b"Traceback" not in err
