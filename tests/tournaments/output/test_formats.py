"""Text, markdown and csv as `referee results` writes them, `--table`, and the notice of
an incomplete tournament in every format."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from protocols.faults import FaultKind
from tests.cli_support import assert_bad_input, run_main
from tests.tournaments.output.stored import fake_db


def results(db: Path, *extra: str) -> tuple[str, str]:
    code, out, err = run_main(["results", str(db), *extra])
    assert code == 0, err
    return out, err


@pytest.fixture(name="partial")
def partial_db(tmp_path: Path) -> tuple[Path, int]:
    """A Rage db with 5 of its games stored, as an interrupted run leaves it."""
    db = tmp_path / "p.sqlite"
    return db, fake_db(db, n_bots=4, stored=5, deals=2)


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_people_s_formats_say_incomplete_at_the_top(partial: tuple[Path, int],
                                                    fmt: str) -> None:
    db, scheduled = partial
    out, err = results(db, "--format", fmt)
    notice = f"incomplete: 5 of {scheduled} games played"
    assert notice in out and err == ""
    assert out.index(notice) < out.index("standings")


def test_csv_says_incomplete_on_stderr_and_keeps_its_table_clean(
        partial: tuple[Path, int]) -> None:
    db, scheduled = partial
    out, err = results(db, "--format", "csv")
    assert err == f"referee: incomplete: 5 of {scheduled} games played\n"
    assert "incomplete" not in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "csv", "html"])
def test_a_complete_tournament_has_no_notice(tmp_path: Path, fmt: str) -> None:
    fake_db(tmp_path / "r.sqlite", n_bots=3)
    out, err = results(tmp_path / "r.sqlite", "--format", fmt)
    assert "incomplete" not in out + err


def test_csv_is_one_table_with_one_header_row_of_keys(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=4)
    rows = list(csv.reader(io.StringIO(results(db, "--format", "csv")[0])))
    kinds = [f"faults_{kind.value}" for kind in FaultKind]  # a number per kind (issue 29)
    assert rows[0] == ["rank", "bot", "games", "clean_games", "mean_score", "mean_score_ci95",
                       "mean_place", "first_places", "faults", *kinds, "rating_mu",
                       "rating_sigma"]
    assert sorted(row[1] for row in rows[1:]) == ["a", "b", "c", "d"]
    assert all(len(row) == len(rows[0]) for row in rows)  # no title or blank rows
    crosstable = list(csv.reader(io.StringIO(
        results(db, "--format", "csv", "--table", "head_to_head")[0])))
    assert crosstable[0][0] == "bot" and len(crosstable) == 1 + 4
    by_bot = {row[0]: row for row in crosstable[1:]}
    assert by_bot["a"][crosstable[0].index("a")] == ""  # n/a: an empty field


def test_text_shows_faults_as_words_and_one_table_on_request(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=3)
    out, _ = results(db)
    assert "Head-to-head" in out and "protocol 1" in out
    alone, _ = results(db, "--table", "standings", "--format", "markdown")
    assert "standings" in alone and "Head-to-head" not in alone


def test_an_unknown_table_is_bad_usage_naming_the_tables_there_are(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=3)
    assert_bad_input(["results", str(db), "--table", "solo"], "no table 'solo'",
                     "standings", "head_to_head")
    assert_bad_input(["results", str(db), "--bot", "a", "--table", "standings"],
                     "bot_games")


def test_a_tournament_refuses_an_unknown_table_before_playing(tmp_path: Path) -> None:
    db = tmp_path / "never.sqlite"
    assert_bad_input(["tournament", "thegame", "--db", str(db), "--table", "standings",
                      "python bots/thegame_random.py"],
                     "no table 'standings'", "solo", "teams", "solo_vs_team")
    assert not db.exists()


def test_a_bots_formula_reaches_csv_only_quoted(tmp_path: Path) -> None:
    """README (csv): what a bot wrote starts with a quote, never with = + - @."""
    db = tmp_path / "f.sqlite"
    formula = "stdio:sh -c 'echo HELLO 2 $REFEREE_TOKEN eve 1; read l; read l; echo =1+1'"
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             "python bots/rage_random.py", "python bots/rage_random.py",
                             f"eve={formula}"])
    assert code == 0, err
    out, _ = results(db, "--format", "csv", "--faults", "--table", "faults")
    lines = [row["line"] for row in csv.DictReader(io.StringIO(out)) if row["bot"] == "eve"]
    assert lines and all(line == "'=1+1'" for line in lines), lines
