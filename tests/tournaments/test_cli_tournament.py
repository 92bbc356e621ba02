"""`referee tournament` and `referee results` from the shell, with the sample bots.

Whole runs go through `python -m referee` in a subprocess (tables on stdout, progress on
stderr, exit status). What runs no bot, bad input (one line, exit 2, nothing played) and
`referee results`, runs in-process with click's CliRunner (tests/cli_support.py).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.cli_support import assert_bad_input, run_main, running_with
from tests.tournaments.db_support import unplayed_copy
from referee.logs.live import WATCHING, live_folder
from referee.registry.game_logs import read_log
from referee.players.lineup import bot_specs
from tournaments.spec.toml_file import load_tournament_file
from tournaments.run.progress import StderrProgress
from tournaments.schedule.fixtures import fixture_ids
from tournaments.store.results_db import ResultStore

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
    rows = list(csv.reader(io.StringIO(done.stdout)))  # the standings: one csv table
    assert rows[0][:3] == ["rank", "bot", "games"] and len(rows) == 4
    assert {row[1] for row in rows[1:]} == {"rage_random", "rage_heuristic", "rage_first"}
    assert all(row[2] == "6" for row in rows[1:])  # 6 games, one seat each
    assert "rage: 6/6 games, 0 faults" in done.stderr
    assert "rage_heuristic" not in done.stderr
    assert len(list((tmp_path / "r-logs").glob("*.jsonl.gz"))) == 6


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
    code, printed, err = run_main(["results", str(db), "--format", "markdown"])
    assert code == 0 and printed == first.stdout, err  # no bot runs: in-process


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
    for log in (tmp_path / "a-logs").glob("*.jsonl.gz"):
        header = read_log(log)[0]
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
    up = os.path.relpath(ROOT, tmp_path)  # a file's paths are relative to its folder
    tournament.write_text('game = "rage"\ndeals = 2\n[limits]\nmove = 5.0\n' + "".join(
        f'[[bots]]\nname = "{name}"\ncommand = "{command.replace("bots/", f"{up}/bots/")}"\n'
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
    tables = json.loads(done.stdout)["tables"]
    solo, teams = tables["solo"]["rows"], tables["teams"]["rows"]
    assert [row["bot"] for row in tables["bots"]["rows"]] == ["thegame_random",
                                                              "thegame_heuristic"]
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


def test_a_db_of_another_tournament_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    assert rage_run(db).returncode == 0
    assert_bad_input(["tournament", "rage", "--deals", "3", "--db", str(db), *SLACK,
                      RANDOM, HEURISTIC, FIRST], "different tournament", "deals")


def test_a_resumed_tournament_refuses_another_clock(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The clock defines a tournament, as the move time does: another one is another db."""
    db, tournament = tmp_path / "r.sqlite", tmp_path / "t.toml"
    # The example's paths are relative to its folder (../../bots): here, from the root's.
    text = (EXAMPLES / "classroom.toml").read_text().replace("../../bots/", f"{ROOT}/bots/")
    tournament.write_text(text.replace("bank = 5.0", 'bank = 5.0\nclock = "cpu"'))
    ResultStore(db, load_tournament_file(tournament)).close()  # made, nothing played yet
    tournament.write_text(text)
    assert_bad_input(["tournament", str(tournament), "--db", str(db)],
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
def test_bad_options_give_one_line_and_exit_2(args: list[str], words: list[str]) -> None:
    assert_bad_input(["tournament", *args], *words)


def test_a_bad_command_mapping_is_refused_before_any_game(tmp_path: Path) -> None:
    mapping = tmp_path / "commands.toml"
    mapping.write_text("[commands]\nstop = [3, 39, 56]\n")
    assert_bad_input(["tournament", "thegame", "--commands", str(mapping), "--db",
                      str(tmp_path / "t.sqlite"), RANDOM], "commands.toml", "stop")
    assert not (tmp_path / "t.sqlite").exists()


def test_no_commands_and_commands_exclude_each_other(tmp_path: Path) -> None:
    mapping = tmp_path / "commands.toml"
    mapping.write_text("")
    assert_bad_input(["tournament", "thegame", "--no-commands", "--commands", str(mapping),
                      RANDOM], "--no-commands", "--commands")


@pytest.mark.parametrize("option", [["--deals", "3"], ["--seed", "4"], ["--move-time", "2"],
                                    ["--variant", "durchmarsch"], ["--max-memory", "512"],
                                    ["--clock", "cpu"]])
def test_a_tournament_file_takes_no_defining_options(option: list[str]) -> None:
    assert_bad_input(["tournament", str(EXAMPLES / "classroom.toml"), *option],
                     option[0], "tournament file")


def test_a_tournament_file_takes_no_bots() -> None:
    assert_bad_input(["tournament", str(EXAMPLES / "classroom.toml"), RANDOM],
                     "no BOT arguments")


@pytest.mark.parametrize("text, words", [
    ('game = "rage"\ndeals = \n', ["line 2", "TOML syntax error"]),
    ('game = "rage"\nrounds = 3\n', ["line 2", "unknown key 'rounds'"]),
    ('game = "poker"\n', ["line 1", "poker"]),
    ('game = "rage"\n[[bots]]\nname = "a"\ncommand = "python /bin/true"\n',
     ["at least 2 bots"]),
    ('game = "rage"\n[[bots]]\nname = "a"\ncommand = "./nothing/here"\n'
     '[[bots]]\nname = "b"\ncommand = "./nothing/here"\n', ["nothing/here"]),
])
def test_bad_tournament_files_give_one_line_and_exit_2(
        text: str, words: list[str], tmp_path: Path) -> None:
    tournament = tmp_path / "bad.toml"
    tournament.write_text(text)
    assert_bad_input(["tournament", str(tournament), "--db", str(tmp_path / "r.sqlite")],
                     *words)


def test_a_db_path_that_cannot_be_made(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("a file, not a folder")
    assert_bad_input(["tournament", "rage", "--db", str(plain / "r.sqlite"), RANDOM, RANDOM],
                     "cannot use", "r.sqlite")


def test_results_of_a_missing_or_foreign_db(tmp_path: Path) -> None:
    assert_bad_input(["results", str(tmp_path / "none.sqlite")], "does not exist")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a database at all, just some words" * 40)
    assert_bad_input(["results", str(foreign)], "not a results db")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_is_a_bar_with_the_eta_and_faults() -> None:
    terminal = Terminal()
    progress = StderrProgress("rage", terminal)
    progress.start(total=4, done=2, faults=1)
    assert terminal.getvalue() == "\r\x1b[K[##########----------] rage: 2/4 games (2 resumed), " \
                                  "1 fault, ETA ?"


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "html"])
def test_a_bot_that_exits_at_once_ranks_below_every_bot_that_plays(tmp_path: Path,
                                                                    fmt: str) -> None:
    """Issue 12: its fallback's points are not its own; each of its games is a last
    place. The tables rank it last in every format."""
    run = referee("tournament", "rage", "--db", str(tmp_path / "c.sqlite"), "--table-size",
                  "3", "--format", fmt, RANDOM, HEURISTIC, "stdio:sh -c 'exit 3'")
    assert run.returncode == 0, run.stderr
    # From the ranking table (past the settings that html and json list first) to the
    # crosstable; csv writes the ranking table alone.
    start = {"html": 'id="standings"', "json": '"tables"'}.get(fmt)
    begin = run.stdout.index(start) if start else 0
    end = run.stdout.find("Head-to-head", begin)
    standings = run.stdout[begin:end if end >= 0 else None]
    positions = {name: [m.start() for m in re.finditer(rf"(?<![\w-]){name}(?![\w-])",
                                                      standings)]
                 for name in ("rage_random", "rage_heuristic", "sh")}
    assert all(len(found) == 1 for found in positions.values()), standings
    assert positions["sh"] > positions["rage_random"] and \
        positions["sh"] > positions["rage_heuristic"], standings


def test_bots_named_on_the_command_line_keep_their_names(tmp_path: Path) -> None:
    """Issue 12: `NAME=COMMAND` names a bot; `alice/main` and `bob/main` are no longer
    main-1 and main-2. An unnamed bot still gets its program's name."""
    run = referee("tournament", "rage", "--db", str(tmp_path / "n.sqlite"), "--table-size",
                  "3", f"alice={RANDOM}", f"bob={HEURISTIC}", RANDOM)
    assert run.returncode == 0, run.stderr
    rows = {line.split()[1] for line in run.stdout.splitlines()
            if line.split()[:1] in (["1"], ["2"], ["3"])}
    assert rows == {"alice", "bob", "rage_random"}, run.stdout


def test_two_bots_of_one_name_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_input(["tournament", "rage", f"a={RANDOM}", f"a={HEURISTIC}", RANDOM], "names must differ")


def test_a_schedule_over_max_games_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 12: 32 bots at tables of 4 would be 143,840 games a deal; a schedule over
    --max-games (default 20,000) is one error line naming the count, and no db."""
    db = tmp_path / "big.sqlite"
    class_of_32 = [f"s{n}={RANDOM}" for n in range(32)]  # 30 students, 2 references
    assert_bad_input(["tournament", "rage", "--db", str(db), *class_of_32],
                     "143,840 games", "--max-games 20,000")
    assert_bad_input(["tournament", "rage", "--db", str(db), "--max-games", "29", "--deals", "10",
                      "--table-size", "3", RANDOM, HEURISTIC, RANDOM], "30 games")
    assert not db.exists()


def test_the_schedule_size_is_printed_before_the_games(tmp_path: Path) -> None:
    run = rage_run(tmp_path / "s.sqlite")
    assert run.returncode == 0, run.stderr
    assert "rage: 6 games scheduled, 6 to play" in run.stderr.splitlines()[1], run.stderr


@pytest.mark.parametrize("signum, code, group", [
    (signal.SIGINT, 130, True), (signal.SIGTERM, 143, False), (signal.SIGTERM, 143, True)])
def test_ctrl_c_with_two_workers_stops_cleanly(tmp_path: Path, signum: int,
                                               code: int, group: bool) -> None:
    """Issue 12: Ctrl-C (sent to the whole group, as a terminal does) or SIGTERM, to the
    referee alone or to its group (as `timeout` does), with --jobs 2: no traceback from any
    worker, one line saying what is kept, 130 or 143, and no process left. The same
    command again resumes. The games in flight are ended at once, not played to their end
    (a game of these bots takes a minute) to be dropped, and leave no file: a log is made
    as its game starts, and its seats' stderr files (their bots write some) as the bots
    are killed."""
    marker = f"interrupt-{uuid.uuid4().hex}"  # in every bot's command line, to find them
    slow = f"{sys.executable} {ROOT / 'tests' / 'serve' / 'slow_bot.py'} 0.3 --stderr {marker}"
    logs = tmp_path / "i-logs"
    live = live_folder(logs)
    live.mkdir(parents=True)  # watched, as by `referee serve`: each game has a live file
    (live / WATCHING).write_text(f"{os.getpid()}\n")
    args = [sys.executable, "-m", "referee", "tournament", "rage", "--jobs", "2", "--deals",
            "3", "--table-size", "3", "--db", str(tmp_path / "i.sqlite"),
            f"a={slow}", f"b={slow}", f"c={slow}"]
    run = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        time.sleep(3)  # started, games in flight (each takes seconds)
        assert any(logs.glob("*.jsonl.gz")) and any(live.glob("*.live")), "none in flight"
        os.killpg(run.pid, signum) if group else run.send_signal(signum)
        stopped = time.monotonic()
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
    assert time.monotonic() - stopped < 20, "the stop waited for the games in flight"
    assert run.returncode == code, err
    assert "interrupted after 0 of 9 games" in err, err
    left = sorted(path.name for path in logs.glob("*") if path.is_file()
                  if not path.name.endswith(".stderr") or ".seat" in path.name)
    assert left == [] and list(live.glob("*.live")) == [], "files of games cut short"
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith(
        "referee: interrupted after "), err
    assert "run the same command again to resume" in err
    deadline = time.monotonic() + 10
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running_with(marker), "bot processes left after the interrupt"


def test_results_for_one_bot_show_its_games_faults_and_logs(tmp_path: Path) -> None:
    """Issue 12: 'why did my bot fault?' One command shows a bot's games, each fault with
    its kind, detail and offending line, and the log of each game, which exists."""
    db = tmp_path / "b.sqlite"
    bob = "stdio:sh -c 'echo HELLO 2 $REFEREE_TOKEN bob 1; read l; read l; echo nonsense'"
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             f"alice={RANDOM}", f"carol={HEURISTIC}", f"bob={bob}"])
    assert code == 0, err
    code, out, err = run_main(["results", str(db), "--bot", "bob", "--format", "json"])
    assert code == 0, err
    tables = json.loads(out)["tables"]
    assert tables["bot_games"]["title"] == "Games of bob (3 seats played)"
    games = tables["bot_games"]["rows"]
    assert len(games) == 3 and all(game["place"] == 3 for game in games)
    assert all(game["fault"].startswith("protocol") and "): failure 1 (line: " in
               game["fault"] for game in games), games  # its words once, in the failures
    [failure] = tables["fault_summary"]["rows"]
    assert failure["failure"] == 1 and "nonsense" in failure["detail"], failure
    assert all(Path(game["log"]).is_file() for game in games)
    code, out, _ = run_main(["results", str(db), "--faults", "--format", "csv"])
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and sum(row[2:3] == ["bob"] for row in rows) == 3, out
    assert_bad_input(["results", str(db), "--bot", "dave"], "no bot 'dave'", "alice")


def test_rerun_reproduces_a_stored_game_and_says_so(tmp_path: Path) -> None:
    """Issue 12: `referee rerun DB GAME_ID` plays one stored game again with its deal and
    seats; the sample bots are deterministic, so it reproduces, and the stored log is
    untouched."""
    db = tmp_path / "r.sqlite"
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             f"a={RANDOM}", f"b={HEURISTIC}", f"c={RANDOM}"])
    assert code == 0, err
    game = "rage/d01/t01/r1"
    stored_log = tmp_path / "r-logs" / "rage_d01_t01_r1.jsonl.gz"
    before = stored_log.read_bytes()
    code, out, err = run_main(["rerun", str(db), game])
    assert code == 0 and out.startswith(f"{game}: reproduced"), out + err
    assert stored_log.read_bytes() == before
    assert (tmp_path / "r-logs-rerun" / "rage_d01_t01_r1.jsonl.gz").is_file()
    assert_bad_input(["rerun", str(db), "rage/d09/t01/r0"], "no stored game")


def test_rerun_says_when_a_game_differs(tmp_path: Path) -> None:
    coin = tmp_path / "coin.py"  # a bot that plays by chance: its games do not repeat
    coin.write_text("import os, random, sys\n"
                    "print('HELLO 2', os.environ['REFEREE_TOKEN'], 'coin 1', flush=True)\n"
                    "for line in sys.stdin:\n"
                    "    words = line.split()\n"
                    "    if words and words[0].endswith('?'):\n"
                    "        print(random.SystemRandom().choice(words[1:]), flush=True)\n")
    for path in (tmp_path.parent, tmp_path):  # a sandboxed bot runs as another user
        path.chmod(0o755)
    db = tmp_path / "results" / "c.sqlite"  # not in the bots' folder, which they read
    coins = [f"{name}=stdio:python {coin}" for name in "xyz"]
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             *coins])
    assert code == 0, err
    verdicts = [run_main(["rerun", str(db), f"rage/d01/t01/r{r}"]) for r in range(3)]
    # three chance-played games of 10 rounds: at least one comes out otherwise
    assert any(code == 1 and "differs" in out for code, out, _ in verdicts), verdicts
    assert not any("changed since" in out for _, out, _ in verdicts)
    # The script edited since: rerun says so, naming each seat it plays (a new user's
    # trial: a teacher reran a student's game after the student's fix and saw "differs").
    before = coin.read_bytes()
    coin.write_bytes(before + b"# fixed\n")
    code, out, err = run_main(["rerun", str(db), "rage/d01/t01/r0"])
    note = out.splitlines()[-1]
    assert note.startswith("note: changed since the stored game: seat 0 "), out + err
    assert note.count("'s script (sha256 ") == 3 and note.endswith(" now)"), note


@pytest.mark.parametrize("flag, code", [([], 0), (["--fail-on-fault"], 1)])
def test_fail_on_fault_exits_1_after_printing_the_tables(tmp_path: Path, flag: list[str],
                                                         code: int) -> None:
    """Issue 13: one run exited 0 with 81 faults. With --fail-on-fault a CI job sees them;
    the tables are printed and stored all the same."""
    crasher = "stdio:sh -c 'echo HELLO 2 $REFEREE_TOKEN crasher 1; exit 3'"
    result, out, err = run_main(["tournament", "rage", "--db", str(tmp_path / "f.sqlite"),
                                 *flag, f"bad={crasher}", RANDOM, FIRST])
    assert result == code, err
    assert "standings" in out and "bad" in out
    assert ("(--fail-on-fault)" in err) == bool(flag), err
    # the command to list them names this db, not a placeholder (issue 29, Smaller)
    assert (f"`referee results {tmp_path / 'f.sqlite'} --faults`" in err) == bool(flag), err


def test_fail_on_fault_passes_a_tournament_without_faults(tmp_path: Path) -> None:
    result, out, err = run_main(["tournament", "rage", "--db", str(tmp_path / "c.sqlite"),
                                 "--fail-on-fault", *SLACK, FIRST, FIRST, FIRST])
    assert result == 0, err
    assert "standings" in out


def test_results_show_a_non_utf8_line_escaped_once(tmp_path: Path) -> None:
    """The transport records the bad bytes as \\xNN already: the reports quote that line
    without escaping its backslashes again."""
    db = tmp_path / "u.sqlite"
    garbage = "python tests/referee/fault_bots/misbehave.py garbage 1"
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             f"alice={RANDOM}", f"carol={HEURISTIC}", f"bob={garbage}"])
    assert code == 0, err
    for args in (["--faults"], ["--bot", "bob"]):
        code, out, _ = run_main(["results", str(db), *args])
        assert code == 0 and r"'\xff\xfe not utf-8 \xc3('" in out, out
        assert "\\\\x" not in out
