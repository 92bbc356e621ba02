"""Rage bidding: order (R11), range, the plus-minus-one dealer restriction, errors."""

from __future__ import annotations

import pytest

from referee.errors import RuleError
from referee.games.rage.rules import (BidMade, Phase, RageConfig, RageState, Variant,
                                legal_bids_for)
from tests.games.test_rage_deals import bid_all, deal, events_of

PMO = frozenset({Variant.PLUS_MINUS_ONE})
HANDS_3 = ["r1 r2 r3", "b1 b2 b3", "g1 g2 g3"]  # round 8: three cards each


def test_bids_range_from_0_to_the_number_of_cards() -> None:
    state = deal(HANDS_3, "y5")
    assert state.legal_bids() == [0, 1, 2, 3]


def test_r11_bidding_starts_left_of_the_dealer_and_goes_clockwise() -> None:
    state = deal(HANDS_3, "y5", dealer=1)
    order = []
    for value in (3, 0, 1):
        order.append(state.current_seat)
        state.bid(value)
    assert order == [2, 0, 1]
    assert [(e.seat, e.bid) for e in events_of(state, BidMade)] == [(2, 3), (0, 0), (1, 1)]
    assert state.bids == [0, 1, 3]


def test_after_the_last_bid_play_starts_left_of_the_dealer() -> None:
    state = deal(HANDS_3, "y5", dealer=2)
    bid_all(state, 1, 1, 1)
    assert state.phase is Phase.PLAY and state.current_seat == 0
    assert state.legal_bids() == []


def test_base_game_lets_the_dealer_make_the_bids_sum_to_the_cards() -> None:
    state = deal(HANDS_3, "y5")
    bid_all(state, 1, 1)
    assert state.current_seat == 0 and state.legal_bids() == [0, 1, 2, 3]


def test_plus_minus_one_forbids_the_dealer_the_sum_completing_bid() -> None:
    state = deal(HANDS_3, "y5", variants=PMO)
    bid_all(state, 1, 1)
    assert state.current_seat == 0  # the dealer bids last
    assert state.legal_bids() == [0, 2, 3]
    with pytest.raises(RuleError, match="plus-minus-one"):
        state.bid(1)
    state.bid(2)
    assert state.bids == [2, 1, 1]


def test_plus_minus_one_restricts_only_the_dealer() -> None:
    state = deal(HANDS_3, "y5", variants=PMO)
    state.bid(3)
    assert state.legal_bids() == [0, 1, 2, 3]  # 3 + 0 = 3 cards is fine for a non-dealer


def test_plus_minus_one_leaves_every_bid_when_the_others_already_exceed_the_cards() -> None:
    state = deal(HANDS_3, "y5", variants=PMO)
    bid_all(state, 3, 2)
    assert state.legal_bids() == [0, 1, 2, 3]


def test_plus_minus_one_one_card_round_still_leaves_a_legal_bid() -> None:
    state = deal(["r1", "b1", "g1"], "y5", variants=PMO)
    bid_all(state, 0, 0)
    assert state.legal_bids() == [0]


@pytest.mark.parametrize("value", [-1, 4, True, 1.0, "1"])
def test_bids_outside_the_range_are_refused(value: object) -> None:
    state = deal(HANDS_3, "y5")
    with pytest.raises(RuleError, match="whole number from 0 to 3"):
        state.bid(value)  # type: ignore[arg-type]
    assert state.bids == [None, None, None] and state.current_seat == 1


def test_bidding_is_refused_during_play() -> None:
    state = deal(HANDS_3, "y5")
    bid_all(state, 0, 0, 0)
    with pytest.raises(RuleError, match="no bid is due"):
        state.bid(0)
    with pytest.raises(RuleError, match="no bid is due"):
        state.fallback_bid()


def test_fallback_bid_is_the_lowest_legal_bid() -> None:
    state = deal(HANDS_3, "y5", variants=PMO)
    bid_all(state, 2, 1)
    assert state.fallback_bid() == 1  # 0 would make the sum 3 under plus-minus-one


def test_legal_bids_for_is_the_pure_rule_the_state_uses() -> None:
    assert legal_bids_for(5, [1, 2], False, PMO) == [0, 1, 2, 3, 4, 5]
    assert legal_bids_for(5, [1, 2], True, PMO) == [0, 1, 3, 4, 5]
    assert legal_bids_for(5, [1, 2], True, frozenset()) == [0, 1, 2, 3, 4, 5]
    assert legal_bids_for(1, [], True, PMO) == [0]
    state = RageState.new_game(RageConfig(4, PMO), 11)
    while state.phase is Phase.BID:
        made = [b for b in state.bids if b is not None]
        assert state.legal_bids() == legal_bids_for(state.cards, made,
                                                    state.current_seat == state.dealer, PMO)
        state.bid(state.legal_bids()[-1])
