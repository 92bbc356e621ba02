"""The worker side with real bot processes: records, logs, reused and fresh bots, faults.

Played in this process (play_fixture) where the pool itself is checked, and through
run_session's process pool where whole tournaments are compared.
"""

from __future__ import annotations

import io
import os
import shlex
from pathlib import Path

import pytest

from referee.processes.sandbox import SandboxMode, SandboxSettings, sandbox_problem
from referee.processes.live_bots import live_processes
from protocols.faults import FaultKind
from referee.registry.game_logs import read_log
from referee.settings import TimeLimits
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.run.idle_bots import IDLE_TABLES, SeatKey
from tournaments.run.fixture_play import PlayContext, log_name, play_context, play_fixture, seat_keys, stderr_path, worker_pool
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture, fixtures_for
from tournaments.run.pinned_pool import cpu_shares, pinned_process_pool
from tournaments.run.session import RunOptions, run_session
from tournaments.store.results_db import ResultStore
from tests.tournaments.db_support import unplayed_copy
from tests.referee.fault_bots.support import expected_limits_holder
from tests.tournaments.fakes import TEST_SECRET

ROOT = Path(__file__).resolve().parents[2]
MISBEHAVE = ROOT / "tests" / "referee" / "fault_bots" / "misbehave.py"
# Generous move time: a timeout on a busy machine would make results differ between runs.
TIMES = TimeLimits(startup=10.0, move=5.0)
THEGAME_BOTS = [ROOT / "bots" / "thegame_random.py", ROOT / "bots" / "thegame_heuristic.py"]
needs_thegame_bots = pytest.mark.skipif(
    not all(path.is_file() for path in THEGAME_BOTS),
    reason="bots/thegame_random.py and bots/thegame_heuristic.py are not written yet")


def python_bot(path: Path, *args: str) -> str:
    return shlex.join(["python", str(path), *args])


RANDOM = BotEntry("random", python_bot(ROOT / "bots" / "rage_random.py"))
HEURISTIC = BotEntry("heuristic", python_bot(ROOT / "bots" / "rage_heuristic.py"))
FIRST = BotEntry("first", "stdio:" + shlex.quote(str(ROOT / "bots" / "rage_first.sh")))


def rage_spec(*bots: BotEntry, table_size: int | None = None, deals: int = 1,
              fresh_bots: bool = False) -> TournamentSpec:
    """The sample bots (or `bots`) at tables of 3 unless told."""
    return TournamentSpec.create(RAGE, bots or (RANDOM, HEURISTIC, FIRST),
                                 size=table_size, deals=deals, fresh_bots=fresh_bots,
                                 time_limits=TIMES)


pytestmark = pytest.mark.usefixtures("no_bot_left")


def context_for(spec: TournamentSpec, tmp_path: Path, persistent: bool = True) -> PlayContext:
    """Persistent bots by default: most tests here are of a pool that reuses its bots."""
    return play_context(spec, tmp_path / "results.sqlite", persistent_bots=persistent)


def fixture_of(spec: TournamentSpec, seats: tuple[int, ...]) -> Fixture:
    return next(f for f in fixtures_for(spec, TEST_SECRET) if f.seats == seats)


def places_from(scores: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 + sum(other > score for other in scores) for score in scores)


def test_seat_keys_number_the_copies_of_a_bot() -> None:
    assert seat_keys((0, 0, 1, 2, 0)) == [(0, 0), (0, 1), (1, 0), (2, 0), (0, 2)]


def test_log_names_are_safe_file_names() -> None:
    assert log_name("rage/d01/t02/r3") == "rage_d01_t02_r3.jsonl.gz"
    assert log_name("thegame/d7/team/t1") == "thegame_d7_team_t1.jsonl.gz"


def test_a_rage_fixture_gives_a_record_matching_its_game_log(tmp_path: Path) -> None:
    spec = rage_spec(table_size=4)  # 3 bots at 4 seats: one bot sits twice
    context = context_for(spec, tmp_path)
    fixture = fixture_of(spec, (0, 0, 1, 2))
    record = play_fixture(fixture, context)

    assert record.fixture_id == fixture.fixture_id and record.seed == fixture.seed
    assert record.game == "rage"
    assert record.bots == ("random", "random", "heuristic", "first")
    assert record.faults == ()
    assert record.places == places_from(record.scores)  # ruling R9: equal totals share
    assert record.log_path == f"results-logs/{log_name(fixture.fixture_id)}"
    log = read_log(tmp_path / record.log_path)
    assert (log[0]["type"], log[0]["seed"]) == ("game", fixture.seed)
    assert [p["name"] for p in log[0]["players"]] == list(record.bots)
    # Which sandbox and limits held each bot: here sandboxed (auto), in a cgroup if any.
    assert {(p["sandbox"], p["limits"]) for p in log[0]["players"]} == {
        (sandbox_problem() is None, expected_limits_holder())}
    assert log[-1]["type"] == "result"
    assert (tuple(log[-1]["totals"]), tuple(log[-1]["places"])) == (record.scores,
                                                                     record.places)
    assert stderr_path(context, "random").is_file()  # bots' stderr goes beside the logs


def test_reused_bots_play_every_rotation_without_restarting(tmp_path: Path) -> None:
    spec = rage_spec(table_size=4)
    context = context_for(spec, tmp_path)
    table = [f for f in fixtures_for(spec, TEST_SECRET)
             if f.fixture_id.startswith("rage/d01/t01/")]
    records = [play_fixture(fixture, context) for fixture in table]
    assert len(records) == 4 and all(not record.faults for record in records)
    assert worker_pool(context).started == 4  # AABC: one process per seat of the table
    assert len(live_processes()) == 4


def lru_starts(tables: list[list[SeatKey]], limit: int) -> int:
    """The starts the design promises: a seat's (bot, copy) starts unless it is among the
    `limit` most recently used that are not seated elsewhere at its table."""
    idle: list[SeatKey] = []  # least recently used first
    starts = 0
    for keys in tables:
        starts += sum(key not in idle for key in keys)
        idle = [key for key in idle if key not in keys] + list(keys)
        idle = idle[-limit:]
    return starts


def test_a_worker_holds_at_most_two_tables_of_idle_bots_among_twelve(tmp_path: Path) -> None:
    """12 bots at tables of 4: between games the worker keeps at most 8 processes (the
    least recently used go), so at most 12 while a table plays, whatever the schedule."""
    bots = [BotEntry(f"random{i}", RANDOM.command) for i in range(12)]
    spec = rage_spec(*bots, table_size=4)
    context = context_for(spec, tmp_path)
    fixtures = fixtures_for(spec, TEST_SECRET)[:32]  # eight tables, four rotations each
    assert len({bot for f in fixtures for bot in f.seats}) > 8  # else nothing to bound
    for fixture in fixtures:
        record = play_fixture(fixture, context)
        assert record.faults == ()
        assert len(live_processes()) <= IDLE_TABLES * 4
    tables = [seat_keys(f.seats) for f in fixtures]
    assert worker_pool(context).started == lru_starts(tables, IDLE_TABLES * 4)


def test_seat_copies_of_three_bots_at_tables_of_four_restart_nothing(tmp_path: Path) -> None:
    """AABC, ABBC, ABCC: six (bot, copy) processes, all kept between games, even with the
    tables interleaved (as a worker gets them when several share the schedule)."""
    spec = rage_spec(table_size=4)
    context = context_for(spec, tmp_path)
    deal = fixtures_for(spec, TEST_SECRET)[:12]  # three tables, four rotations each
    fixtures = [fixture for rotation in range(4) for fixture in deal[rotation::4]]
    assert len({tuple(sorted(seat_keys(f.seats))) for f in fixtures[:3]}) == 3
    for fixture in fixtures:
        assert play_fixture(fixture, context).faults == ()
    assert worker_pool(context).started == 6


def test_fresh_bots_are_started_and_stopped_for_every_game(tmp_path: Path) -> None:
    spec = rage_spec(fresh_bots=True)
    context = context_for(spec, tmp_path)
    for fixture in fixtures_for(spec, TEST_SECRET):
        play_fixture(fixture, context)
        assert live_processes() == []
    assert worker_pool(context).started == 3 * len(fixtures_for(spec, TEST_SECRET))


def test_a_crashed_bot_is_charged_placed_last_and_replaced(tmp_path: Path) -> None:
    """Fault policy (docs/rules.md, Faults): the crash is recorded, the seat places last,
    the game goes on; the pool then starts a new process for that bot instead of reusing
    the dead one."""
    crasher = BotEntry("crasher", python_bot(MISBEHAVE, "exit", "20"))
    spec = rage_spec(RANDOM, HEURISTIC, crasher)
    context = context_for(spec, tmp_path)
    first, second = fixtures_for(spec, TEST_SECRET)[:2]
    record = play_fixture(first, context)
    seat = record.bots.index("crasher")
    assert [(f.seat, f.bot, f.kind) for f in record.faults] == [(seat, "crasher",
                                                                 FaultKind.CRASH)]
    assert record.places[seat] == 3
    assert worker_pool(context).started == 3
    again = play_fixture(second, context)
    assert [f.kind for f in again.faults] == [FaultKind.CRASH]
    assert worker_pool(context).started == 4  # only the crashed bot was started anew


def test_a_bot_that_never_says_hello_is_charged_a_startup_fault(tmp_path: Path) -> None:
    mute = BotEntry("mute", python_bot(MISBEHAVE, "nohello"))
    spec = TournamentSpec.create(RAGE, (RANDOM, FIRST, mute),
                                 # 2 s: the other bots boot in time, under load too
                                 time_limits=TimeLimits(startup=2.0, move=5.0))
    record = play_fixture(fixtures_for(spec, TEST_SECRET)[0], context_for(spec, tmp_path))
    seat = record.bots.index("mute")
    assert [(f.seat, f.kind) for f in record.faults] == [(seat, FaultKind.STARTUP)]
    assert record.faults[0].detail.startswith("no HELLO within")
    assert record.places[seat] == 3


def test_a_different_tournament_closes_the_previous_pool(tmp_path: Path) -> None:
    first = context_for(rage_spec(), tmp_path)
    play_fixture(fixtures_for(first.spec, TEST_SECRET)[0], first)
    assert len(live_processes()) == 3
    second = context_for(rage_spec(deals=2), tmp_path)
    play_fixture(fixtures_for(second.spec, TEST_SECRET)[0], second)
    assert len(live_processes()) == 3  # the first pool's bots are gone
    assert worker_pool(second).started == 3


def test_cpu_shares_give_each_worker_its_own_cpus() -> None:
    assert cpu_shares([0, 1], 2) == [frozenset({0}), frozenset({1})]
    assert cpu_shares([0, 1], 3) == [frozenset({0}), frozenset({1}), frozenset({0})]
    assert cpu_shares([0, 1, 2, 3, 4], 2) == [frozenset({0, 2, 4}), frozenset({1, 3})]
    assert cpu_shares([4, 6], 1) == [frozenset({4, 6})]


def _affinity() -> frozenset[int]:
    return frozenset(os.sched_getaffinity(0))


def test_the_local_pool_pins_each_worker_to_its_share() -> None:
    shares = cpu_shares(sorted(os.sched_getaffinity(0)), 2)
    with pinned_process_pool(2) as pool:
        seen = {pool.submit(_affinity).result() for _ in range(4)}
    assert seen and seen <= set(shares)


def session_records(spec: TournamentSpec, db: Path, jobs: int,
                    sandbox: SandboxMode = SandboxMode.AUTO) -> tuple[str, list[GameRecord]]:
    """Run with persistent bots, as most tests here are of reuse."""
    options = RunOptions(db, jobs, progress=False, sandbox=SandboxSettings(sandbox),
                         persistent_bots=True)
    tables = run_session(spec, options, io.StringIO())
    with ResultStore.open_existing(db) as store:
        return tables, store.records()


def without_logs(records: list[GameRecord]) -> list[dict[str, object]]:
    return [{**record.to_json(), "log_path": None} for record in records]


def test_reused_and_fresh_bots_give_identical_tables(tmp_path: Path) -> None:
    spec = rage_spec(RANDOM, HEURISTIC)  # tables of 3: each bot sits twice at one table
    reused = session_records(spec, tmp_path / "reused.sqlite", jobs=2)
    # fresh_bots is no part of the definition: the same tournament, so the same secret
    unplayed_copy(tmp_path / "reused.sqlite", tmp_path / "fresh.sqlite")
    fresh = session_records(rage_spec(RANDOM, HEURISTIC, fresh_bots=True),
                            tmp_path / "fresh.sqlite", jobs=2)
    assert len(reused[1]) == len(fixtures_for(spec, TEST_SECRET)) == 6
    assert reused[0] == fresh[0]
    assert without_logs(reused[1]) == without_logs(fresh[1])


def test_a_faulting_bot_does_not_stop_the_tournament(tmp_path: Path) -> None:
    crasher = BotEntry("crasher", python_bot(MISBEHAVE, "exit", "20"))
    spec = rage_spec(RANDOM, HEURISTIC, crasher)
    tables, records = session_records(spec, tmp_path / "faults.sqlite", jobs=1)
    assert len(records) == len(fixtures_for(spec, TEST_SECRET)) == 3
    for record in records:
        assert [(f.bot, f.kind) for f in record.faults] == [("crasher", FaultKind.CRASH)]
        assert record.places[record.bots.index("crasher")] == 3
    assert "crash 3" in tables


def test_worker_exit_says_bye_to_its_bots(tmp_path: Path) -> None:
    """Bots kept for reuse get BYE when their worker process ends, not just a kill."""
    script = tmp_path / "byebot.sh"
    script.write_text('echo "HELLO 2 $REFEREE_TOKEN byebot 1.0"\n'
                      'while IFS= read -r line; do set -- $line\n'
                      '  case "$1" in "BID?"|"PLAY?") echo "$2" ;;\n'
                      '    BYE) echo bye >> "$0.$$"; exit 0 ;; esac\ndone\n')
    bots = tuple(BotEntry(name, f"stdio:sh {shlex.quote(str(script))}") for name in "ab")
    spec = TournamentSpec.create(RAGE, bots, time_limits=TIMES)  # tables aab, abb
    # Unsandboxed: the bot writes its file beside itself, where a sandbox cannot.
    session_records(spec, tmp_path / "bye.sqlite", jobs=1, sandbox=SandboxMode.OFF)
    said_bye = list(tmp_path.glob("byebot.sh.*"))
    assert len(said_bye) == 4  # one process per (bot, copy) key: a, a', b, b' 


@needs_thegame_bots
def test_thegame_solo_and_team_records(tmp_path: Path) -> None:
    bots = (BotEntry("random", python_bot(THEGAME_BOTS[0])),
            BotEntry("heuristic", python_bot(THEGAME_BOTS[1])))
    spec = TournamentSpec.create(THEGAME, bots, size=2, time_limits=TIMES)
    context = context_for(spec, tmp_path)
    records = [play_fixture(fixture, context) for fixture in fixtures_for(spec, TEST_SECRET)]
    assert [record.bots for record in records] == [("random",), ("heuristic",),
                                                   ("random", "heuristic")]
    for record in records:
        assert record.game == "thegame" and record.faults == ()
        assert record.cards_left is not None and record.cards_played is not None
        assert record.scores == (record.cards_left,) * len(record.bots)
        assert record.places == (1,) * len(record.bots)
        assert record.won == (record.cards_left == 0)
        assert sum(record.cards_played) + record.cards_left == 98  # cards 2..99
        assert record.hints_given is not None and len(record.hints_given) == len(record.bots)
        assert record.end_reason
        header = read_log(tmp_path / str(record.log_path))[0]
        assert header["settings"]["commands"] is not None  # the default mapping


@needs_thegame_bots
def test_thegame_without_commands(tmp_path: Path) -> None:
    bots = (BotEntry("heuristic", python_bot(THEGAME_BOTS[1])),)
    spec = TournamentSpec.create(THEGAME, bots, options={"no_commands": True}, time_limits=TIMES)
    record = play_fixture(fixtures_for(spec, TEST_SECRET)[0], context_for(spec, tmp_path))
    assert record.faults == ()
    assert read_log(tmp_path / str(record.log_path))[0]["settings"]["commands"] is None
