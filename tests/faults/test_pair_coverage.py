"""The pairwise comparison's 95% interval covers the true share 95% of the time, within 2
points, on duplicate deals whose rotations share their luck (tournaments/stats/pairs.py);
and an even pair's LOS passes 95% about 5% of the time. Plain Python, a fixed seed."""

from __future__ import annotations

import math
import random

import pytest

from tournaments.output.cells import text
from tournaments.output.tables import pairs_table
from tournaments.stats.pairs import elo_difference, pair_comparisons
from tournaments.store.records import GameRecord

DEALS = 24
ROTATIONS = 3
DRAWS = 2000
TIE = 0.1


def tournament(rng: random.Random, p: float, deals: int = DEALS) -> list[GameRecord]:
    """Three bots at a table of three, every deal in three rotations: in each game a is
    ahead of b with the deal's own chance (p shifted by the deal's luck, shared by its
    rotations), or ties with b; c comes last."""
    records = []
    for deal in range(deals):
        chance = p + rng.uniform(-0.25, 0.25)
        for rotation in range(ROTATIONS):
            draw = rng.random()
            a, b = (1, 1) if draw < TIE else (1, 2) if draw < TIE + (1 - TIE) * chance \
                else (2, 1)
            bots, places = ("a", "b", "c"), (a, b, 3)
            turn = rotation % 3  # the seats rotate; the places go with the bots
            records.append(GameRecord(f"rage/d{deal}/t01/r{rotation}", "rage", deal,
                                      bots[turn:] + bots[:turn], (0, 0, 0),
                                      places[turn:] + places[:turn]))
    return records


@pytest.mark.parametrize("p", [0.5, 0.7])
def test_the_interval_covers_the_true_share_95_percent_of_the_time(p: float) -> None:
    rng = random.Random(29)
    truth = TIE * 0.5 + (1 - TIE) * p
    covered = confident = 0
    for _ in range(DRAWS):
        ab = next(c for c in pair_comparisons(tournament(rng, p)) if {c.bot, c.other}
                  == {"a", "b"})
        share_a = ab.share if ab.bot == "a" else 1 - ab.share
        low, high = (ab.low, ab.high) if ab.bot == "a" else (1 - ab.high, 1 - ab.low)
        assert ab.deals == DEALS and ab.pairs == DEALS * ROTATIONS
        covered += low <= truth <= high
        confident += (ab.los if ab.bot == "a" else 1 - ab.los) > 0.95
        assert 0 <= low <= share_a <= high <= 1
    assert abs(covered / DRAWS - 0.95) <= 0.02
    if p == 0.5:  # no difference: "a is better" with 95% confidence 5% of the time
        assert abs(confident / DRAWS - 0.05) <= 0.02
    else:
        assert confident / DRAWS > 0.9


def test_elo_of_a_share() -> None:
    assert elo_difference(0.5) == 0.0 and elo_difference(1.0) is None
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)


def test_the_standings_say_why_the_rating_orders_bots_otherwise() -> None:
    from referee.games.rage.definition import RAGE
    from tournaments.output.tables import build_tables
    # y wins the only game it plays (mean place 1, ranked first); x wins three games
    # against z and w and places second to y once: more evidence, a higher rating mu.
    games = [("x", "z", "w"), ("x", "z", "w"), ("x", "z", "w"), ("y", "x", "z")]
    records = [GameRecord(f"rage/d1/t{i}/r0", "rage", i, bots, (0, 0, 0), (1, 2, 3))
               for i, bots in enumerate(games)]
    standings = build_tables(RAGE, records, ("x", "y", "z", "w"))[0]
    rows = {row[1]: row for row in standings.rows}
    assert rows["y"][0] == 1 and rows["x"][0] == 2 and rows["x"][9] > rows["y"][9]
    assert "x rated above y" in standings.title and "Plackett-Luce" in standings.title
    agreeing = build_tables(RAGE, records[:3], ("x", "z", "w"))[0]
    assert "rated above" not in agreeing.title


@pytest.mark.parametrize("deals", [2, 3, 5, 40])
def test_the_los_and_the_interval_agree_however_few_the_deals(deals: int) -> None:
    """The table shows both side by side: a 95% interval that reaches below 50% must not
    stand beside an LOS above 97.5%. With 2 deals a normal LOS said 100.0 beside an
    interval of 20.5-100.0, as the interval rests on Student's t with deals - 1 degrees
    of freedom; the LOS now rests on the same t."""
    rng = random.Random(deals)
    comparisons = [next(c for c in pair_comparisons(tournament(rng, 0.7, deals))
                        if {c.bot, c.other} == {"a", "b"}) for _ in range(300)]
    for ab in comparisons:
        assert ab.low is not None and ab.los is not None
        assert (ab.low > 0.5) == (ab.los > 0.975), ab
    assert any(ab.los > 0.975 for ab in comparisons)  # both cases occur
    assert any(ab.los <= 0.975 for ab in comparisons)


def test_a_pair_won_every_time_in_few_deals_is_not_read_as_certain() -> None:
    """a placed ahead of b in every game of 2 deals. Every deal alike, Student's t has
    no spread to measure: its interval was 100-100 and its LOS 100%, certainty from two
    deals. The score test's instead (pairs._alike_deals): Wilson's interval over 2 deals,
    34.2-100%, the Elo bounds it maps to (-113 to inf: the top unbounded), and the LOS
    Phi(0.5 / sqrt(1/8)), 92.1%, below 97.5% as the interval reaches below 50%."""
    records = [GameRecord(f"rage/d{deal}/t01/r{rotation}", "rage", deal, ("a", "b", "c"),
                          (0, 0, 0), (1, 3, 2)) for deal in range(2) for rotation in range(3)]
    [ab] = [c for c in pair_comparisons(records) if (c.bot, c.other) == ("a", "b")]
    assert ab.share == 1.0 and ab.los == pytest.approx(0.9214, abs=1e-4)
    table = pairs_table(records, ["a", "b", "c"])
    row = next(row for row in table.rows if row[:2] == ("a", "b"))
    share_ci, elo_ci = row[table.keys.index("ahead_pct_ci95")], row[
        table.keys.index("elo_diff_ci95")]
    assert share_ci.low == pytest.approx(34.24, abs=0.01) and share_ci.high == 100.0
    assert elo_ci.low == pytest.approx(-113.4, abs=0.1) and elo_ci.high == math.inf
    column = table.columns[table.keys.index("elo_diff_ci95")]
    assert text(elo_ci, column) == "-113 to inf"
    [tied] = pair_comparisons([GameRecord(f"rage/d{deal}/t01/r0", "rage", deal, ("a", "b", "c"),
                                          (0, 0, 0), (1, 1, 3)) for deal in range(3)])[:1]
    assert (tied.share, tied.los) == (0.5, 0.5) and tied.low == pytest.approx(0.1253, abs=1e-4)


def test_a_gauntlets_rating_note_names_only_the_candidates_it_ranks() -> None:
    """dave (one game, last) is rated above the reference r3 (seven games, mostly last),
    not above any candidate: the candidates' table said "dave rated above r3" of a bot it
    does not show, while alice and dave agree; the note is for the bots of its table."""
    from referee.games.rage.definition import RAGE
    from tournaments.output.tables import build_tables
    seated = ("alice", "r1", "r2", "r3")
    records = [GameRecord(f"rage/d{deal}/c-alice/t01/r0", "rage", deal, seated,
                          (0, 0, 0, 0), (1, 2, 3, 4)) for deal in range(6)]
    records.append(GameRecord("rage/d09/c-dave/t01/r0", "rage", 9, ("dave", "r1", "r2", "r3"),
                              (0, 0, 0, 0), (4, 1, 2, 3)))
    candidates, references = build_tables(RAGE, records, ("alice", "dave", "r1", "r2", "r3"),
                                          ("r1", "r2", "r3"))[:2]
    mu = {row[1]: row[9] for row in candidates.rows + references.rows}
    assert mu["dave"] > mu["r3"]  # the case: a candidate rated above a reference ...
    assert "rated above" not in candidates.title  # ... which is not in its table
    assert "rated above" not in references.title  # references are not ranked
