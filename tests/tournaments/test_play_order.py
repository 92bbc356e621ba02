"""Play order (tournaments/schedule/play_order.py): windows of deals, rotation-major."""

from __future__ import annotations

import heapq
import io
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.run import session
from tournaments.run.idle_bots import IdleBots
from tournaments.run.fixture_play import seat_keys
from tournaments.schedule.play_order import WINDOW_DEALS, deal_windows, play_order, window_deals
from tournaments.schedule.fixtures import (
    Fixture, competitive_fixtures, cooperative_fixtures, fixtures_for, gauntlet_fixtures,
)
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.store.results_db import ResultStore
from referee.matches.game import Contest
from referee.games.rage.definition import RAGE
from tests.tournaments.fakes import TEST_SECRET


def test_windows_hold_at_least_the_least_deals_in_nearly_equal_parts() -> None:
    assert deal_windows(list(range(1, 35)), 16) == [list(range(1, 18)), list(range(18, 35))]
    assert deal_windows([1, 2, 3], 16) == [[1, 2, 3]]  # fewer deals: one window of all
    sizes = [len(window) for window in deal_windows(list(range(1, 101)), 16)]
    assert sizes == [17, 17, 17, 17, 16, 16]
    assert deal_windows(list(range(1, 9)), 4) == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_each_place_on_every_deal_of_a_window_rotation_zero_first() -> None:
    """2 bots at tables of 3 (t01 aab, t02 abb), 4 deals in windows of 2."""
    fixtures = competitive_fixtures("rage", 2, 3, 4, 0, TEST_SECRET)
    order = [fixture.fixture_id for fixture in play_order(fixtures, least=2)]
    assert order[:12] == [f"rage/d0{deal}/t0{table}/r{rotation}" for rotation in range(3)
                          for table in (1, 2) for deal in (1, 2)]
    assert order[12:14] == ["rage/d03/t01/r0", "rage/d04/t01/r0"]  # the second window


def test_cooperative_places_each_on_every_deal() -> None:
    fixtures = cooperative_fixtures("thegame", 2, 2, 2, 0, TEST_SECRET)
    order = [fixture.fixture_id for fixture in play_order(fixtures)]
    assert order == ["thegame/d01/solo/b01", "thegame/d02/solo/b01",
                     "thegame/d01/solo/b02", "thegame/d02/solo/b02",
                     "thegame/d01/team/t01", "thegame/d02/team/t01"]


shapes = st.tuples(st.integers(2, 6), st.integers(3, 5), st.integers(1, 40),
                   st.integers(1, 8))


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_play_order_keeps_windows_whole_rotations_first_and_deals_rising(
        shape: tuple[int, int, int, int]) -> None:
    n_bots, size, deals, least = shape
    fixtures = competitive_fixtures("rage", n_bots, size, deals, 0, TEST_SECRET)
    order = play_order(fixtures, least)
    assert sorted(order, key=fixtures.index) == fixtures  # the same fixtures, ids unchanged
    window_of = {deal: number for number, window in enumerate(deal_windows(
        list(range(1, deals + 1)), least)) for deal in window}
    windows = [window_of[fixture.deal] for fixture in order]
    assert windows == sorted(windows)  # every prefix: whole early windows, then part of one
    for window in set(windows):
        games = [fixture for fixture in order if window_of[fixture.deal] == window]
        rotations = [fixture.rotation for fixture in games]
        assert rotations == sorted(rotations)  # each rotation of every table, then the next
        places: dict[tuple[tuple[int, ...], int], list[int]] = {}
        for fixture in games:  # a place's deals in a window: rising, each once
            places.setdefault((fixture.seats, fixture.rotation), []).append(fixture.deal)
        assert all(deals_of == sorted(set(deals_of)) for deals_of in places.values())


def test_gauntlet_fixtures_are_ordered_too() -> None:
    fixtures = gauntlet_fixtures("rage", Contest.COMPETITIVE, (0, 1), (2, 3, 4), 3, 3, 0,
                                 TEST_SECRET)
    order = play_order(fixtures)
    assert sorted(order, key=fixtures.index) == fixtures
    assert [fixture.fixture_id for fixture in order[:4]] == [
        "rage/d01/c01/t01/r0", "rage/d02/c01/t01/r0", "rage/d03/c01/t01/r0",
        "rage/d01/c01/t02/r0"]


def starts_of_one_worker(fixtures: list[Fixture]) -> int:
    """Bot processes one worker starts for `fixtures` in this order when no process may
    play a deal twice (the pool's rules, tournaments/run/idle_bots.py)."""
    idle: IdleBots[int] = IdleBots(once_per_deal=True)
    starts = 0
    for fixture in fixtures:
        keys = seat_keys(fixture.seats)
        for key in keys:
            bot, spent = idle.seat(key, fixture.deal)
            if bot is None:
                starts += 1
                idle.started(key, fixture.deal)
        for key in keys:
            idle.keep(key, starts)
        idle.trim(len(keys))
    return starts


def test_play_order_lets_a_worker_reuse_its_bots_across_a_window() -> None:
    """3 bots at tables of 4 (the bench's tournament) on one window of 16 deals: deal by
    deal a worker starts nearly a bot a seat; in play order about one per seat and 16
    deals (a process plays at most one game of each deal of the window)."""
    fixtures = competitive_fixtures("rage", 3, 4, WINDOW_DEALS, 0, TEST_SECRET)
    seats = 4 * len(fixtures)
    assert starts_of_one_worker(fixtures) > seats / 2
    assert starts_of_one_worker(play_order(fixtures)) <= 1.5 * seats / WINDOW_DEALS


def test_windows_grow_with_the_workers() -> None:
    assert window_deals(1) == WINDOW_DEALS
    assert window_deals(2) == 2 * WINDOW_DEALS
    assert window_deals(0) == WINDOW_DEALS  # as one


def starts_of_workers(fixtures: list[Fixture], workers: int, seed: int) -> int:
    """Bot processes started when `workers` workers, each with its own pool (the pool's
    rules, no deal twice), take the games in this order as each comes free, a game
    lasting a random 0.7 to 1.3 units and each start 2 more (about a sample bot's)."""
    rng = random.Random(seed)
    pools: list[IdleBots[int]] = [IdleBots(once_per_deal=True) for _ in range(workers)]
    free = [(0.0, worker) for worker in range(workers)]
    starts = 0
    for fixture in fixtures:
        now, worker = heapq.heappop(free)
        idle, keys, started = pools[worker], seat_keys(fixture.seats), 0
        for key in keys:
            if idle.seat(key, fixture.deal)[0] is None:
                started += 1
                idle.started(key, fixture.deal)
        for key in keys:
            idle.keep(key, 0)
        idle.trim(len(keys))
        starts += started
        heapq.heappush(free, (now + rng.uniform(0.7, 1.3) + 2 * started, worker))
    return starts


def test_windows_per_worker_let_two_workers_start_fewer_bots() -> None:
    """The bench's tournament (3 bots at tables of 4, 34 deals) on 2 workers: each takes
    about half of a place's deals, at random, so its processes soon meet one again at the
    next place. Windows of 16 deals per worker (one of 34) start far fewer than of 16 in
    all (two of 17): a model gives 0.058 starts a seat against 0.10."""
    fixtures = competitive_fixtures("rage", 3, 4, 34, 0, TEST_SECRET)
    seats = 4 * len(fixtures)
    per_worker = [starts_of_workers(play_order(fixtures, window_deals(2)), 2, seed)
                  for seed in range(3)]
    in_all = [starts_of_workers(play_order(fixtures, WINDOW_DEALS), 2, seed)
              for seed in range(3)]
    assert sum(per_worker) < 0.75 * sum(in_all), (per_worker, in_all)
    assert max(per_worker) < 0.07 * seats


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_session_sizes_its_windows_by_its_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    """run_session hands the runner play order in windows of window_deals(jobs) (no game
    is played here: the runner is replaced)."""
    given: list[list[str]] = []

    def runner(spec: TournamentSpec, order: list[Fixture], *args: Any) -> None:
        given.append([fixture.fixture_id for fixture in order])

    monkeypatch.setattr(session, "run_tournament", runner)
    bots = tuple(BotEntry(name, "stdio:bots/rage_first.sh") for name in ("a", "b", "c"))
    spec = TournamentSpec.create(RAGE, bots, size=3, deals=40)
    db = tmp_path / "r.sqlite"
    session.run_session(spec, session.RunOptions(db, jobs=jobs, progress=False),
                        io.StringIO())
    with ResultStore.open_existing(db) as store:
        fixtures = fixtures_for(spec, store.deal_secret)
    assert given == [[f.fixture_id for f in play_order(fixtures, WINDOW_DEALS * jobs)]]
    assert given != [[f.fixture_id for f in play_order(fixtures, WINDOW_DEALS * (4 - jobs))]]
