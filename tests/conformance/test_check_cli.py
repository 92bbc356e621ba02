"""`referee check` with real bot processes: the sample bots conform, and each misbehaving
bot fails the check its misbehaviour belongs to, with the evidence (README, Checking a bot).
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from referee.conformance.bye import BYE_CHECK, LEFTOVER_CHECK
from referee.conformance.suite import HELLO_CHECK
from tests.cli_support import assert_bad_input, run_main
from tests.referee.fault_bots.support import wait_until

ROOT = Path(__file__).resolve().parents[2]
QUIRKS = Path(__file__).with_name("bots") / "rage_quirks.py"
FAULT_BOTS = ROOT / "tests" / "referee" / "fault_bots"


def check(tmp_path: Path, game: str, bot: str, *more: str) -> tuple[int, str, dict[str, Any]]:
    """Exit code, stdout and the JSON report of `referee check`."""
    report = tmp_path / "report.json"
    code, out, err = run_main(["check", "--game", game, bot, "--json", str(report), *more])
    assert "Traceback" not in err
    return code, out, json.loads(report.read_text())


def verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"]}


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {name: c["status"] for name, c in verdicts(report).items()}


def failed(report: dict[str, Any]) -> set[str]:
    return {name for name, status in statuses(report).items() if status == "fail"}


def quirks(*args: str) -> str:
    return f"stdio:python {QUIRKS} {' '.join(args)}"


def test_full_suite_passes_a_sample_rage_bot_with_every_seat_count_and_variant(
        tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    code, out, report = check(tmp_path, "rage", "python bots/rage_heuristic.py",
                              "--junit", str(junit))
    assert code == 0, out
    assert report["passed"] and not report["quick"] and report["game"] == "rage"
    names = set(statuses(report))
    assert {f"game {n} seats" for n in range(3, 9)} <= names
    variants = {name for name in names if "--variant" in name}
    assert len(variants) == 7, variants  # 4 alone, 3 pairs with durchmarsch (ruling R10)
    assert "game 4 seats --variant plus-minus-one --variant durchmarsch" in variants
    assert set(statuses(report).values()) <= {"pass", "warn"}
    assert {"games in a row", BYE_CHECK, LEFTOVER_CHECK, "reply times"} <= names
    suite = ET.parse(junit).getroot()
    assert suite.tag == "testsuite" and suite.get("failures") == "0"
    assert [case.get("name") for case in suite.iter("testcase")] == \
        [c["name"] for c in report["checks"]]
    assert out.count("\nPASS") + out.count("\nWARN") == len(report["checks"])
    assert out.rstrip().endswith("rage_heuristic conforms")


def test_full_suite_passes_a_sample_thegame_bot_with_and_without_commands(
        tmp_path: Path) -> None:
    code, out, report = check(tmp_path, "thegame", "python bots/thegame_random.py")
    assert code == 0, out
    names = set(statuses(report))
    assert {"game 1 seat", *(f"game {n} seats" for n in range(2, 6))} <= names
    assert "game 2 seats --no-commands" in names and "no numeric hint" in names
    times = verdicts(report)["reply times"]["figures"]
    assert 0 < times["p50"] <= times["p99"] <= times["max"] and times["requests"] > 20


@pytest.mark.parametrize("game, bot", [
    ("rage", "python bots/rage_random.py"),
    ("rage", "stdio:bots/rage_first.sh"),
    ("thegame", "python bots/thegame_heuristic.py"),
])
def test_quick_check_passes_every_other_sample_bot(tmp_path: Path, game: str,
                                                   bot: str) -> None:
    code, out, report = check(tmp_path, game, bot, "--quick")
    assert code == 0, out
    assert report["quick"] and len([n for n in statuses(report) if n.startswith("game")]) == 1
    assert statuses(report)[BYE_CHECK] == "pass"


def test_wrong_protocol_version_fails_hello_and_skips_the_rest(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    code, out, report = check(tmp_path, "rage", f"python {FAULT_BOTS}/misbehave.py oldproto",
                              "--quick", "--junit", str(junit))
    assert code == 1
    hello = verdicts(report)[HELLO_CHECK]
    assert hello["status"] == "fail" and "protocol version 0" in hello["evidence"]
    assert hello["line"].startswith("HELLO 0 ")
    assert set(statuses(report).values()) == {"fail", "skip"} and failed(report) == {HELLO_CHECK}
    failure = ET.parse(junit).getroot().find("testcase/failure")
    assert failure is not None and "protocol version 0" in failure.get("message", "")
    assert "line: 'HELLO 0 " in (failure.text or "")
    assert "does not conform" in out


def test_illegal_move_fails_legal_moves_with_the_line(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", f"stdio:python {FAULT_BOTS}/rage_cheat.py illegal",
                            "--quick")
    assert code == 1
    assert "legal moves only" in failed(report)
    legal = verdicts(report)["legal moves only"]
    assert "illegal" in legal["evidence"] and legal["line"]
    assert statuses(report)[BYE_CHECK] == "pass", "BYE is checked in a session of its own"


def test_unsolicited_line_fails_its_check(tmp_path: Path) -> None:
    code, _, report = check(tmp_path, "rage", quirks("chatty", "2"), "--quick")
    assert code == 1
    assert "no unsolicited lines" in failed(report)
    assert verdicts(report)["no unsolicited lines"]["line"] == "chatter"
    assert "well-formed lines" not in failed(report)


def test_numeric_hint_fails_its_check(tmp_path: Path) -> None:
    """Seated second in the 2-seat game, the cheat is asked for hints before any turn."""
    code, _, report = check(tmp_path, "thegame",
                            f"stdio:python {FAULT_BOTS}/thegame_cheat.py numbers")
    assert code == 1
    hint = verdicts(report)["no numeric hint"]
    assert hint["status"] == "fail" and "42" in hint["line"]


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
