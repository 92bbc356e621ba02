"""`referee gate` end to end with real bot processes (issue 13, part 3), and its bad
usage. The strength checks run the trusted sample bots unsandboxed, for speed; the
hostile NEW runs in the default sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import assert_bad_input, run_main
from tournaments.stats.sprt import MIN_SAMPLES

HEURISTIC = "python bots/rage_heuristic.py"
RANDOM = "python bots/rage_random.py"
ROOT = Path(__file__).resolve().parents[2]
MISBEHAVE = "python tests/referee/fault_bots/misbehave.py"
# Tables of 4 with random opponents: heuristic beats random by about 50 points a deal,
# with a spread of about 12 (docs/gate.md), so delta 2 decides at the first allowed deal.
TABLE = ["--game", "rage", "--opponent", RANDOM, "--opponent", RANDOM, "--opponent", RANDOM,
         "--delta", "2", "--alpha", "0.05", "--beta", "0.05"]


# "Quickly": a quarter of the --max-games 400 cap (100 deals). Seeded deals make each run
# the same; secret ones needed 10 to 21 deals in trials, so the bound is not the seed's luck.
QUICK = ("--seed", "1")
QUICKLY = 25


def gate(tmp_path: Path, new: str, baseline: str, *more: str) -> tuple[int, str, str, dict]:
    report = tmp_path / "gate.json"
    code, out, err = run_main(["gate", *TABLE, "--new", new, "--baseline", baseline,
                               "--logs", str(tmp_path / "logs"), "--json", str(report),
                               *more])
    return code, out, err, json.loads(report.read_text())


def test_heuristic_against_random_is_not_weaker_quickly(tmp_path: Path) -> None:
    code, out, err, report = gate(tmp_path, HEURISTIC, RANDOM, "--sandbox", "off", *QUICK,
                                  "--max-games", "400")
    assert code == 0, err
    assert out.startswith("gate: not weaker") and report["verdict"] == "not weaker"
    assert report["deals"] <= QUICKLY and report["llr"] >= report["bounds"][1]
    assert len(report["differences"]) == report["deals"] and report["mean"] > 2
    # the running line, once a deal
    assert sum(line.startswith("deals ") for line in err.splitlines()) == report["deals"]
    assert len(list((tmp_path / "logs").glob("gate_d*_new_r*.jsonl.gz"))) == 4 * report["deals"]


def test_random_against_heuristic_is_weaker_quickly(tmp_path: Path) -> None:
    code, out, err, report = gate(tmp_path, RANDOM, HEURISTIC, "--sandbox", "off", *QUICK,
                                  "--max-games", "400")
    assert code == 1, err
    assert out.startswith("gate: weaker") and report["exit_code"] == 1
    assert report["deals"] <= QUICKLY and report["llr"] <= report["bounds"][0]


def test_a_bot_against_itself_does_not_fail(tmp_path: Path) -> None:
    code, out, err, report = gate(tmp_path, HEURISTIC, HEURISTIC, "--sandbox", "off",
                                  "--max-games", str(8 * (MIN_SAMPLES + 5)))
    assert code in (0, 3), err
    assert report["verdict"] in ("not weaker", "undecided")


@pytest.mark.parametrize("mode, kind", [("exit", "crash"), ("garbage", "protocol")])
def test_a_new_that_misbehaves_fails_the_gate_at_once(tmp_path: Path, mode: str,
                                                       kind: str) -> None:
    code, out, err, report = gate(tmp_path, f"{MISBEHAVE} {mode} 5", RANDOM)
    assert code == 1, err
    assert out.startswith("gate: weaker (NEW faulted)")
    assert f"fault: new in gate/d00001/new/r0, seat 0: {kind} (round 1, " in out
    assert all(line.isprintable() for line in out.splitlines())  # bot text quoted
    assert report["games"] == 1 and report["fault"]["kind"] == kind
    assert report["fault"]["where"].startswith("round 1, ")  # where (issue 29)
    assert isinstance(report["fault"]["step"], int)
    if mode == "garbage":  # its bytes were escaped when recorded: shown so, not twice
        assert r"(line: '\xff\xfe not utf-8 \xc3(')" in out
    assert Path(report["fault"]["log"]).is_file()


def test_the_game_heuristic_against_random_is_not_weaker(tmp_path: Path) -> None:
    report_path = tmp_path / "gate.json"
    code, out, err = run_main([
        "gate", "--game", "thegame", "--new", "python bots/thegame_heuristic.py",
        "--baseline", "python bots/thegame_random.py",
        "--opponent", "python bots/thegame_heuristic.py", "--delta", "5", "--sandbox", "off",
        "--logs", str(tmp_path / "logs"), "--json", str(report_path)])
    assert code == 0, err
    report = json.loads(report_path.read_text())
    assert report["size"] == 2 and report["games"] == 4 * report["deals"]  # solo + team


@pytest.mark.parametrize("args, words", [
    (["--delta", "0"], ["--delta", "> 0"]),
    (["--delta", "-1"], ["--delta"]),
    (["--delta", "nan"], ["--delta"]),
    (["--alpha", "0.7"], ["--alpha", "< 0.5"]),
    (["--alpha", "0"], ["--alpha"]),
    (["--beta", "0.5"], ["--beta"]),
    (["--game", "chess"], ["unknown game 'chess'"]),
    (["--no-commands"], ["--no-commands", "thegame"]),
    (["--max-games", "5"], ["--max-games 5", "one deal (6 games)"]),
    (["--size", "9"], ["3 to 8 seats"]),
    (["--opponent", RANDOM, "--opponent", RANDOM, "--size", "3"],
     ["3 opponents need a table of at least 4"]),
    (["--new", "./no/such/bot"], ["no/such/bot"]),
    (["--json", "/proc/nope/gate.json"], ["--json"]),
])
def test_bad_usage_is_one_line_and_exit_2(args: list[str], words: list[str]) -> None:
    """After a valid command line: click keeps the last of a repeated option."""
    valid = ["gate", "--game", "rage", "--new", RANDOM, "--baseline", RANDOM,
             "--opponent", RANDOM, "--delta", "2"]
    assert_bad_input([*valid, *args], *words)


def test_a_bad_bot_command_leaves_no_empty_default_logs_folder(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert_bad_input(["gate", "--game", "rage", "--new", "./no/such/bot", "--baseline",
                      f"python {ROOT}/bots/rage_random.py", "--opponent",
                      f"python {ROOT}/bots/rage_random.py", "--delta", "2"], "no/such/bot")
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())
