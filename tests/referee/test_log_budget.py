"""Issue 26, part 5: a seat's LOG lines and lines found are kept up to a budget per game
(referee/logs/budget.py); past it they are dropped and counted, the log says how
many, and it still derives, shows and replays. Target: a hostile seat adds at most 64 KB
to a game's log."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from referee.logs.writer import GameLog
from referee.logs.budget import LOG_BUDGET, STDERR_BUDGET, stderr_kept
from tests.cli_support import run_main

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = Path(__file__).parent / "fault_bots" / "scripted.py"
LOUD = Path(__file__).parent / "fault_bots" / "loud_stderr.py"
LAST_WORDS = "RuntimeError: the last words"  # loud_stderr.py's
SEAT_MAY_ADD = 64_000  # bytes: issue 26's target for one hostile seat
LINE_BYTES = 4096  # protocols.wire.MAX_LINE_BYTES: each of the hostile bot's LOG lines


def play_rage(log: Path, first: str) -> None:
    """A whole Rage game, `referee play` in its own process: seat 0 scripted by `first`,
    two sample random bots beside it."""
    random_bot = f"python {ROOT / 'bots' / 'rage_random.py'}"
    run = subprocess.run(
        [sys.executable, "-m", "referee", "play", "rage", "--seed", "4", "--log", str(log),
         f"python {SCRIPTED} rage {first}", random_bot, random_bot],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def test_a_seat_sending_every_log_line_it_may_adds_little_and_the_log_says_how_much_it_dropped(
        tmp_path: Path) -> None:
    """A real bot sends 16 LOG lines of 4 KB of random text before each of its replies,
    a whole Rage game long (before: a 3 MB log). Its log is at most 64 KB larger than the
    same game's without them, it replays, and `show` says how many lines were dropped:
    with those kept, every line the bot sent."""
    quiet, loud = tmp_path / "quiet.jsonl", tmp_path / "loud.jsonl"
    play_rage(quiet, "ok")
    play_rage(loud, "biglogs*")
    assert loud.stat().st_size - quiet.stat().st_size <= SEAT_MAY_ADD
    code, out, err = run_main(["replay", str(loud)])
    assert code == 0 and "result reproduced" in out, err
    code, out, err = run_main(["show", "--json", "--seat", "0", str(loud)])
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    heard = [r["line"] for r in records if r["type"] == "line" and r["dir"] == "in"]
    kept = sum(line.startswith("LOG ") for line in heard)
    replies = len(heard) - kept
    [dropped] = [r for r in records if r["type"] == "dropped"]
    assert kept + dropped["lines"] == 16 * replies
    assert dropped["bytes"] == dropped["lines"] * LINE_BYTES
    assert kept * LINE_BYTES <= LOG_BUDGET
    code, out, err = run_main(["show", str(loud)])
    assert code == 0, err
    assert (f"seat 0: {dropped['lines']} LOG lines ({dropped['bytes']} bytes) dropped "
            "past the budget") in out


def test_the_budget_counts_a_line_as_the_log_writes_it_escaped_and_lines_found_too() -> None:
    """Control characters take 6 bytes each in the log (\\u0001): the budget counts what
    the file holds, not what the bot sent, and lines found while no reply was awaited
    share it. Another seat's budget is its own."""
    sink = io.BytesIO()
    log = GameLog(sink, timestamps=False)
    log.header("rage", 1, {}, [])
    hostile = "LOG " + "\x01" * 500  # 504 bytes sent, 3,006 in the log
    for _ in range(100):
        log.sent(1, ["PLAY? a"])
        log.heard(1, hostile)
        log.found(1, hostile)
        log.heard(1, "a")
    log.sent(2, ["PLAY? a"])
    log.heard(2, "LOG quiet")
    log.close()
    data = sink.getvalue()
    assert len(data) <= LOG_BUDGET + 100 * 40  # the replies and their times, short
    records = [json.loads(line) for line in data.decode().splitlines()]
    kept = sum(item == hostile or item == [1, hostile] for record in records
               if isinstance(record, list) for item in record)
    assert kept == LOG_BUDGET // 3_006
    [dropped] = [r for r in records if isinstance(r, dict) and r["type"] == "dropped"]
    assert dropped == {"type": "dropped", "seat": 1, "lines": 200 - kept,
                       "bytes": (200 - kept) * 504}
    assert b"LOG quiet" in data


def test_a_fault_stderr_adds_at_most_its_budget_to_the_log_its_last_lines_kept(
        tmp_path: Path) -> None:
    """A real bot crashes after writing stderr lines that cost 12 bytes a character in
    the log: the fault record keeps the last of them that fit in STDERR_BUDGET as
    written (the exception's line among them), while `referee play` quotes them all as
    the results db keeps them (stderr_tail: 20 lines)."""
    log = tmp_path / "loud.jsonl"
    code, _, err = run_main(["play", "rage", "--seed", "4", "--sandbox", "off", "--log",
                             str(log), f"stdio:{sys.executable} {LOUD}",
                             f"python {ROOT / 'bots' / 'rage_random.py'}",
                             f"python {ROOT / 'bots' / 'rage_random.py'}"])
    assert code == 0, err
    [fault] = [json.loads(line) for line in log.read_text().splitlines()
               if line.startswith('{"type":"fault"')]
    kept = fault["stderr"]
    assert kept[-1] == LAST_WORDS and 1 < len(kept) < 20
    assert len(json.dumps(kept)) <= STDERR_BUDGET
    quoted = err.split("its stderr ended with ", 1)[1].splitlines()
    assert quoted[0] == "20 line(s):" and quoted[-1].strip() == LAST_WORDS


def test_the_stderr_kept_is_the_last_lines_that_fit_as_written() -> None:
    # as written, each with its quotes and comma: 1,003, 603, 603 and 403 bytes
    lines = ["a" * 1000, "\x01" * 100, "\U0001f600" * 50, "b" * 400]
    assert stderr_kept(lines, 2612) == lines and stderr_kept(lines, 2611) == lines[1:]
    assert stderr_kept(lines, 1609) == lines[1:] and stderr_kept(lines, 1608) == lines[2:]
    assert stderr_kept([], 100) == []


def test_a_last_stderr_line_too_long_to_fit_is_kept_cut_never_dropped() -> None:
    """A traceback ending in an exception of 200 emoji (2.4 KB as written) left the
    replay with no stderr at all, where the db kept it."""
    last = "ValueError: " + "\U0001f600" * 200
    kept = stderr_kept(["Traceback (most recent call last):", last])
    assert len(kept) == 1 and kept[0].startswith("ValueError: \U0001f600")
    assert kept[0].endswith("\u2026") and last.startswith(kept[0][:-1])
    written = len(json.dumps(kept[0])) + 1
    assert STDERR_BUDGET - 12 < written <= STDERR_BUDGET  # as long as fits
