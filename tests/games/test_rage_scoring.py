"""Rage scoring: tricks, +5/-5 cards, the bid bonus, totals, places (R9)."""

from __future__ import annotations

import pytest

from referee.games.rage.rules import (GameOver, Phase, RageConfig, RageState, RoundScored,
                                SeatRoundResult, Variant, action_points, rank_places,
                                score_seat)
from referee.games.rage.cards import cards_from_faces
from tests.games.test_rage_deals import (bid_all, deal, events_of, play,
                                         play_fallback_to_end)

DURCHMARSCH = Variant.DURCHMARSCH


def test_seeds_worked_example_bid_3_won_3_with_a_minus_five_scores_8() -> None:
    state = deal(["g1 g2 g3", "r15 r14 r13", "-5 b1 b2"], "y5", rounds=8)
    bid_all(state, 3, 0, 0)
    play(state, "r15", "-5", "g1", "r14", "b1", "g2", "r13", "b2", "g3")
    result = state.round_results[0]
    assert result.seats[1] == SeatRoundResult(bid=3, tricks=3, trick_points=3,
                                              action_points=-5, bid_bonus=10, total=8)
    assert [s.total for s in result.seats] == [10, 8, 10]  # bids of 0 met score 10 too
    assert state.totals() == [10, 8, 10]
    assert state.phase is Phase.OVER


@pytest.mark.parametrize(("bid", "tricks", "points", "total"), [
    (3, 3, -5, 8),   # Anja
    (0, 1, 5, 1),    # Bernd: missed (-5), a "+5" and one trick
    (2, 2, 0, 12),   # Claudia
    (7, 4, 0, -1),   # Dieter
])
def test_seeds_score_sheet_round(bid: int, tricks: int, points: int, total: int) -> None:
    assert score_seat(bid, tricks, points, 10, False).total == total


def test_a_missed_bid_costs_5_and_a_met_bid_of_0_earns_10() -> None:
    assert score_seat(2, 1, 0, 5, False) == SeatRoundResult(2, 1, 1, 0, -5, -4)
    assert score_seat(0, 0, 0, 5, False) == SeatRoundResult(0, 0, 0, 0, 10, 10)


def test_plus_and_minus_five_cards_count_in_the_tricks_won() -> None:
    won, = cards_from_faces("+5 +5 -5 r3 NT J")
    assert action_points(won) == 5


def test_plus_five_in_a_won_trick_scores_for_the_winner_only() -> None:
    state = deal(["+5", "r5", "r9"], "y1")
    bid_all(state, 0, 1, 1)
    play(state, "r5", "r9", "+5")
    seats = state.round_results[0].seats
    assert [(s.tricks, s.action_points, s.total) for s in seats] == [
        (0, 0, -5), (0, 0, 10), (1, 5, 16)]


def test_durchmarsch_doubles_trick_points_for_winning_every_trick() -> None:
    for variants, expected in (((), 2), ((DURCHMARSCH,), 4)):
        state = deal(["g1 g2", "r15 r14", "b1 b2"], "y5", variants=variants)
        bid_all(state, 2, 0, 0)
        play(state, "r15", "b1", "g1", "r14", "b2", "g2")
        seat = state.round_results[0].seats[1]
        assert seat.trick_points == expected and seat.total == expected + 10


def test_durchmarsch_needs_every_trick() -> None:
    state = deal(["g1 g9", "r15 g5", "b1 b2"], "y5", variants=(DURCHMARSCH,))
    bid_all(state, 1, 0, 1)
    play(state, "r15", "b1", "g1", "g5", "b2", "g9")
    assert [s.trick_points for s in state.round_results[0].seats] == [1, 1, 0]


def test_durchmarsch_does_not_apply_in_round_10() -> None:
    state = deal(["g1", "r15", "b1"], "y5", variants=(DURCHMARSCH,))
    bid_all(state, 1, 0, 0)
    play(state, "r15", "b1", "g1")
    assert state.round_results[0].seats[1].trick_points == 1


def test_round_scored_then_game_over_events_carry_the_results() -> None:
    state = RageState.new_game(RageConfig(4, rounds=3), 8)
    play_fallback_to_end(state)
    scored = [e.result for e in events_of(state, RoundScored)]
    assert scored == state.round_results and [r.round_no for r in scored] == [1, 2, 3]
    assert [r.cards for r in scored] == [10, 9, 8]
    sums = [sum(r.seats[s].total for r in scored) for s in range(4)]
    assert state.totals() == sums
    assert state.events[-1] == GameOver(tuple(sums))
    for result in scored:
        for seat in result.seats:
            assert seat.total == seat.trick_points + seat.action_points + seat.bid_bonus
        assert sum(seat.tricks for seat in result.seats) == result.cards


def test_r9_equal_totals_share_a_place() -> None:
    assert rank_places([30, 20, 20, 10]) == [1, 2, 2, 4]
    assert rank_places([5, 5, 5]) == [1, 1, 1]
    assert rank_places([-3, 7, 0]) == [3, 1, 2]


def test_r9_faulted_seats_place_below_everyone_and_share_their_place() -> None:
    """Faulted seats take the last place (docs/rules.md: a faulty bot places last), never a
    first place, even where every seat faulted."""
    assert rank_places([30, 20, 20, 10], frozenset({0})) == [4, 1, 1, 3]
    assert rank_places([30, 20, 20, 10], frozenset({0, 3})) == [4, 1, 1, 4]
    assert rank_places([30, 20, 10], frozenset({0, 1, 2})) == [3, 3, 3]
    with pytest.raises(ValueError):
        rank_places([1, 2, 3], frozenset({3}))


def test_r9_state_places_rank_the_totals() -> None:
    state = RageState.new_game(RageConfig(3, rounds=2), 4)
    play_fallback_to_end(state)
    assert state.places() == rank_places(state.totals())
    assert state.places(frozenset({1}))[1] == 3
