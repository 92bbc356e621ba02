"""A tournament of chosen tables (TournamentSpec.tables): what an arena's round plays
(issue 31). Each chosen table plays the deal in every seat rotation, as a round robin's
tables do; the tables are part of what defines the results."""

from __future__ import annotations

import pytest

from referee.games.thegame.definition import THEGAME
from tests.tournaments.fakes import TEST_SECRET, make_spec
from tournaments.schedule.fixtures import fixtures_for
from tournaments.spec.definition import SpecError, spec_from_json


def test_chosen_tables_play_in_every_rotation_and_nothing_else() -> None:
    spec = make_spec(n_bots=6, size=4, tables=((0, 1, 2, 3), (2, 3, 4, 5)))
    fixtures = fixtures_for(spec, TEST_SECRET)
    assert spec.games == len(fixtures) == 8
    by_table: dict[str, list[tuple[int, ...]]] = {}
    for fixture in fixtures:
        by_table.setdefault(fixture.fixture_id.rsplit("/", 1)[0], []).append(fixture.seats)
    assert sorted(by_table.values())[0][0] == (0, 1, 2, 3)
    for seats in by_table.values():
        assert len(seats) == 4 and {s[0] for s in seats} == set(seats[0])  # each seat once
    assert len({fixture.seed for fixture in fixtures}) == 1  # one deal for all tables


def test_the_tables_define_the_results_and_survive_storing() -> None:
    plain = make_spec(n_bots=4, size=4)
    chosen = make_spec(n_bots=4, size=4, tables=((0, 1, 2, 3),))
    assert "tables" not in plain.definition()  # round robins keep their fingerprint
    assert chosen.fingerprint() != plain.fingerprint()
    assert spec_from_json(chosen.to_json()) == chosen


@pytest.mark.parametrize("tables, why", [
    (((0, 1, 2),), "is not 4 different bots"),
    (((0, 1, 2, 2),), "is not 4 different bots"),
    (((0, 1, 2, 9),), "is not 4 different bots"),
    (((0, 1, 2, 3),), "every bot must sit"),
    ((), "every bot must sit"),
])
def test_bad_tables_are_refused(tables: tuple[tuple[int, ...], ...], why: str) -> None:
    with pytest.raises(SpecError, match=why):
        make_spec(n_bots=5, size=4, tables=tables)


def test_chosen_tables_are_for_competitive_games_only() -> None:
    with pytest.raises(SpecError, match="competitive round robin"):
        make_spec(THEGAME, n_bots=2, size=2, tables=((0, 1),))
