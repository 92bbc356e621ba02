"""--disqualify-after N: a bot with N faulted games is not started again; its remaining
games are faulted "disqualified", it ranks last and the tables say so. With real bot
processes where it counts: how often the bad bot was started."""

from __future__ import annotations

import io
import shlex
import sqlite3
import subprocess
import sys
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from referee.errors import Fault
from protocols.faults import FaultKind
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from referee.settings import TimeLimits
from tournaments.run.disqualify import Disqualification
from tournaments.store.records import GameRecord
from tournaments.run.rerun import rerun
from tournaments.run.runner import run_tournament
from tournaments.schedule.play_order import play_order
from tournaments.schedule.fixtures import Fixture, fixtures_for
from tournaments.run.session import RunOptions, run_session
from tournaments.spec.definition import BotEntry, SpecError, TournamentSpec, spec_from_json
from tournaments.spec.toml_file import load_tournament_file
from tournaments.store.results_db import ResultStore
from tests.cli_support import assert_bad_input
from tests.tournaments.fakes import TEST_SECRET, FakeContext, fake_play, make_spec
from tests.tournaments.test_config import GOOD, load_error, write

ROOT = Path(__file__).resolve().parents[2]
TIMES = TimeLimits(startup=10.0, move=5.0)  # no timeouts on a busy machine
FIRST = BotEntry("first", "stdio:" + shlex.quote(str(ROOT / "bots" / "rage_first.sh")))
RANDOM = BotEntry("random", shlex.join(["python", str(ROOT / "bots" / "rage_random.py")]))
HEURISTIC = BotEntry("heuristic",
                     shlex.join(["python", str(ROOT / "bots" / "rage_heuristic.py")]))
THEGAME_BOT = BotEntry("heuristic",
                       shlex.join(["python", str(ROOT / "bots" / "thegame_heuristic.py")]))
UNSANDBOXED = SandboxSettings(SandboxMode.OFF)  # so the crasher can note its starts


pytestmark = pytest.mark.usefixtures("no_bot_left")


def crasher(tmp_path: Path) -> tuple[BotEntry, Path]:
    """A bot that notes each start in a file beside itself, then exits at once."""
    script = tmp_path / "crash.sh"
    script.write_text('echo started >> "$0.starts"\nexit 3\n')
    return BotEntry("crasher", f"stdio:sh {shlex.quote(str(script))}"), tmp_path / \
        "crash.sh.starts"


def starts(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def session(spec: TournamentSpec, db: Path, jobs: int = 1) -> tuple[str, list[GameRecord]]:
    options = RunOptions(db, jobs, progress=False, sandbox=UNSANDBOXED, persistent_bots=True)
    tables = run_session(spec, options, io.StringIO())
    with ResultStore.open_existing(db) as store:
        return tables, store.records()


def kinds(record: GameRecord, bot: str) -> list[FaultKind]:
    return [fault.kind for fault in record.faults if record.bots[fault.seat] == bot]


def in_play_order(spec: TournamentSpec, records: list[GameRecord]) -> list[GameRecord]:
    """`records` in the order one job played them (play order), not the stored fixture
    order."""
    played = [f.fixture_id for f in play_order(fixtures_for(spec, TEST_SECRET))]
    return sorted(records, key=lambda record: played.index(record.fixture_id))


def standings_row(tables: str, bot: str) -> list[str]:
    """The bot's row of the first (standings) table of a text report."""
    first = tables.split("\n\n")[0]
    return next(line.split() for line in first.splitlines()
                if len(line.split()) > 1 and line.split()[1] == bot)


# ---------------------------------------------------------------- real bot processes

def test_a_crashing_bot_is_started_n_times_then_seated_disqualified(tmp_path: Path) -> None:
    bad, started = crasher(tmp_path)
    spec = TournamentSpec.create(RAGE, (FIRST, RANDOM, HEURISTIC, bad), size=3,
                                 time_limits=TIMES, disqualify_after=2)
    tables, records = session(spec, tmp_path / "r.sqlite")
    assert starts(started) == 2
    assert len(records) == len(fixtures_for(spec, TEST_SECRET)) == 12  # every game stored
    with_bad = in_play_order(spec, [record for record in records if "crasher" in record.bots])
    assert [kinds(record, "crasher") for record in with_bad] == (
        [[FaultKind.STARTUP]] * 2 + [[FaultKind.DISQUALIFIED]] * 7)
    for record in with_bad[2:]:
        fault = record.faults[0]
        assert fault.detail == "disqualified after 2 faulted games"
        assert record.places[fault.seat] == 3  # Rage: the fallback plays it, placed last
    for record in records:  # the others played every game without a fault
        assert [fault.bot for fault in record.faults] in ([], ["crasher"])
    row = standings_row(tables, "crasher")
    assert row[0] == "4" and "disqualified 7" in " ".join(row), tables  # last
    assert "startup 2," in " ".join(row)


def test_resume_keeps_the_disqualification(tmp_path: Path) -> None:
    bad, started = crasher(tmp_path)
    spec = TournamentSpec.create(RAGE, (FIRST, bad), size=3, deals=2, time_limits=TIMES,
                                 disqualify_after=2)
    db = tmp_path / "r.sqlite"
    tables, records = session(spec, db)
    assert starts(started) == 2 and len(records) == 12  # AAB ABB, 3 rotations, 2 deals
    played = in_play_order(spec, records)
    assert all(set(kinds(record, "crasher")) == {FaultKind.DISQUALIFIED}
               for record in played[2:])
    with closing(sqlite3.connect(db)) as conn, conn:  # as if stopped after 3 games
        conn.executemany("DELETE FROM games WHERE fixture_id = ?",
                         [(record.fixture_id,) for record in played[3:]])
    again, resumed = session(spec, db)
    assert starts(started) == 2  # no new start: the stored faults still count
    assert resumed == records and again == tables


def test_a_disqualified_game_reruns_alike(tmp_path: Path) -> None:
    bad, started = crasher(tmp_path)
    spec = TournamentSpec.create(RAGE, (FIRST, bad), size=3, time_limits=TIMES,
                                 disqualify_after=1)
    db = tmp_path / "r.sqlite"
    _, records = session(spec, db)
    assert starts(started) == 1
    again = rerun(db, records[-1].fixture_id, UNSANDBOXED)
    assert again.reproduced and starts(started) == 1


def test_the_game_team_and_solo_games_of_a_disqualified_bot_fault_at_once(
        tmp_path: Path) -> None:
    bad, started = crasher(tmp_path)
    spec = TournamentSpec.create(THEGAME, (THEGAME_BOT, bad), size=2, deals=2,
                                 time_limits=TIMES, disqualify_after=1)
    tables, records = session(spec, tmp_path / "g.sqlite")
    assert starts(started) == 1
    with_bad = [record for record in records if "crasher" in record.bots]
    assert [kinds(record, "crasher") for record in with_bad] == [[FaultKind.STARTUP]] + [
        [FaultKind.DISQUALIFIED]] * 3
    assert all(record.won is False for record in with_bad)  # ruling X1: lost at once
    assert all(record.faults == () for record in records if "crasher" not in record.bots)
    solo = tables.split("\n\n")[0]
    assert "startup 1, disqualified 1" in solo, tables


# ---------------------------------------------------------------- the coordinator

@dataclass
class Seated:
    """A thread-only context noting the disqualified bots of each fixture played; bot "a"
    crashes in every game."""

    inner: FakeContext
    seen: dict[str, frozenset[int]] = field(default_factory=dict)


def crashes_of(record: GameRecord, bot: str) -> GameRecord:
    """`record` with `bot` crashing in each of its seats, and no other fault."""
    return replace(record, faults=tuple(Fault(seat, bot, FaultKind.CRASH, "exit 3")
                                        for seat, name in enumerate(record.bots)
                                        if name == bot))


def faulting_play(fixture: Fixture, context: Seated) -> GameRecord:
    context.seen[fixture.fixture_id] = fixture.disqualified
    return crashes_of(fake_play(fixture, context.inner), "a")


def threads(jobs: int) -> Executor:
    return ThreadPoolExecutor(max_workers=jobs)


@pytest.mark.parametrize("jobs", [1, 3])
def test_fixtures_after_the_nth_faulted_game_seat_the_bot_disqualified(
        tmp_path: Path, jobs: int) -> None:
    spec = make_spec(n_bots=4, deals=2, disqualify_after=3)
    fixtures = fixtures_for(spec, TEST_SECRET)
    context = Seated(FakeContext(spec.bot_names))
    with ResultStore(tmp_path / "r.sqlite", spec) as store:
        run_tournament(spec, fixtures, store, faulting_play, context, jobs,
                       executor_factory=threads)
    with_a = [f.fixture_id for f in fixtures if 0 in f.seats]
    benched = [fixture_id for fixture_id in with_a if context.seen[fixture_id]]
    # Seated as usual until 3 faulted games are stored; games in flight then (at most
    # jobs - 1 more) are played; every later one seats it disqualified.
    assert 3 <= len(with_a) - len(benched) <= 3 + jobs - 1
    assert benched == with_a[len(with_a) - len(benched):]
    assert all(seen in (frozenset(), frozenset({0})) for seen in context.seen.values())


CRASHED = crashes_of(GameRecord("x", "rage", 1, ("a", "a", "b"), (0, 0, 0), (3, 3, 1)), "a")


def test_without_the_option_no_bot_is_ever_disqualified() -> None:
    count = Disqualification(None, ("a", "b"), [CRASHED] * 5)
    assert count.faulted[0] == 5 and count.disqualified == frozenset()


def test_a_bot_faulting_in_two_seats_of_one_game_counts_one_faulted_game() -> None:
    assert len(CRASHED.faults) == 2
    count = Disqualification(2, ("a", "b"), [CRASHED])
    assert count.faulted[0] == 1 and count.disqualified == frozenset()
    count.count(CRASHED)
    assert count.disqualified == frozenset({0})


# ---------------------------------------------------------------- definition and input

def test_the_fingerprint_changes_only_when_set() -> None:
    base = make_spec(deals=2, seed=1)
    assert base.fingerprint() == (  # as before the option existed: old dbs resume
        "6dedd47f356966648601c6908e5ca841810336c23f066417e6d8bd808dc89d80")
    two, three = (make_spec(deals=2, seed=1, disqualify_after=n) for n in (2, 3))
    assert len({base.fingerprint(), two.fingerprint(), three.fingerprint()}) == 3
    assert spec_from_json(two.to_json()) == two and spec_from_json(base.to_json()) == base
    assert two.fault_policy.disqualify_after == 2
    assert two.fault_policy.on_fault is RAGE.fault_policy.on_fault


def test_the_file_sets_it_in_a_faults_table(tmp_path: Path) -> None:
    spec = load_tournament_file(write(tmp_path, GOOD + "\n[faults]\ndisqualify_after = 5\n"))
    assert spec.disqualify_after == 5
    assert load_tournament_file(write(tmp_path, GOOD)).disqualify_after is None


@pytest.mark.parametrize("value, words", [
    ("0", "from 1 to 1000000"), ("-3", "from 1 to 1000000"),
    ('"3"', "a string"), ("2.5", "a number"), ("true", "a boolean")])
def test_a_bad_value_in_the_file_names_the_line(tmp_path: Path, value: str,
                                                words: str) -> None:
    text = GOOD + f"\n[faults]\ndisqualify_after = {value}\n"
    message = load_error(tmp_path, text)
    line = len(text.splitlines())
    assert f"line {line}:" in message and "'disqualify_after'" in message
    assert words in message


def test_an_unknown_key_in_the_faults_table(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD + "\n[faults]\ndisqualify = 5\n")
    assert "unknown key 'disqualify' in the [faults] table" in message


def test_the_spec_refuses_a_bad_value_too() -> None:
    with pytest.raises(SpecError) as caught:
        make_spec(disqualify_after=0)
    assert caught.value.key == "disqualify_after"


@pytest.mark.parametrize("value", ["0", "x", "1.5", "1000001"])
def test_a_bad_command_line_value_is_one_error(value: str) -> None:
    assert_bad_input(["tournament", "rage", "--disqualify-after", value, "a", "b", "c"],
                     "--disqualify-after")


@pytest.mark.parametrize("option", ["--disqualify-after", "--standings-every"])
def test_a_missing_number_is_one_error(option: str) -> None:
    assert_bad_input(["tournament", "rage", "a", "b", option], option)


def test_a_file_sets_it_itself(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    assert_bad_input(["tournament", str(path), "--disqualify-after", "2"],
                     "--disqualify-after", "cannot be combined", str(path))


# ---------------------------------------------------------------- the command line

def test_the_command_line_disqualifies_and_shows_standings_every_n_games(
        tmp_path: Path) -> None:
    """Sandboxed (where possible) and with 2 jobs: the crasher cannot note its starts
    there, but it is disqualified all the same."""
    tmp_path.chmod(0o755)
    tmp_path.parent.chmod(0o755)  # sandboxed bots run as another user
    bad, _ = crasher(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "rage", "--deals", "2",
         "--move-time", "5", "--jobs", "2", "--disqualify-after", "1",
         "--standings-every", "2", "--db", str(tmp_path / "results" / "r.sqlite"),
         "a=stdio:bots/rage_first.sh", "b=stdio:bots/rage_first.sh",
         f"crasher={bad.command}"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "disqualified" in " ".join(standings_row(done.stdout, "crasher"))
    assert standings_row(done.stdout, "crasher")[0] == "3"
    assert "DISQUALIFIED, each later game counted as faulted: crasher" in done.stdout
    lines = done.stderr.splitlines()
    titles = [number for number, line in enumerate(lines) if line.startswith("Rage standings")]
    assert len(titles) == 2, done.stderr  # after games 2 and 4 of 6, not after the last
    # Each after a progress line, and saying how far the tournament is.
    assert all(lines[number - 3].startswith("rage: ") and
               lines[number - 2].startswith("incomplete: ") for number in titles)
    assert lines[-1].startswith("rage: 6/6 games")
