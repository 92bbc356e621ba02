"""Each game keeps each bot's stderr of that game (issue 12, part 5), with real bots: reused
across games and fresh for each, a flooding bot, a silent one, and the per-bot report."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import sqlite3
from pathlib import Path

import pytest

from protocols.wire import is_request
from referee.registry.game_logs import read_log
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.processes.stderr_sink import DEFAULT_TAIL
from referee.games.rage.definition import RAGE
from referee.settings import TimeLimits
from tests.cli_support import run_main
from tests.tournaments.fakes import TEST_SECRET
from tests.tournaments.test_store_failures import SPEC, filled_db
from tournaments.run.fixture_play import PlayContext, game_stderr_name, play_context, play_fixture, stderr_path, worker_pool
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.spec.definition import BotEntry, TournamentSpec

ROOT = Path(__file__).resolve().parents[2]
TIMES = TimeLimits(startup=10.0, move=5.0)  # no timeouts on a busy machine
MARKER = re.compile(rb"\[referee: (\d+) bytes of stderr cut here\]\n")
FLOOD_BYTES = 1100 * 1024  # per game, and again between games

# A Rage bot (the sample random bot) that writes every GAME line and request it gets to
# stderr, flushed before it replies: each such line belongs to that game. With `flood`, it
# first writes FLOOD_BYTES of 'x' at each GAME, and of 'y' at each END (after its last
# reply, so those may land in the game's file or in the bot's own).
ECHO_BOT = """
import sys
sys.path.insert(0, {root!r})
from bots.rage_random import RandomBot
from bots.sdk import run_bot
from protocols.wire import is_request

FLOOD = {flood}

class Echo(RandomBot):
    def on_line(self, line):
        word = line.split(" ", 1)[0]
        if FLOOD and word in ("GAME", "END"):
            sys.stderr.write((("x" if word == "GAME" else "y") * 1023 + "\\n") * 1100)
        if word == "GAME" or is_request(line):
            sys.stderr.write("got: " + line + "\\n")
        sys.stderr.flush()
        return super().on_line(line)

run_bot("echo", "1.0", Echo())
"""


pytestmark = pytest.mark.usefixtures("no_bot_left")


def bot_file(tmp_path: Path, flood: bool = False) -> str:
    """The echo bot's command, its script in a folder of its own (a sandbox shows it)."""
    folder = tmp_path / "bots"
    folder.mkdir(exist_ok=True)
    script = folder / ("flood.py" if flood else "echo.py")
    script.write_text(ECHO_BOT.format(root=str(ROOT), flood=flood))
    for path in (tmp_path.parent, tmp_path, folder):  # sandboxed bots run as uid 60000
        path.chmod(0o755)
    return shlex.join(["python", str(script)])


def spec_of(echo: str, fresh_bots: bool = False) -> TournamentSpec:
    """The echo bot and the (silent) random bot at tables of 3: each sits twice somewhere."""
    bots = (BotEntry("echo", echo),
            BotEntry("random", shlex.join(["python", str(ROOT / "bots" / "rage_random.py")])))
    return TournamentSpec.create(RAGE, bots, deals=1, fresh_bots=fresh_bots,
                                 time_limits=TIMES)


def play_all(spec: TournamentSpec, tmp_path: Path, sandbox: SandboxMode
             ) -> tuple[PlayContext, list[GameRecord]]:
    db = tmp_path / "run" / "results.sqlite"
    db.parent.mkdir()
    context = play_context(spec, db, sandbox=SandboxSettings(sandbox), persistent_bots=False)
    return context, [play_fixture(f, context) for f in fixtures_for(spec, TEST_SECRET)]


def echoed(log: list[dict[str, object]], seat: int) -> str:
    """What the echo bot at `seat` wrote: the GAME line and requests it was sent."""
    return "".join(f"got: {r['line']}\n" for r in log
                   if r["type"] == "line" and r["seat"] == seat and r["dir"] == "out"
                   and (str(r["line"]).startswith("GAME ") or is_request(str(r["line"]))))


@pytest.mark.parametrize("fresh, sandbox", [(False, SandboxMode.OFF),
                                            (True, SandboxMode.AUTO)],
                         ids=["reused-unsandboxed", "fresh-default-sandbox"])
def test_each_game_file_holds_exactly_that_games_lines(tmp_path: Path, fresh: bool,
                                                       sandbox: SandboxMode) -> None:
    context, records = play_all(spec_of(bot_file(tmp_path), fresh), tmp_path, sandbox)
    seats_played = sum(len(r.bots) for r in records)
    if fresh:
        assert worker_pool(context).started == seats_played
    else:  # the same processes played several games each
        assert worker_pool(context).started < seats_played / 2
    db_folder = context.logs.parent
    for record in records:
        assert record.faults == () and record.stderr_paths is not None
        log = read_log(db_folder / str(record.log_path))
        for seat, bot in enumerate(record.bots):
            path = record.stderr_paths[seat]
            if bot == "random":  # silent: no file, None
                assert path is None
                name = game_stderr_name(str(record.log_path), seat, bot)
                assert not (context.logs / name).exists()
            else:
                assert path is not None and path.startswith(f"{context.logs.name}/")
                assert (db_folder / path).read_text() == echoed(log, seat), path
    # Nothing a bot wrote in a game went to its own file.
    assert "got:" not in stderr_path(context, "echo").read_text()


def test_a_flooding_bot_leaves_bounded_files_and_a_well_referee(tmp_path: Path) -> None:
    context, records = play_all(spec_of(bot_file(tmp_path, flood=True)), tmp_path,
                                SandboxMode.OFF)
    game_files = 0
    for record in records:
        assert record.faults == ()  # every reply in time: the referee kept up
        assert record.stderr_paths is not None
        for path in filter(None, record.stderr_paths):
            text = (context.logs.parent / path).read_bytes()
            marker = MARKER.match(text)
            assert marker is not None and int(marker.group(1)) >= FLOOD_BYTES - DEFAULT_TAIL
            assert len(text) == marker.end() + DEFAULT_TAIL  # exactly the last 64 KiB
            game_files += 1
    assert game_files == sum(r.bots.count("echo") for r in records)
    # Floods between games went to the bot's own file, under its head and tail caps.
    own = stderr_path(context, "echo").read_bytes()
    processes = worker_pool(context).started  # each appends at most head + marker + tail
    assert b"y" * 1023 in own and len(own) <= processes * (2 * DEFAULT_TAIL + 100)


def test_the_report_shows_each_games_stderr_file(tmp_path: Path) -> None:
    """`referee results DB --bot NAME` and `--faults` name the stderr file of each game,
    as a path to open; a silent bot's is "none"."""
    db = tmp_path / "b.sqlite"
    bob = ("stdio:sh -c 'echo HELLO 2 $REFEREE_TOKEN bob 1; echo bob is stuck >&2; "
           "read l; read l; echo nonsense'")
    random_bot = "python " + str(ROOT / "bots" / "rage_random.py")
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             f"alice={random_bot}", f"carol={random_bot}", f"bob={bob}"])
    assert code == 0, err
    code, out, err = run_main(["results", str(db), "--bot", "bob", "--format", "json"])
    assert code == 0, err
    games = json.loads(out)["tables"]["bot_games"]["rows"]
    assert len(games) == 3
    assert all(Path(g["stderr"]).read_text() == "bob is stuck\n" for g in games), games
    code, out, err = run_main(["results", str(db), "--bot", "alice", "--format", "json"])
    assert code == 0 and {g["stderr"] for g in json.loads(out)["tables"]["bot_games"]
                                                                   ["rows"]} == {"none"}
    code, out, _ = run_main(["results", str(db), "--faults", "--format", "csv"])
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0][-1] == "stderr", rows  # one table: one header row
    faults = [row for row in rows[1:] if row[2:3] == ["bob"]]
    assert len(faults) == 3
    assert all(Path(row[-1]).read_text() == "bob is stuck\n" for row in faults)


def test_records_keep_stderr_paths_and_old_rows_read_without_them() -> None:
    record = GameRecord("rage/d01/t01/r0", "rage", 1, ("a", "b", "c"), (1, 2, 3), (3, 2, 1),
                        stderr_paths=("logs/x.seat0.a.stderr", None, None))
    data = json.loads(json.dumps(record.to_json()))
    assert GameRecord.from_json(data) == record
    del data["stderr_paths"]  # a row stored before these files were kept
    assert GameRecord.from_json(data).stderr_paths is None


def old_db(tmp_path: Path, sql: str = "") -> Path:
    """A results db whose rows have no stderr_paths (as before), then changed by `sql`."""
    db = filled_db(tmp_path / "r.sqlite")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET record = json_remove(record, '$.stderr_paths')")
        conn.executescript(sql)
    return db


def test_the_report_of_an_old_db_says_n_a_for_stderr(tmp_path: Path) -> None:
    db = old_db(tmp_path)
    bot = SPEC.bot_names[0]
    code, out, err = run_main(["results", str(db), "--bot", bot, "--format", "json"])
    assert code == 0, err
    games = json.loads(out)["tables"]["bot_games"]["rows"]
    assert games and all(game["stderr"] is None for game in games)


@pytest.mark.parametrize("value", ["5", "'[1]'", "'[\"a\"]'", "'\"x\"'"],
                         ids=["number", "int path", "too few seats", "text"])
def test_malformed_stderr_paths_are_a_damaged_db(tmp_path: Path, value: str) -> None:
    db = old_db(tmp_path, "UPDATE games SET record = json_set(record, '$.stderr_paths', "
                          f"json({value})) WHERE fixture_index = 0")
    code, out, err = run_main(["results", str(db), "--faults"])
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "damaged results db" in err and "Traceback" not in err


def test_a_bot_that_dies_at_start_leaves_its_words_in_the_games_file(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite"
    dead = "stdio:sh -c 'echo cannot find my model >&2; exit 3'"
    random_bot = "python " + str(ROOT / "bots" / "rage_random.py")
    code, _, err = run_main(["tournament", "rage", "--db", str(db), "--table-size", "3",
                             f"alice={random_bot}", f"carol={random_bot}", f"dead={dead}"])
    assert code == 0, err
    code, out, err = run_main(["results", str(db), "--faults", "--format", "json"])
    faults = json.loads(out)["tables"]["faults"]["rows"]
    assert code == 0 and {fault["bot"] for fault in faults} == {"dead"}, out
    assert all(Path(f["stderr"]).read_text() == "cannot find my model\n" for f in faults)
