"""Issue 29, part 3: a report to hand back. `referee results DB --bot NAME` is one
student's page for the teacher (summary first, failures with where they cluster and
their stderr, then the games, with the organiser's files); `--reports DIR` writes one per
student to hand back: no file of the organiser's, no path outside the student's folder,
no other student's faults. A real class: two references, a working student and one
whose bot crashes in round 3 with a KeyError."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from protocols.faults import FaultKind
from referee.errors import Fault
from referee.matches.game import Contest
from tests.cli_support import assert_bad_input, run_main
from tournaments.output.student_report import path_cutter, student_tables
from tournaments.store.records import GameRecord

ROOT = Path(__file__).resolve().parents[2]
CRASH = ROOT / "tests" / "faults" / "bots" / "crash_round3.py"


@pytest.fixture(scope="module")
def class_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("class")
    student = folder / "students" / "carol"
    student.mkdir(parents=True)
    for path in (folder, folder / "students", student):
        path.chmod(0o755)  # a sandboxed bot runs as another user
    shutil.copy(CRASH, student / "bot.py")
    db = folder / "results" / "class.sqlite"
    code, _, err = run_main([
        "tournament", "rage", "--db", str(db), "--deals", "1",
        "--reference", f"python {ROOT}/bots/rage_random.py",
        "--reference", f"python {ROOT}/bots/rage_heuristic.py",
        f"alice=python {ROOT}/bots/rage_heuristic.py", f"stdio:python {student}/bot.py"])
    assert code == 0, err
    return db


def test_a_page_per_student_to_hand_back_holds_no_path_of_the_organisers(
        class_db: Path, tmp_path: Path) -> None:
    code, _, err = run_main(["results", str(class_db), "--reports", str(tmp_path / "out")])
    assert code == 0 and "2 reports written" in err, err
    pages = {path.name: path.read_text() for path in (tmp_path / "out").iterdir()}
    assert sorted(pages) == ["alice.txt", "carol.txt"]  # the candidates; no reference
    carol, alice = pages["carol.txt"], pages["alice.txt"]
    assert carol.startswith("carol: summary")  # the summary first
    summary = carol.splitlines()[3].split()
    assert summary[:2] == ["8", "0"] and "crash" in summary  # 8 games, none clean
    assert "round 3, bidding (8)" in carol and "KeyError: 'oops'" in carol
    assert 'File "carol/bot.py"' in carol  # its own file, from its folder on
    folder = str(class_db.parent.parent)
    assert folder not in carol and folder not in alice  # no path of the organiser's
    assert ".jsonl" not in carol and ".stderr" not in carol  # no log or stderr file
    assert "KeyError" not in alice and "crash" not in alice  # not another's faults


def test_the_teachers_page_of_one_student_has_the_summary_and_the_files(
        class_db: Path) -> None:
    code, out, err = run_main(["results", str(class_db), "--bot", "carol", "--format",
                               "json"])
    assert code == 0, err
    tables = json.loads(out)["tables"]
    assert list(tables)[:3] == ["summary", "fault_summary", "failure_stderr"]
    (summary,) = tables["summary"]["rows"]
    assert summary == {"games": 8, "clean_games": 0, "mean_score": None,
                       "outcome": "4th 8", "faults": "crash 8"}
    assert tables["failure_stderr"]["rows"][-1]["stderr"] == "KeyError: 'oops'"
    assert all(Path(game["log"]).is_file() for game in tables["bot_games"]["rows"])


@pytest.mark.parametrize("fmt, suffix", [("markdown", ".md"), ("html", ".html"),
                                         ("json", ".json")])
def test_reports_come_in_every_format(class_db: Path, tmp_path: Path, fmt: str,
                                      suffix: str) -> None:
    code, _, err = run_main(["results", str(class_db), "--reports", str(tmp_path),
                             "--format", fmt])
    assert code == 0, err
    page = (tmp_path / f"carol{suffix}").read_text()
    assert "KeyError" in page and str(class_db.parent.parent) not in page


def test_reports_refuse_what_they_cannot_do(class_db: Path, tmp_path: Path) -> None:
    assert_bad_input(["results", str(class_db), "--reports", str(tmp_path), "--bot",
                      "carol"], "--reports")
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert_bad_input(["results", str(class_db), "--reports", str(blocked / "x")],
                     "cannot write the reports")
    # A CSV file holds one table: each page was the summary's one row, nothing else.
    assert_bad_input(["results", str(class_db), "--reports", str(tmp_path / "csv"),
                      "--format", "csv"], "--format text, markdown, html or json")
    assert not (tmp_path / "csv").exists()


@pytest.mark.parametrize("fmt, suffix", [("json", ".json"), ("html", ".html")])
def test_a_page_to_hand_back_names_no_classmate_the_student_did_not_meet(
        class_db: Path, tmp_path: Path, fmt: str, suffix: str) -> None:
    """Its settings list the student and its opponents, and count its own games: the
    whole class's list and game count would tell each student who else is in the class."""
    code, _, err = run_main(["results", str(class_db), "--reports", str(tmp_path),
                             "--format", fmt])
    assert code == 0, err
    carol = (tmp_path / f"carol{suffix}").read_text()
    assert "alice" not in carol  # a classmate carol never sat with
    assert "alice" in (tmp_path / f"alice{suffix}").read_text()
    if fmt == "json":
        settings = json.loads(carol)["metadata"]
        assert settings["bots"] == ["carol", "rage_random", "rage_heuristic"]
        assert settings["references"] == ["rage_random", "rage_heuristic"]
        assert settings["games_played"] == settings["games_scheduled"] == 8
        assert settings["complete"] is True


def test_a_traceback_keeps_its_indentation_in_text_and_html(class_db: Path,
                                                            tmp_path: Path) -> None:
    """A traceback's frames are told apart from their source lines by indentation alone;
    a table that strips it (tabulate does by default, HTML collapses spaces) leaves the
    student a run of lines in which 'File' and the failing code look alike."""
    for fmt in ("text", "html"):
        code, _, err = run_main(["results", str(class_db), "--reports", str(tmp_path),
                                 "--format", fmt])
        assert code == 0, err
    text = (tmp_path / "carol.txt").read_text()
    assert '1    File "carol/bot.py"' in text  # the failure's number, then 2 + 2 spaces
    assert "1  Traceback (most recent call last):" in text
    html = (tmp_path / "carol.html").read_text()
    assert '<td class="line">  File &quot;carol/bot.py&quot;' in html  # white-space: pre-wrap


def test_a_page_to_hand_back_cuts_paths_but_not_a_bots_closing_tags(tmp_path: Path) -> None:
    """A bot that sent `PLAY <script>x</script>` must read its own line back as sent: the
    `/script>` of a closing tag is no path of the organiser's (it read `<…/script>`)."""
    own = tmp_path / "class" / "alice"
    cut = path_cutter(own)
    assert cut(f'File "{own}/bot.py", line 3') == 'File "alice/bot.py", line 3'
    assert cut('File "/usr/lib/python3.11/site.py"') == 'File "…/site.py"'
    assert cut("'PLAY <script>alert(1)</script>'") == "'PLAY <script>alert(1)</script>'"
    assert cut("not a card: '</b>'") == "not a card: '</b>'"
    assert cut("rage/d01/t01/r0 and 1/2") == "rage/d01/t01/r0 and 1/2"


def test_a_cooperative_games_page_says_cards_left_and_shows_no_place() -> None:
    """The Game's records hold the cards left as each seat's score and place 1 for every
    seat: ann's page read "mean score (clean games) 83.00" and "— (crash), place 1"."""
    crash = Fault(0, "ann", FaultKind.CRASH, "bot exited with code 1", where="turn 6")
    records = [GameRecord("thegame/d01/solo/c-ann", "thegame", 1, ("ann",), (88,), (1,),
                          (crash,), won=False, cards_left=88),
               GameRecord("thegame/d01/c-ann/t01", "thegame", 1, ("ann", "ref"), (83, 83),
                          (1, 1), won=False, cards_left=83)]
    summary, _, _, games = student_tables(records, "ann", ("ann", "ref"),
                                          Contest.COOPERATIVE, Path("."), None, paths=False)
    assert summary.headers[2] == "mean cards left (clean games)"
    assert games.headers[3] == "cards left"
    place = games.keys.index("place")
    assert [row[place] for row in games.rows] == [None, None]  # not "place 1"
    rage = [GameRecord("rage/d01/t01/r0", "rage", 1, ("ann", "b", "c"), (5, 9, 1),
                       (2, 1, 3))]
    summary, games = student_tables(rage, "ann", ("ann", "b", "c"), Contest.COMPETITIVE,
                                    Path("."), None, paths=False)
    assert summary.headers[2] == "mean score (clean games)"
    assert games.headers[3] == "score" and games.rows[0][games.keys.index("place")] == 2


def test_a_students_page_is_found_by_the_name_however_its_accent_was_typed(
        tmp_path: Path) -> None:
    """Names are stored in NFC; `--bot José` typed with a combining accent (as some
    keyboards and copies give it) said "no bot 'José' ... (its bots: José, ...)"."""
    db = tmp_path / "r.sqlite"
    code, _, err = run_main([
        "tournament", "rage", "--db", str(db), "--deals", "1", "--table-size", "3",
        "--reference", f"python {ROOT}/bots/rage_random.py",
        "--reference", f"python {ROOT}/bots/rage_heuristic.py",
        f"José=python {ROOT}/bots/rage_random.py"])
    assert code == 0, err
    code, out, err = run_main(["results", str(db), "--bot", "Jose\u0301"])
    assert code == 0, err
    assert out.startswith("José: summary")
