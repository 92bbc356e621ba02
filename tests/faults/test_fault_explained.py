"""Every fault explained where it is shown (issue 29, part 1), with real student bots
(tests/faults/bots/): a crash in round 3 with a KeyError traceback, a syntax error, an
illegal move, a timeout, and a stdio bot run without `stdio:`. Each fault says where it
happened (round and trick, the step of `referee view`) and quotes its stderr's last lines,
in every format: `results --faults` and `--bot` (text, markdown, JSON, CSV), the HTML
page, the tournament's own tables, `referee play` and `referee check` (JUnit read back)."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
from junitparser import JUnitXml  # type: ignore[import-untyped, unused-ignore]

from referee.logs.derive import read_log
from referee.registry import games
from referee.viewer.steps import decisions
from tests.cli_support import run_main
from tournaments.store.records import GameRecord

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
PYTHON = sys.executable
SCHEMA = json.loads((ROOT / "docs" / "results-schema.json").read_text())
TOKEN_LIKE = re.compile(r"[0-9a-fA-F]{32}")

# Each student: their command, and what their fault must say.
STUDENTS = {
    "carol": f"stdio:{PYTHON} {BOTS / 'crash_round3.py'}",
    "dave": f"stdio:{PYTHON} {BOTS / 'syntax_error.py'}",
    "grace": f"stdio:{PYTHON} {BOTS / 'illegal_move.py'}",
    "henry": f"stdio:{BOTS / 'sleepy.sh'}",
    "frank": str(ROOT / "bots" / "rage_first.sh"),  # a stdio bot, run without stdio:
}
LAST_WORDS = {"carol": "KeyError: 'oops'", "dave": "SyntaxError: invalid syntax",
              "grace": "playing ", "henry": "sleeping on it"}
KINDS = {"carol": "crash", "dave": "startup", "grace": "illegal", "henry": "timeout",
         "frank": "startup"}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One gauntlet of the five students against two sample bots, on one deal: 15 games."""
    folder = tmp_path_factory.mktemp("class")
    bots = "".join(f'[[bots]]\nname = "{name}"\ncommand = "{command}"\n\n'
                   for name, command in STUDENTS.items())
    bots += "".join(f'[[bots]]\nname = "{name}"\ncommand = "{PYTHON} '
                    f'{ROOT / "bots" / "rage_random.py"}"\nrole = "reference"\n\n'
                    for name in ("ref1", "ref2"))
    spec = folder / "class.toml"
    spec.write_text('game = "rage"\ndeals = 1\nseed = 5\ntable_size = 3\n'
                    f'[limits]\nmove = 0.3\nstartup = 5\n\n{bots}')
    path = folder / "class.sqlite"
    code, out, err = run_main(["tournament", str(spec), "--db", str(path)])
    assert code == 0, err
    (folder / "run.txt").write_text(out)
    return path


def results(db: Path, *args: str) -> str:
    code, out, err = run_main(["results", str(db), *args])
    assert code == 0, err
    return out


def faults_json(db: Path) -> list[dict[str, Any]]:
    document = json.loads(results(db, "--faults", "--format", "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    rows: list[dict[str, Any]] = document["tables"]["faults"]["rows"]
    return rows


def test_each_fault_is_recorded_with_its_place_step_and_stderr(db: Path) -> None:
    rows = faults_json(db)
    assert {row["bot"] for row in rows} == set(STUDENTS)
    for row in rows:
        assert row["kind"] == KINDS[row["bot"]], row
        assert isinstance(row["step"], int) and row["step"] >= 1, row
        if row["bot"] in LAST_WORDS:
            assert row["stderr_tail"][-1].startswith(LAST_WORDS[row["bot"]]), row
    by_bot = {row["bot"]: row for row in rows}
    assert by_bot["carol"]["where"].startswith("round 3, ")  # it dies at round 3's request
    assert len(by_bot["carol"]["stderr_tail"]) == 5  # the whole traceback
    assert by_bot["carol"]["stderr_tail"][0] == "Traceback (most recent call last):"
    assert by_bot["dave"]["where"] == "at the start"
    assert re.fullmatch(r"round 1, trick \d+", by_bot["grace"]["where"])
    assert re.fullmatch(r"round 1, trick \d+", by_bot["henry"]["where"])


def test_a_fault_step_is_the_one_referee_view_shows_it_at(db: Path) -> None:
    for row in faults_json(db)[:6]:
        steps, _, _ = decisions(read_log(Path(row["log"]), games.lookup))
        step = steps[row["step"]]
        assert step.seat == row["seat"] and [f["kind"] for f in step.faults] == [row["kind"]]


def test_a_stdio_bot_run_as_a_zeromq_one_gets_a_hint_and_its_token_is_never_shown(
        db: Path) -> None:
    rows = [row for row in faults_json(db) if row["bot"] == "frank"]
    assert rows and all("run it as stdio:COMMAND" in row["detail"] and
                        not any("HELLO" in line for line in row["stderr_tail"])
                        for row in rows)
    for fmt in ("text", "json", "html", "markdown"):
        assert not TOKEN_LIKE.search(results(db, "--faults", "--format", fmt))


def test_text_tables_show_where_and_the_last_stderr_line(db: Path) -> None:
    where = {row["game"] + row["bot"]: row["where"] for row in faults_json(db)}
    for fmt in ("text", "markdown"):
        faults = results(db, "--faults", "--format", fmt)
        for bot, last in LAST_WORDS.items():
            mine = [line for line in faults.splitlines() if f" {bot} " in line]
            assert len(mine) == 3, (bot, fmt)
            assert all(last in line and where[line.split()[
                1 if fmt == "markdown" else 0] + bot] in line for line in mine), mine
    run = (db.parent / "run.txt").read_text()  # the tournament's own tables
    summary = run.split("Faults by bot and cause", 1)[1].split("\n\n", 1)[0]
    carol = next(line for line in summary.splitlines() if line.startswith("carol"))
    assert re.search(r"crash\s+3\s+round 3, \w+.* \(3\)", carol) and "KeyError: 'oops'" in carol
    dave = next(line for line in summary.splitlines() if line.startswith("dave"))
    assert "startup" in dave and "at the start (3)" in dave and "SyntaxError" in dave


def test_the_bot_report_shows_the_fault_and_its_stderr(db: Path) -> None:
    report = results(db, "--bot", "carol")
    failures, games_part = report.split("Games of carol", 1)
    assert "KeyError: 'oops'" in failures
    # each game names its failure; its words are said once, above (not 3 times)
    assert games_part.count("crash (round 3, ") == 3 and "KeyError" not in games_part
    assert games_part.count("): failure 1") == 3
    document = json.loads(results(db, "--bot", "dave", "--format", "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    for row in document["tables"]["bot_games"]["rows"]:
        assert row["fault"].startswith("startup (at the start, step ")
        assert "): failure 1" in row["fault"] and "fault_stderr" not in row
    stderr = document["tables"]["failure_stderr"]["rows"]
    assert stderr[-1] == {"failure": 1, "stderr": "SyntaxError: invalid syntax"}
    markdown = results(db, "--bot", "grace", "--format", "markdown")
    assert "illegal (round 1, trick " in markdown and "playing " in markdown


def test_the_html_page_unfolds_each_fault_stderr(db: Path) -> None:
    page = results(db, "--format", "html")
    assert page.count("KeyError: &#x27;oops&#x27;</summary>") >= 3
    assert "<pre>Traceback (most recent call last):" in page
    assert "round 3, " in page and "SyntaxError: invalid syntax" in page


def test_csv_of_the_faults_holds_where_step_and_last_line(db: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(results(db, "--faults", "--format", "csv",
                                                   "--table", "faults"))))
    carol = [row for row in rows if row["bot"] == "carol"]
    assert carol and all(row["where"].startswith("round 3, ") and row["step"].isdigit()
                         and row["stderr_tail"] == "KeyError: 'oops'" for row in carol)


def test_records_without_the_new_fields_still_read() -> None:
    old = {"fixture_id": "rage/d01/t01/r0", "game": "rage", "seed": 1, "bots": ["a", "b", "c"],
           "scores": [1, 2, 3], "places": [3, 2, 1], "won": None, "cards_left": None,
           "end_reason": None, "cards_played": None, "hints_given": None, "log_path": None,
           "faults": [{"seat": 0, "bot": "a", "kind": "crash", "detail": "exit 1",
                       "line": None}]}
    fault = GameRecord.from_json(old).faults[0]
    assert (fault.where, fault.step, fault.stderr) == (None, None, ())
    again = GameRecord.from_json(json.loads(json.dumps(GameRecord.from_json(old).to_json())))
    assert again == GameRecord.from_json(old)


def test_referee_play_says_where_and_quotes_the_traceback(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    code, _, err = run_main(["play", "rage", "--seed", "1", "--log", str(log),
                             STUDENTS["carol"], f"stdio:{ROOT / 'bots' / 'rage_first.sh'}",
                             f"stdio:{ROOT / 'bots' / 'rage_first.sh'}"])
    assert code == 0, err
    fault = next(line for line in err.splitlines() if line.startswith("referee: fault:"))
    assert re.search(r"crash \(round 3, \w+, step \d+\): bot exited with code 1", fault)
    assert err.rstrip().endswith("KeyError: 'oops'")


def test_play_hints_stdio_for_a_stdio_bot_and_prints_no_token() -> None:
    code, _, err = run_main(["play", "rage", "--seed", "1", STUDENTS["frank"],
                             f"stdio:{ROOT / 'bots' / 'rage_first.sh'}",
                             f"stdio:{ROOT / 'bots' / 'rage_first.sh'}"])
    assert code == 0, err
    assert "startup (at the start): died before its HELLO" in err
    assert "run it as stdio:COMMAND" in err and not TOKEN_LIKE.search(err)


@pytest.mark.parametrize("bot, check, last", [
    ("carol", "game 4 seats", "KeyError: 'oops'"),
    ("dave", "HELLO in time, protocol version", "SyntaxError: invalid syntax"),
])
def test_check_quotes_the_stderr_in_its_summary_and_junit(tmp_path: Path, bot: str,
                                                           check: str, last: str) -> None:
    junit = tmp_path / "check.xml"
    code, out, _ = run_main(["check", "--game", "rage", "--quick", "--junit", str(junit),
                             STUDENTS[bot]])
    assert code == 1
    assert "its stderr ended with:" in out and last in out
    cases = {case.name: case for suite in JUnitXml.fromfile(str(junit)) for case in suite}
    assert cases[check].system_err.splitlines()[-1] == last


# ---------------------------------------------------------------- numbers that cannot be misread

def test_a_faulted_seat_shows_no_score(db: Path) -> None:
    report = results(db, "--bot", "carol")
    games_part = report.split("Games of carol", 1)[1]
    assert games_part.count("\u2014 (crash)") == 3
    rows = json.loads(results(db, "--bot", "carol", "--format", "json")
                      )["tables"]["bot_games"]["rows"]
    assert [row["score"] for row in rows] == [None] * 3
    play = run_main(["play", "rage", "--seed", "1", STUDENTS["carol"],
                     f"stdio:{ROOT / 'bots' / 'rage_first.sh'}",
                     f"stdio:{ROOT / 'bots' / 'rage_first.sh'}"])[1]
    last = play.rstrip().splitlines()[-1]  # the places: carol's line, last
    assert re.search(r"3\s+crash_round3\s+0\s+\u2014\s+crash \(round 3, ", last), last


def test_mean_scores_say_how_many_clean_games_they_rest_on(db: Path) -> None:
    document = json.loads(results(db, "--format", "json"))
    rows = {row["bot"]: row for row in document["tables"]["standings"]["rows"]}
    assert {bot: rows[bot]["clean_games"] for bot in STUDENTS} == dict.fromkeys(STUDENTS, 0)
    assert all(rows[bot]["mean_score"] is None for bot in STUDENTS)
    references = {row["bot"]: row for row in document["tables"]["references"]["rows"]}
    assert references["ref1"]["clean_games"] == references["ref1"]["games"] == 15
    assert "clean games" in results(db).splitlines()[1]


def test_each_pair_that_met_has_a_difference_an_interval_and_a_los(db: Path) -> None:
    rows = json.loads(results(db, "--format", "json"))["tables"]["pairs"]["rows"]
    met = {frozenset((row["bot"], row["opponent"])) for row in rows}
    assert frozenset(("carol", "ref1")) in met and frozenset(("carol", "dave")) not in met
    for row in rows:  # one deal: a share, no interval yet
        assert 50 <= row["ahead_pct"] <= 100 and row["deals"] == 1
        assert row["ahead_pct_ci95"] is None and row["los_pct"] is None


def test_csv_counts_each_fault_kind_in_a_column_of_its_own(db: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(results(db, "--format", "csv"))))
    carol = next(row for row in rows if row["bot"] == "carol")
    assert (carol["faults_crash"], carol["faults_startup"], carol["faults_timeout"]) == (
        "3", "0", "0")
    dave = next(row for row in rows if row["bot"] == "dave")
    assert dave["faults_startup"] == "3" and dave["faults"] == "startup 3"


def test_a_bad_hello_is_said_once() -> None:
    """The player's 'bad HELLO: why' became 'a bad HELLO: bad HELLO: why' at start-up."""
    from referee.errors import ProtocolError
    from referee.players.lineup import start_failed
    fault = start_failed(ProtocolError("bad HELLO: name and version must be printable",
                                       "HELLO 2 x <b>x</b> 1.0"))
    assert fault.detail == "a bad HELLO: name and version must be printable"
    assert fault.line == "HELLO 2 x <b>x</b> 1.0"
