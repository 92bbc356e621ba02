"""The scheduler: who meets whom, in which seats, on which deals."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.schedule.fixtures import (
    Fixture, FixtureKind, deal_seed, fixture_ids, fixtures_for, groups, competitive_fixtures,
    cooperative_fixtures,
)
from tournaments.schedule.secret import new_secret
from tests.tournaments.fakes import TEST_SECRET, make_spec

rage_shapes = st.tuples(st.integers(2, 7), st.integers(3, 6), st.integers(1, 3),
                        st.integers(-10**6, 10**6))


@settings(max_examples=60, deadline=None)
@given(rage_shapes)
def test_rage_every_bot_sits_in_every_seat_equally_often(shape: tuple[int, int, int, int]
                                                         ) -> None:
    n_bots, size, deals, seed = shape
    counts = Counter((bot, seat) for fixture in competitive_fixtures("rage", n_bots, size, deals, seed, TEST_SECRET)
                     for seat, bot in enumerate(fixture.seats))
    assert set(counts) == {(bot, seat) for bot in range(n_bots) for seat in range(size)}
    assert len(set(counts.values())) == 1


@settings(max_examples=60, deadline=None)
@given(rage_shapes)
def test_rage_every_table_once_per_deal_and_rotation(shape: tuple[int, int, int, int]
                                                     ) -> None:
    n_bots, size, deals, seed = shape
    fixtures = competitive_fixtures("rage", n_bots, size, deals, seed, TEST_SECRET)
    expected = Counter(groups(n_bots, size))
    assert len(fixtures) == deals * size * len(expected)
    for deal in range(1, deals + 1):
        for rotation in range(size):
            met = Counter(tuple(sorted(f.seats)) for f in fixtures
                          if f.deal == deal and f.rotation == rotation)
            assert met == expected and set(met.values()) == {1}


@settings(max_examples=60, deadline=None)
@given(rage_shapes)
def test_rage_rotation_r_puts_table_s_plus_r_in_seat_s(shape: tuple[int, int, int, int]
                                                       ) -> None:
    n_bots, size, deals, seed = shape
    fixtures = competitive_fixtures("rage", n_bots, size, deals, seed, TEST_SECRET)
    by_table: dict[tuple[int, str], list[Fixture]] = {
        (f.deal, f.fixture_id.split("/")[2]): [] for f in fixtures}
    for fixture in fixtures:
        by_table[fixture.deal, fixture.fixture_id.split("/")[2]].append(fixture)
    for rotations in by_table.values():
        table = rotations[0].seats  # rotation 0 is the table itself
        assert [f.rotation for f in rotations] == list(range(size))
        for fixture in rotations:
            r = fixture.rotation
            assert fixture.seats == tuple(table[(s + r) % size] for s in range(size))


@settings(max_examples=60, deadline=None)
@given(rage_shapes)
def test_duplicate_deals_share_one_seed_per_deal(shape: tuple[int, int, int, int]) -> None:
    n_bots, size, deals, seed = shape
    fixtures = competitive_fixtures("rage", n_bots, size, deals, seed, TEST_SECRET)
    seeds = {deal: {f.seed for f in fixtures if f.deal == deal} for deal in range(1, deals + 1)}
    assert all(len(found) == 1 for found in seeds.values())
    assert len({found.pop() for found in seeds.values()}) == deals
    assert all(f.seed == deal_seed(TEST_SECRET, seed, f.deal) for f in fixtures)


@settings(max_examples=60, deadline=None)
@given(rage_shapes)
def test_fixture_ids_unique_stable_and_sorting_in_fixture_order(
        shape: tuple[int, int, int, int]) -> None:
    fixtures = competitive_fixtures("rage", *shape, TEST_SECRET)
    ids = [f.fixture_id for f in fixtures]
    assert len(set(ids)) == len(ids)
    assert competitive_fixtures("rage", *shape, TEST_SECRET) == fixtures
    assert sorted(ids) == ids


def test_fixture_id_format_is_human_readable() -> None:
    fixtures = competitive_fixtures("rage", 5, 4, 2, 1, TEST_SECRET)
    assert fixtures[0].fixture_id == "rage/d01/t01/r0"
    assert fixtures[-1].fixture_id == "rage/d02/t05/r3"
    assert fixtures[0].kind is FixtureKind.TABLE and fixtures[0].game == "rage"


def test_fewer_bots_than_seats_gives_every_multiset_with_each_bot() -> None:
    assert groups(3, 4) == [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]  # AABC, ABBC, ABCC
    assert groups(2, 3) == [(0, 0, 1), (0, 1, 1)]
    assert groups(4, 3) == list(combinations(range(4), 3))


def test_deal_seeds_depend_on_secret_seed_and_deal_only() -> None:
    five_at_four = competitive_fixtures("rage", 5, 4, 3, 99, TEST_SECRET)
    three_at_three = competitive_fixtures("rage", 3, 3, 3, 99, TEST_SECRET)
    teams = cooperative_fixtures("thegame", 4, 2, 3, 99, TEST_SECRET)
    for deal in (1, 2, 3):
        seeds = {f.seed for f in five_at_four + three_at_three + teams if f.deal == deal}
        assert seeds == {deal_seed(TEST_SECRET, 99, deal)}
    assert deal_seed(TEST_SECRET, 99, 1) != deal_seed(TEST_SECRET, 98, 1)
    # hmac, not hash(): the same in every process and Python version
    assert deal_seed(TEST_SECRET, 1, 1) == 7464294437120062528
    assert 0 <= deal_seed(TEST_SECRET, -5, 10**9) < 2**63


def test_the_public_seed_alone_determines_no_deal() -> None:
    """Another secret, other deals: the seed and deal number (public) are not enough."""
    other = new_secret()
    assert other != TEST_SECRET and len(other) == 32
    for deal in (1, 2, 3):
        assert deal_seed(other, 0, deal) != deal_seed(TEST_SECRET, 0, deal)
    mine = {f.seed for f in competitive_fixtures("rage", 4, 4, 3, 0, TEST_SECRET)}
    theirs = {f.seed for f in competitive_fixtures("rage", 4, 4, 3, 0, other)}
    assert mine.isdisjoint(theirs)


def test_fixture_ids_do_not_depend_on_the_secret() -> None:
    spec = make_spec(RAGE, n_bots=5, deals=2, seed=4)
    assert fixture_ids(spec) == [f.fixture_id for f in fixtures_for(spec, new_secret())]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 3), st.integers(0, 1000))
def test_thegame_solo_for_every_bot_and_every_team_on_the_same_deals(
        n_bots: int, team_size: int, deals: int, seed: int) -> None:
    fixtures = cooperative_fixtures("thegame", n_bots, team_size, deals, seed, TEST_SECRET)
    solos = [f for f in fixtures if f.kind is FixtureKind.SOLO]
    teams = [f for f in fixtures if f.kind is FixtureKind.TEAM]
    assert Counter((f.seats, f.deal) for f in solos) == Counter(
        ((bot,), deal) for bot in range(n_bots) for deal in range(1, deals + 1))
    expected_teams = groups(n_bots, team_size) if team_size >= 2 else []
    for deal in range(1, deals + 1):
        assert [f.seats for f in teams if f.deal == deal] == expected_teams
        assert {f.seed for f in fixtures if f.deal == deal} == {deal_seed(TEST_SECRET, seed, deal)}
    ids = [f.fixture_id for f in fixtures]
    assert len(set(ids)) == len(ids) and sorted(ids) == ids


def test_thegame_ids_and_multiset_teams() -> None:
    fixtures = cooperative_fixtures("thegame", 2, 3, 1, 0, TEST_SECRET)
    assert [(f.fixture_id, f.seats) for f in fixtures] == [
        ("thegame/d01/solo/b01", (0,)), ("thegame/d01/solo/b02", (1,)),
        ("thegame/d01/team/t01", (0, 0, 1)), ("thegame/d01/team/t02", (0, 1, 1))]
    assert all(f.game == "thegame" for f in fixtures)


def test_fixtures_for_uses_the_spec_sizes() -> None:
    rage = make_spec(RAGE, n_bots=5, deals=2, size=3, seed=4)
    assert fixtures_for(rage, TEST_SECRET) == competitive_fixtures("rage", 5, 3, 2, 4, TEST_SECRET)
    thegame = make_spec(THEGAME, n_bots=3, deals=2, size=2, seed=4)
    assert fixtures_for(thegame, TEST_SECRET) == cooperative_fixtures("thegame", 3, 2, 2, 4, TEST_SECRET)
