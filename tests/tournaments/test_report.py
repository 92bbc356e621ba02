"""Report tables from known records (tests/tournaments/output/ renders them)."""

from __future__ import annotations

import re

import pytest

from referee.errors import Fault
from protocols.faults import FaultKind
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.store.records import GameRecord
from tournaments.output.tables import FaultCounts, Interval, ResultTable, build_tables

BOTS = ("a", "b", "c", "idle")


def rage(fid: str, bots: tuple[str, ...], scores: tuple[int, ...],
         places: tuple[int, ...], faults: tuple[Fault, ...] = ()) -> GameRecord:
    return GameRecord(fid, "rage", 1, bots, scores, places, faults)


RAGE_RECORDS = [
    rage("rage/d01/t01/r0", ("a", "b", "c"), (30, 10, 10), (1, 2, 2)),
    rage("rage/d01/t01/r1", ("b", "c", "a"), (20, 30, 10), (2, 1, 3),
         (Fault(2, "a", FaultKind.TIMEOUT, "slow"),)),
    rage("rage/d01/t01/r2", ("c", "a", "b"), (-10, 20, 30), (3, 2, 1),
         (Fault(0, "c", FaultKind.CRASH, "exit 3"), Fault(0, "c", FaultKind.CRASH, "x"),
          Fault(0, "c", FaultKind.TIMEOUT, "slow"))),
]


def rows_by_bot(table: ResultTable) -> dict[str, dict[str, object]]:
    return {str(row[1]): dict(zip(table.headers, row)) for row in table.rows}


def test_rage_standings_rank_by_mean_place_with_faults_last() -> None:
    standings, _, _ = build_tables(RAGE, RAGE_RECORDS, BOTS)
    rows = rows_by_bot(standings)
    # Places, a faulted game last (3): a 1,3,2 -> 2; b 2,2,1 -> 5/3; c 2,1,3 -> 2.
    # Mean scores count only games without a fault: a (30+20)/2, b 20, c (10+30)/2.
    assert rows["b"]["mean place"] == 5 / 3 and rows["a"]["mean place"] == 2
    assert (rows["a"]["mean score"], rows["b"]["mean score"], rows["c"]["mean score"]) == \
        (25, 20, 20)
    assert (rows["b"]["rank"], rows["a"]["rank"], rows["c"]["rank"]) == (1, 2, 3)
    assert "ranked by mean place" in standings.title
    assert rows["a"]["95% CI ±"] is None  # the rotations of one deal: one draw
    assert (rows["a"]["first places"], rows["b"]["first places"]) == (1, 1)
    assert rows["a"]["games"] == 3 and rows["c"]["games"] == 3
    assert str(rows["a"]["faults"]) == "timeout 1" and str(rows["b"]["faults"]) == "none"
    assert rows["c"]["faults"] == FaultCounts((0, 1, 2, 0, 0, 0, 0))
    assert str(rows["c"]["faults"]) == "timeout 1, crash 2"  # in FaultKind order
    assert isinstance(rows["a"]["rating mu"], float)
    assert rows["idle"]["games"] == 0 and rows["idle"]["rank"] is None
    assert rows["idle"]["mean score"] is None
    assert [row[1] for row in standings.rows] == ["b", "a", "c", "idle"]


def test_a_bot_that_always_faults_ranks_below_every_bot_that_plays() -> None:
    """Issue 12: a bot that crashed in all its games ranked 2nd of 4 on the points its
    fallback scored. Those points are never credited, and a faulted game is a last place,
    also where every seat faulted (docs/rules.md: a faulty bot places last)."""
    crash = Fault(0, "crasher", FaultKind.CRASH, "exit 1")
    records = [
        rage("rage/d01/t01/r0", ("crasher", "x", "y"), (90, 5, -10), (3, 1, 2), (crash,)),
        rage("rage/d01/t01/r1", ("crasher", "y", "x"), (80, 10, 0), (3, 1, 2), (crash,)),
        rage("rage/d01/t02/r0", ("crasher", "crasher", "x"), (70, 60, -20), (3, 3, 3),
             (crash, Fault(1, "crasher", FaultKind.CRASH, "exit 1"),
              Fault(2, "x", FaultKind.TIMEOUT, "slow"))),
    ]
    rows = rows_by_bot(build_tables(RAGE, records, ("crasher", "x", "y"))[0])
    assert rows["crasher"]["rank"] == 3 and rows["crasher"]["mean score"] is None
    assert rows["crasher"]["first places"] == 0 and rows["crasher"]["mean place"] == 3
    assert rows["x"]["rank"] < 3 and rows["y"]["rank"] < 3


def test_head_to_head_crosstable() -> None:
    _, crosstable, _ = build_tables(RAGE, RAGE_RECORDS, BOTS)
    rows = {row[0]: dict(zip(crosstable.headers, row)) for row in crosstable.rows}
    # a vs b: ahead in r0, behind in r1 and r2 -> 1 of 3
    assert rows["a"]["b"] == pytest.approx(100 / 3)
    assert rows["b"]["a"] == pytest.approx(200 / 3)
    assert rows["b"]["c"] == pytest.approx(100 * 1.5 / 3)  # r0 a tie counts half
    assert rows["a"]["a"] is None and rows["idle"]["a"] is None
    assert "3 seat pairs per cell" in crosstable.title


def thegame(fid: str, bots: tuple[str, ...], left: int, won: bool,
            faults: tuple[Fault, ...] = ()) -> GameRecord:
    return GameRecord(fid, "thegame", 1, bots, (left,) * len(bots), (1,) * len(bots), faults,
                      won=won, cards_left=left)


THEGAME_RECORDS = [
    thegame("thegame/d01/solo/b01", ("a",), 0, True),
    thegame("thegame/d01/solo/b02", ("b",), 20, False),
    thegame("thegame/d01/team/t01", ("a", "b"), 8, False),
    thegame("thegame/d02/solo/b01", ("a",), 12, False),
    thegame("thegame/d02/solo/b02", ("b",), 30, False,
            (Fault(0, "b", FaultKind.ILLEGAL, "bad turn"),)),
    thegame("thegame/d02/team/t01", ("a", "b"), 4, False),
]


def test_thegame_solo_team_and_comparison_tables() -> None:
    solo, teams, compare = build_tables(THEGAME, THEGAME_RECORDS, ("a", "b"))
    rows = rows_by_bot(solo)
    assert rows["a"]["rank"] == 1 and rows["a"]["games"] == 2
    assert rows["a"]["win %"] == 50 and rows["a"]["mean cards left (all games)"] == 6
    assert rows["a"]["excellent %"] == 50 and rows["a"]["95% CI ±"] == pytest.approx(
        12.7062 * 6)
    assert rows["b"]["win %"] == 0 and str(rows["b"]["faults"]) == "illegal 1"
    # its faulted game (30 left) counts in the ranking's mean, not in the clean one
    assert rows["b"]["mean cards left (all games)"] == 25 and rows["b"]["clean games"] == 1
    assert rows["b"]["mean left (clean games)"] == 20 and rows["a"]["clean games"] == 2
    interval = rows["b"]["win % 95% CI"]
    assert isinstance(interval, Interval) and interval.low == 0
    assert interval.high == pytest.approx(65.76, abs=0.01)
    team_rows = rows_by_bot(teams)
    assert list(team_rows) == ["a+b"] and team_rows["a+b"]["mean cards left (all games)"] == 6
    assert team_rows["a+b"]["excellent %"] == 100
    by_bot = {row[0]: dict(zip(compare.headers, row)) for row in compare.rows}
    assert by_bot["a"]["solo mean left"] == 6 and by_bot["a"]["team mean left"] == 6
    assert by_bot["b"]["solo mean left"] == 25 and by_bot["b"]["team - solo"] == -19


def test_a_fault_in_the_game_never_raises_a_bot_and_the_title_says_why() -> None:
    """Rulings X1, X9: a fault ends the game lost, scored by the cards it left unplayed.
    `quitter` faults in its bad game, whose count stands as the fault left it (50; playing
    on leaves no more): it ranks below `steady`, although its clean game alone (2 left)
    beats steady's mean, and that game's 4 left is no excellent result."""
    fault = (Fault(0, "quitter", FaultKind.CRASH, "exit code 1"),)
    records = [thegame("thegame/d01/solo/b01", ("quitter",), 2, False),
               thegame("thegame/d02/solo/b01", ("quitter",), 50, False, fault),
               thegame("thegame/d03/solo/b01", ("quitter",), 4, False, fault),
               thegame("thegame/d01/solo/b02", ("steady",), 10, False),
               thegame("thegame/d02/solo/b02", ("steady",), 9, False),
               thegame("thegame/d03/solo/b02", ("steady",), 14, False)]
    solo = build_tables(THEGAME, records, ("quitter", "steady"))[0]
    rows = rows_by_bot(solo)
    assert [row[1] for row in solo.rows] == ["steady", "quitter"]
    assert rows["quitter"]["mean cards left (all games)"] == pytest.approx(56 / 3)
    assert rows["quitter"]["mean left (clean games)"] == 2
    assert rows["quitter"]["clean games"] == 1
    assert rows["quitter"]["excellent %"] == pytest.approx(100 / 3)
    assert rows["steady"]["excellent %"] == pytest.approx(100 / 3)
    assert "X1" in solo.title and "cards it left unplayed" in solo.title
    assert "Mean left (clean games) rests on the games without a fault" in solo.title


def test_equal_means_share_a_rank_in_the_game() -> None:
    records = [thegame("thegame/d01/solo/b01", ("a",), 5, False),
               thegame("thegame/d01/solo/b02", ("b",), 5, False),
               thegame("thegame/d01/solo/b03", ("c",), 9, False)]
    solo = build_tables(THEGAME, records, ("a", "b", "c"))[0]
    assert [row[0] for row in solo.rows] == [1, 1, 3]


def test_rage_ci_counts_each_deal_once() -> None:
    """Two deals of two rotations: a scores 30, 10 on deal 1 and 20, 0 on deal 2. The
    deviations from the mean 15 sum to +10 and -10 per deal, so the clustered standard
    error is sqrt(2/1 * 200) / 4 = 5, with 1 degree of freedom."""
    records = [GameRecord(f"rage/d{deal}/t01/r{r}", "rage", deal, ("a", "b"), (score, 5),
                          (1, 2)) for deal, r, score in [(1, 0, 30), (1, 1, 10),
                                                         (2, 0, 20), (2, 1, 0)]]
    rows = rows_by_bot(build_tables(RAGE, records, ("a", "b"))[0])
    assert rows["a"]["mean score"] == 15
    assert rows["a"]["95% CI ±"] == pytest.approx(12.7062 * 5)
    assert "each deal as one draw" in build_tables(RAGE, records)[0].title



def test_every_table_has_a_snake_case_name_and_column_keys() -> None:
    """Machines find tables and columns by these (docs/results-json.md)."""
    tables = [*build_tables(RAGE, RAGE_RECORDS, BOTS, references=("c",)),
              *build_tables(THEGAME, THEGAME_RECORDS, ("a", "b"))]
    assert [table.name for table in tables] == [
        "standings", "references", "head_to_head", "pairs", "solo", "teams",
        "solo_vs_team"]
    for table in tables:
        keys = table.keys[:1] if table.name == "head_to_head" else table.keys
        assert all(re.fullmatch(r"[a-z][a-z0-9_]*", key) for key in keys), table.keys
        assert len(set(table.keys)) == len(table.keys)
