"""`referee show LOG`: a log's lines for people (escaped) and for tools (JSON Lines)."""

from __future__ import annotations

import json
from pathlib import Path

from referee.logs.writer import GameLog
from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input, run_main

BOTS = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
        "stdio:bots/rage_first.sh"]


def test_show_prints_every_line_of_a_real_game_and_one_seat_alone(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl.gz"
    assert run_main(["play", "rage", "--seed", "4", "--log", str(log), *BOTS])[0] == 0
    records = read_log(log)
    code, out, err = run_main(["show", str(log)])
    assert code == 0, err
    shown = out.splitlines()
    assert len(shown) == len(records)  # header, lines, moves, result: one line each
    assert "rage seed 4: 0 rage_random, 1 rage_heuristic, 2 rage_first" in shown[0]
    replies = [r["line"] for r in records if r["type"] == "line" and r["dir"] == "in"]
    assert sum(" > " in line for line in shown) == len(replies)
    code, out, _ = run_main(["show", "--seat", "2", str(log)])
    assert code == 0 and out.count(" seat 2 ") > 100 and " seat 1 " not in out


def test_show_json_is_the_per_line_records(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert run_main(["play", "rage", "--seed", "4", "--log", str(log), *BOTS])[0] == 0
    code, out, err = run_main(["show", "--json", str(log)])
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == read_log(log)


def test_a_bots_control_characters_are_shown_escaped(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    log = GameLog.open(path, timestamps=False, derive=False)
    log.header("rage", 1, {}, [])
    log.sent(0, ["PLAY? r3"])
    log.heard(0, "LOG \x1b[2J\rgotcha \udcff")
    log.close()
    code, out, _ = run_main(["show", str(path)])
    assert code == 0 and out.splitlines()[1:] == [
        "seat 0 < PLAY? r3", "seat 0 > LOG \\x1b[2J\\rgotcha \\udcff"]


def test_a_file_that_is_no_game_log_is_one_error_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl.gz"
    junk.write_bytes(b"\x1f\x8bnot really")
    assert_bad_input(["show", str(junk)], str(junk))
