"""The runner: every fixture stored once, resume, referee bugs surfaced, Ctrl-C safe."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.store.records import GameRecord
from tournaments.output.json_doc import tables_json
from tournaments.output.tables import build_tables
from tournaments.run.runner import Interrupted, PlayFailed, run_tournament
from tournaments.schedule.fixtures import Fixture, fixtures_for
from tournaments.store.results_db import ResultStore
from tests.referee.test_orphans import exited_orphan, our_child_state
from tests.tournaments.fakes import TEST_SECRET, FakeContext, fake_play, make_spec

SPEC = make_spec(n_bots=4, deals=3, seed=8)
FIXTURES = fixtures_for(SPEC, TEST_SECRET)
CONTEXT = FakeContext(SPEC.bot_names)


def threads(jobs: int) -> Executor:
    return ThreadPoolExecutor(max_workers=jobs)


@dataclass
class Played:
    """A thread-only context that notes every fixture played."""

    inner: FakeContext
    ids: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def noting_play(fixture: Fixture, context: Played) -> GameRecord:
    with context.lock:
        context.ids.append(fixture.fixture_id)
    return fake_play(fixture, context.inner)


@dataclass
class Recorder:
    calls: list[tuple[str, object]] = field(default_factory=list)

    def start(self, total: int, done: int, faults: int) -> None:
        self.calls.append(("start", (total, done, faults)))

    def advance(self, record: GameRecord) -> None:
        self.calls.append(("advance", record.fixture_id))

    def finish(self) -> None:
        self.calls.append(("finish", None))


def test_every_fixture_is_stored_once_in_fixture_order(tmp_path: Path) -> None:
    recorder = Recorder()
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        run_tournament(SPEC, FIXTURES, store, fake_play, CONTEXT, jobs=3,
                       executor_factory=threads, progress=recorder)
        assert store.records() == [fake_play(fixture, CONTEXT) for fixture in FIXTURES]
    assert recorder.calls[0] == ("start", (len(FIXTURES), 0, 0))
    assert sorted(str(call[1]) for call in recorder.calls if call[0] == "advance") == sorted(
        f.fixture_id for f in FIXTURES)
    assert recorder.calls[-1] == ("finish", None)


def test_games_are_played_in_the_order_given_and_stored_in_fixture_order(
        tmp_path: Path) -> None:
    """A session gives play order (tournaments/schedule/play_order.py); the store keeps ids."""
    given = list(reversed(FIXTURES))
    played = Played(CONTEXT)
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        run_tournament(SPEC, given, store, noting_play, played, jobs=1,
                       executor_factory=threads)
        assert played.ids == [fixture.fixture_id for fixture in given]
        assert [record.fixture_id for record in store.records()] == [
            fixture.fixture_id for fixture in FIXTURES]


def test_default_process_pool_runs_module_level_play(tmp_path: Path) -> None:
    spec = make_spec(THEGAME, n_bots=3, deals=2)
    context = FakeContext(spec.bot_names)
    with ResultStore(tmp_path / "g.sqlite", spec) as store:
        run_tournament(spec, fixtures_for(spec, TEST_SECRET), store, fake_play, context, jobs=2)
        assert store.records() == [fake_play(f, context)
                                   for f in fixtures_for(spec, TEST_SECRET)]


def test_resume_plays_only_what_is_missing(tmp_path: Path) -> None:
    played = Played(CONTEXT)
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        for fixture in FIXTURES[::3]:
            store.add(fake_play(fixture, CONTEXT))
        recorder = Recorder()
        run_tournament(SPEC, FIXTURES, store, noting_play, played, jobs=2,
                       executor_factory=threads, progress=recorder)
        assert sorted(played.ids) == sorted(f.fixture_id for f in FIXTURES[1::3] + FIXTURES[2::3])
        assert len(store.records()) == len(FIXTURES)
        stored_faults = sum(len(fake_play(f, CONTEXT).faults) for f in FIXTURES[::3])
        assert recorder.calls[0] == ("start", (len(FIXTURES), len(FIXTURES[::3]),
                                               stored_faults))
        played.ids.clear()
        run_tournament(SPEC, FIXTURES, store, noting_play, played, jobs=2,
                       executor_factory=threads)
        assert played.ids == []


def test_play_exception_is_a_referee_bug_not_a_fault(tmp_path: Path) -> None:
    bad = FIXTURES[4].fixture_id
    context = FakeContext(SPEC.bot_names, fail_on=bad)
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        with pytest.raises(PlayFailed) as caught:
            run_tournament(SPEC, FIXTURES, store, fake_play, context, jobs=2,
                           executor_factory=threads)
        assert bad in str(caught.value) and "ValueError: engine exploded" in str(caught.value)
        assert isinstance(caught.value.__cause__, ValueError)
        done = store.done()
        assert bad not in done and {f.fixture_id for f in FIXTURES[:4]} <= done
        assert all(not record.faults or record.faults[0].detail == "too slow"
                   for record in store.records())


def wrong_record_play(fixture: Fixture, context: FakeContext) -> GameRecord:
    return fake_play(FIXTURES[0], context)


def test_a_record_for_another_fixture_is_refused(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store, \
            pytest.raises(PlayFailed, match="returned"):
        run_tournament(SPEC, FIXTURES[1:2], store, wrong_record_play, CONTEXT, jobs=1,
                       executor_factory=threads)


def test_interrupt_leaves_the_store_consistent_and_resumable(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    stop_at = FIXTURES[6].fixture_id
    with ResultStore(db, SPEC) as store, pytest.raises(Interrupted) as stopped:
        run_tournament(SPEC, FIXTURES, store, fake_play,
                       FakeContext(SPEC.bot_names, interrupt_on=stop_at), jobs=1,
                       executor_factory=threads)
    assert f"of {len(FIXTURES)} games; run the same command again" in str(stopped.value)
    with ResultStore(db, SPEC) as store:
        partial = store.done()
        assert stop_at not in partial and 0 < len(partial) < len(FIXTURES)
        run_tournament(SPEC, FIXTURES, store, fake_play, CONTEXT, jobs=2,
                       executor_factory=threads)
        records = store.records()
    assert [r.fixture_id for r in records] == [f.fixture_id for f in FIXTURES]
    assert tables_json(build_tables(RAGE, records, SPEC.bot_names)) == \
        tables_json(build_tables(RAGE, [fake_play(f, CONTEXT) for f in FIXTURES],
                                 SPEC.bot_names))


def slow_play(fixture: Fixture, context: FakeContext) -> GameRecord:
    time.sleep(0.3)  # long enough that games are still in flight when the interrupt comes
    return fake_play(fixture, context)


class InterruptAfterFirst(Recorder):
    def advance(self, record: GameRecord) -> None:
        raise KeyboardInterrupt("SIGTERM")


def test_an_interrupt_leaves_no_process_pool_thread_for_the_interpreter_exit(
        tmp_path: Path) -> None:
    """CI (3.11.7) printed "OSError: Bad file descriptor" after "interrupted": a process
    pool's manager thread still running at exit races the pool's atexit hook, which writes to
    a pipe the thread closes. So an interrupt joins that thread before it is reported."""
    spec = make_spec(n_bots=4, deals=3, seed=8)
    with ResultStore(tmp_path / "i.sqlite", spec) as store, pytest.raises(Interrupted):
        run_tournament(spec, fixtures_for(spec, TEST_SECRET), store, slow_play,
                       FakeContext(spec.bot_names), jobs=2, progress=InterruptAfterFirst())
    left = [thread.name for thread in threading.enumerate()
            if type(thread).__name__ == "_ExecutorManagerThread"]
    assert left == [], left


def test_refuses_a_store_of_another_tournament(tmp_path: Path) -> None:
    other = make_spec(n_bots=4, deals=2, seed=8)
    with ResultStore(tmp_path / "r.sqlite", other) as store, \
            pytest.raises(ConfigError, match="different tournament"):
        run_tournament(SPEC, FIXTURES, store, fake_play, CONTEXT, jobs=1,
                       executor_factory=threads)


def test_an_orphan_that_came_to_the_referee_is_reaped_while_its_tournament_runs(
        tmp_path: Path) -> None:
    # As PID 1 of a container, the referee gets the orphans of its workers' processes.
    orphan = exited_orphan()
    with ResultStore(tmp_path / "r.sqlite", SPEC) as store:
        run_tournament(SPEC, FIXTURES[:2], store, fake_play, CONTEXT, jobs=1,
                       executor_factory=threads)
    assert our_child_state(orphan) is None
