"""`referee tournament` and `referee results` from the shell, with the sample bots.

Whole runs go through `python -m referee` in a subprocess (tables on stdout, progress on
stderr, exit status); bad input is checked in-process: one line, exit 2, nothing played.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import assert_bad_input
from tests.tournaments.db_support import unplayed_copy
from referee.players.lineup import bot_specs
from tournaments.config import load_tournament_file
from tournaments.progress import StderrProgress
from tournaments.schedule import fixture_ids
from tournaments.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tournaments" / "examples"
RANDOM = "python bots/rage_random.py"
HEURISTIC = "python bots/rage_heuristic.py"
FIRST = "stdio:bots/rage_first.sh"
SLACK = ["--move-time", "5"]  # no timeouts on a busy machine: results must be reproducible


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def rage_run(db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """3 sample bots at tables of 3, 2 deals: 6 games."""
    return referee("tournament", "rage", "--deals", "2", "--db", str(db), *SLACK, *extra,
                   RANDOM, HEURISTIC, FIRST)


def test_tables_go_to_stdout_and_progress_to_stderr(tmp_path: Path) -> None:
    done = rage_run(tmp_path / "r.sqlite", "--format", "csv", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[0][0].startswith("Rage standings")
    assert rows[1][:3] == ["rank", "bot", "games"]
    assert {row[1] for row in rows[2:5]} == {"rage_random", "rage_heuristic", "rage_first"}
    assert all(row[2] == "6" for row in rows[2:5])  # 6 games, one seat each
    assert "rage: 6/6 games, 0 faults" in done.stderr
    assert "Rage standings" not in done.stderr
    assert len(list((tmp_path / "r-logs").glob("*.jsonl"))) == 6


def test_jobs_two_gives_the_tables_of_jobs_one(tmp_path: Path) -> None:
    """And so does polling before sleeping (--busy-wait-us): it changes only speed."""
    one = rage_run(tmp_path / "one.sqlite", "--jobs", "1", "--format", "json",
                   "--busy-wait-us", "0")
    unplayed_copy(tmp_path / "one.sqlite", tmp_path / "two.sqlite")  # the same deals
    two = rage_run(tmp_path / "two.sqlite", "--jobs", "2", "--format", "json",
                   "--busy-wait-us", "1000")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    assert json.loads(one.stdout)  # real tables, not an empty document


def test_the_same_command_again_resumes_and_results_prints_the_tables(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    first = rage_run(db, "--format", "markdown")
    again = rage_run(db, "--format", "markdown", "--fresh-bots")  # fresh_bots: same results
    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    assert again.stdout == first.stdout
    assert "6/6 games (6 resumed)" in again.stderr
    printed = referee("results", str(db), "--format", "markdown")
    assert printed.returncode == 0 and printed.stdout == first.stdout


def stored_seeds(db: Path) -> dict[str, int]:
    """Each stored game's deal seed, by fixture id."""
    with ResultStore.open_existing(db) as store:
        return {record.fixture_id: record.seed for record in store.records()}


def test_deals_are_secret_per_db_and_the_same_on_resume(tmp_path: Path) -> None:
    """The same public seed in two fresh dbs gives other deals; a resumed run replays
    its own db's deals; each game log's header holds the seed its game was dealt from."""
    first, second = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    runs = [rage_run(db, "--seed", "5", "--format", "json") for db in (first, second)]
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr
    seeds, other = stored_seeds(first), stored_seeds(second)
    assert len(set(seeds.values())) == 2  # 2 deals, each played in every rotation
    assert set(seeds.values()).isdisjoint(other.values())
    for seed in seeds.values():
        assert str(seed) not in runs[0].stdout + runs[0].stderr
    for log in (tmp_path / "a-logs").glob("*.jsonl"):
        header = json.loads(log.read_text().splitlines()[0])
        assert header["seed"] in seeds.values()
    with sqlite3.connect(first) as conn:  # as if killed after its first deal
        conn.execute("DELETE FROM games WHERE fixture_id LIKE 'rage/d02/%'")
    resumed = rage_run(first, "--seed", "5", "--format", "json")
    assert resumed.returncode == 0 and "(3 resumed)" in resumed.stderr, resumed.stderr
    assert stored_seeds(first) == seeds and resumed.stdout == runs[0].stdout


def test_a_tournament_file_is_the_same_tournament_as_its_command_line(tmp_path: Path) -> None:
    """Names and settings as the command line would make them: the same definition, so
    the command line run finds every game already played by the file's run."""
    tournament = tmp_path / "t.toml"
    tournament.write_text('game = "rage"\ndeals = 2\n[limits]\nmove = 5.0\n' + "".join(
        f'[[bots]]\nname = "{name}"\ncommand = "{command}"\n'
        for name, command in [("rage_random", RANDOM), ("rage_heuristic", HEURISTIC),
                              ("rage_first", FIRST)]))
    db = tmp_path / "r.sqlite"
    from_file = referee("tournament", str(tournament), "--db", str(db), "--jobs", "2")
    assert from_file.returncode == 0, from_file.stderr
    from_line = rage_run(db)
    assert from_line.returncode == 0, from_line.stderr
    assert "(6 resumed)" in from_line.stderr and from_line.stdout == from_file.stdout


@pytest.mark.skipif(not (ROOT / "bots" / "thegame_heuristic.py").is_file(),
                    reason="bots/thegame_heuristic.py is not written yet")
def test_a_thegame_tournament_reports_solo_and_team_tables(tmp_path: Path) -> None:
    bots = ["python bots/thegame_random.py", "python bots/thegame_heuristic.py"]
    done = referee("tournament", "thegame", "--deals", "2", "--db", str(tmp_path / "t.sqlite"),
                   "--format", "json", *SLACK, *bots)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)
    solo, teams, _ = tables.values()
    assert {row["bot"]: row["games"] for row in solo} == {"thegame_random": 2,
                                                          "thegame_heuristic": 2}
    assert [(row["team"], row["games"]) for row in teams] == [
        ("thegame_random+thegame_heuristic", 2)]
    assert "thegame: 6/6 games, 0 faults" in done.stderr


def test_the_examples_are_quick_and_need_no_configuration() -> None:
    """classroom.toml runs as shipped (measured: about 10 s on 2 cores)."""
    classroom = load_tournament_file(EXAMPLES / "classroom.toml")
    assert len(fixture_ids(classroom)) <= 120
    bot_specs([bot.command for bot in classroom.bots])  # every command can start
    teams = load_tournament_file(EXAMPLES / "thegame_teams.toml")
    assert len(fixture_ids(teams)) <= 200


def test_a_db_of_another_tournament_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "r.sqlite"
    assert rage_run(db).returncode == 0
    assert_bad_input(["tournament", "rage", "--deals", "3", "--db", str(db), *SLACK,
                      RANDOM, HEURISTIC, FIRST], capsys, "different tournament", "deals")


def test_a_resumed_tournament_refuses_another_clock(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The clock defines a tournament, as the move time does: another one is another db."""
    db, tournament = tmp_path / "r.sqlite", tmp_path / "t.toml"
    text = (EXAMPLES / "classroom.toml").read_text()
    tournament.write_text(text.replace("bank = 5.0", 'bank = 5.0\nclock = "cpu"'))
    ResultStore(db, load_tournament_file(tournament)).close()  # made, nothing played yet
    tournament.write_text(text)
    assert_bad_input(["tournament", str(tournament), "--db", str(db)], capsys,
                     "different tournament", "limits")


@pytest.mark.parametrize("args, words", [
    (["chess", RANDOM, RANDOM], ["unknown game", "chess"]),
    (["no/such/file.toml"], ["no/such/file.toml", "does not exist"]),
    (["rage", RANDOM], ["at least 2 bots"]),
    (["thegame"], ["at least 1 bot"]),
    (["rage", RANDOM, "./no/such/bot"], ["no/such/bot"]),
    (["rage", "--deals", "0", RANDOM, RANDOM], ["--deals"]),
    (["rage", "--table-size", "9", RANDOM, RANDOM], ["--table-size"]),
    (["rage", "--variant", "double-trump", RANDOM, RANDOM], ["double-trump"]),
    (["rage", "--variant", "plus-minus-one", "--variant", "hidden-bid", RANDOM, RANDOM],
     ["R10"]),
    (["rage", "--team-size", "2", RANDOM, RANDOM], ["--team-size", "thegame"]),
    (["rage", "--no-commands", RANDOM, RANDOM], ["--no-commands", "thegame"]),
    (["thegame", "--table-size", "4", RANDOM], ["--table-size", "rage"]),
    (["thegame", "--variant", "durchmarsch", RANDOM], ["--variant", "rage"]),
    (["rage", "--jobs", "0", RANDOM, RANDOM], ["--jobs"]),
    (["rage", "--format", "pdf", RANDOM, RANDOM], ["--format", "pdf"]),
    (["rage", "--move-time", "-1", RANDOM, RANDOM], ["--move-time"]),
    (["rage", "--clock", "sun", RANDOM, RANDOM], ["--clock", "sun", "wall", "cpu"]),
    (["rage", "--clock", "cpu", "--sandbox", "off", RANDOM, RANDOM],
     ["--clock cpu", "--sandbox off"]),
])
def test_bad_options_give_one_line_and_exit_2(args: list[str], words: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(["tournament", *args], capsys, *words)


def test_a_bad_command_mapping_is_refused_before_any_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mapping = tmp_path / "commands.toml"
    mapping.write_text("[commands]\nstop = [3, 39, 56]\n")
    assert_bad_input(["tournament", "thegame", "--commands", str(mapping), "--db",
                      str(tmp_path / "t.sqlite"), RANDOM], capsys, "commands.toml", "stop")
    assert not (tmp_path / "t.sqlite").exists()


def test_no_commands_and_commands_exclude_each_other(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    mapping = tmp_path / "commands.toml"
    mapping.write_text("")
    assert_bad_input(["tournament", "thegame", "--no-commands", "--commands", str(mapping),
                      RANDOM], capsys, "--no-commands", "--commands")


@pytest.mark.parametrize("option", [["--deals", "3"], ["--seed", "4"], ["--move-time", "2"],
                                    ["--variant", "durchmarsch"], ["--max-memory", "512"],
                                    ["--clock", "cpu"]])
def test_a_tournament_file_takes_no_defining_options(option: list[str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(["tournament", str(EXAMPLES / "classroom.toml"), *option], capsys,
                     option[0], "tournament file")


def test_a_tournament_file_takes_no_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(["tournament", str(EXAMPLES / "classroom.toml"), RANDOM], capsys,
                     "no BOT arguments")


@pytest.mark.parametrize("text, words", [
    ('game = "rage"\ndeals = \n', ["line 2", "TOML syntax error"]),
    ('game = "rage"\nrounds = 3\n', ["line 2", "unknown key 'rounds'"]),
    ('game = "poker"\n', ["line 1", "poker"]),
    ('game = "rage"\n[[bots]]\nname = "a"\ncommand = "python bots/rage_random.py"\n',
     ["at least 2 bots"]),
    ('game = "rage"\n[[bots]]\nname = "a"\ncommand = "./nothing/here"\n'
     '[[bots]]\nname = "b"\ncommand = "./nothing/here"\n', ["nothing/here"]),
])
def test_bad_tournament_files_give_one_line_and_exit_2(
        text: str, words: list[str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    tournament = tmp_path / "bad.toml"
    tournament.write_text(text)
    assert_bad_input(["tournament", str(tournament), "--db", str(tmp_path / "r.sqlite")],
                     capsys, *words)


def test_a_db_path_that_cannot_be_made(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    plain.write_text("a file, not a folder")
    assert_bad_input(["tournament", "rage", "--db", str(plain / "r.sqlite"), RANDOM, RANDOM],
                     capsys, "cannot use", "r.sqlite")


def test_results_of_a_missing_or_foreign_db(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(["results", str(tmp_path / "none.sqlite")], capsys, "does not exist")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a database at all, just some words" * 40)
    assert_bad_input(["results", str(foreign)], capsys, "not a results db")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_is_a_bar_with_the_eta_and_faults() -> None:
    terminal = Terminal()
    progress = StderrProgress("rage", terminal)
    progress.start(total=4, done=2, faults=1)
    assert terminal.getvalue() == "\r\x1b[K[##########----------] rage: 2/4 games (2 resumed), " \
                                  "1 fault, ETA ?"
