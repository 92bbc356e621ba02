"""The arena's matchmaking (issue 31, tournaments/arena/matchmaking.py): a pure function
of the ratings, checked on ladders built by hand."""

from __future__ import annotations

import random

import pytest

from tournaments.arena.matchmaking import Entry, conservative, ladder, plan_round


def settled_ladder(n: int, gap: float = 5.0, sigma: float = 1.0) -> list[Entry]:
    """n versions far apart, each with many tables behind it."""
    return [Entry(f"v{i:02d}", (100 - gap * i, sigma), 20) for i in range(n)]


def test_every_active_version_is_seated_each_round_at_tables_of_distinct_versions() -> None:
    entries = settled_ladder(11)
    for seed in range(20):
        tables = plan_round(entries, 4, 3, random.Random(seed))
        assert all(len(table) == 4 == len(set(table)) for table in tables)
        assert {label for table in tables for label in table} == {e.label for e in entries}


def test_the_least_certain_pair_gets_the_first_table_with_its_neighbours() -> None:
    entries = settled_ladder(10)
    # v05 and v06 are all but equal, every other pair is far apart
    entries[6] = Entry("v06", (entries[5].rating[0] - 0.1, 1.0), 20)
    first = plan_round(entries, 4, 3, random.Random(0))[0]
    assert {"v05", "v06"} <= set(first)
    assert set(first) in ({"v04", "v05", "v06", "v07"}, {"v03", "v04", "v05", "v06"},
                          {"v05", "v06", "v07", "v08"})


def test_tables_join_neighbours_on_the_ladder() -> None:
    entries = settled_ladder(12)
    place = {entry.label: index for index, entry in enumerate(ladder(entries))}
    for table in plan_round(entries, 4, 3, random.Random(1)):
        spots = sorted(place[label] for label in table)
        assert spots[-1] - spots[0] == 3, table  # four consecutive places


def test_a_new_version_plays_placement_tables_across_the_whole_ladder() -> None:
    entries = settled_ladder(12) + [Entry("new", (25.0, 25 / 3), 0)]
    order = [entry.label for entry in ladder(entries)]
    assert order[-1] == "new"  # no games yet: mu - 3 sigma is 0, below everyone
    seen: set[int] = set()
    for seed in range(30):
        tables = plan_round(entries, 4, 3, random.Random(seed))
        placement = tables[0]
        assert placement[0] == "new"
        bands = sorted(order.index(label) * 3 // 12 for label in placement[1:])
        assert bands == [0, 1, 2], placement  # one opponent from each third
        seen.update(order.index(label) for label in placement[1:])
    assert len(seen) >= 9  # drawn at random within each band, not always the same
    old = Entry("new", (25.0, 25 / 3), 3)  # placement over: no placement table
    assert plan_round(settled_ladder(12) + [old], 4, 3, random.Random(0))[0][0] != "new"


def test_min_tables_repeats_passes_for_a_small_arena() -> None:
    entries = settled_ladder(5)
    assert len(plan_round(entries, 4, 0, random.Random(0))) < 4
    tables = plan_round(entries, 4, 0, random.Random(0), min_tables=4)
    assert len(tables) >= 4 and all(len(set(t)) == 4 for t in tables)


def test_too_few_versions_for_a_table_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot fill a table of 4"):
        plan_round(settled_ladder(3), 4, 3, random.Random(0))


def test_the_ladder_ranks_by_the_conservative_score() -> None:
    sure = Entry("sure", (30.0, 1.0), 50)  # 27
    lucky = Entry("lucky", (35.0, 4.0), 2)  # 23: higher mu, less known
    assert [e.label for e in ladder([lucky, sure])] == ["sure", "lucky"]
    assert conservative(sure.rating) == 27.0
