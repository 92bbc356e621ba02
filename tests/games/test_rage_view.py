"""A seat's view of Rage: its own hand only, and bids only where the variant shows them."""

from __future__ import annotations

import pytest

from referee.games.rage.rules import (BidMade, BidsRevealed, CardPlayed, HandDealt, Phase,
                                RageConfig, RageState, Variant)
from referee.games.rage.cards import Colour
from tests.games.views import rage_view as view
from tests.games.test_rage_deals import bid_all, deal, play

HANDS = ["g1 g2", "r15 r14", "b1 b2"]
PLAYS = ("r15", "b1", "g1", "r14", "b2", "g2")


def test_a_view_holds_only_its_own_hand_and_hand_dealt_event() -> None:
    state = deal(HANDS, "y5")
    for seat in range(3):
        seen = view(state, seat)
        assert seen.hand == tuple(state.hand(seat))
        dealt = [e for e in seen.events if isinstance(e, HandDealt)]
        assert dealt == [HandDealt(seat, tuple(state.hand(seat)))]


def test_a_view_mirrors_the_public_table() -> None:
    state = deal(HANDS, "y5", dealer=2)
    bid_all(state, 1, 0, 1)
    play(state, "g1")
    seen = view(state, 1)
    assert (seen.seat, seen.players, seen.round_no, seen.cards, seen.dealer) == (1, 3, 9, 2, 2)
    assert seen.phase is Phase.PLAY and seen.current_seat == 1
    assert seen.trump is Colour.YELLOW and not seen.no_trump_active
    assert seen.trick == tuple(state.trick) and seen.lead_colour is Colour.GREEN
    assert seen.bids == (1, 0, 1) and seen.tricks_won == (0, 0, 0) and seen.totals == (0, 0, 0)
    assert seen.variants == frozenset()


def test_base_game_bids_are_public_at_once() -> None:
    state = deal(HANDS, "y5")
    state.bid(2)
    assert view(state, 0).bids == (None, 2, None)
    assert any(isinstance(e, BidMade) and e.seat == 1 for e in view(state, 2).events)


@pytest.mark.parametrize("variant", [Variant.HIDDEN_BID, Variant.SECRET_BID])
def test_others_bids_are_hidden_while_bidding_but_own_bid_is_seen(variant: Variant) -> None:
    state = deal(HANDS, "y5", variants=(variant,))
    bid_all(state, 2, 0)
    assert view(state, 1).bids == (None, 2, None)
    assert view(state, 0).bids == (None, None, None)
    own = [e for e in view(state, 1).events if isinstance(e, BidMade)]
    assert own == [BidMade(1, 2)]
    assert not any(isinstance(e, BidMade) for e in view(state, 0).events)


def test_hidden_bids_become_visible_once_all_are_in() -> None:
    state = deal(HANDS, "y5", variants=(Variant.HIDDEN_BID,))
    bid_all(state, 2, 0, 1)
    seen = view(state, 2)
    assert seen.bids == (1, 2, 0)
    assert BidsRevealed((1, 2, 0)) in seen.events
    assert [e.seat for e in seen.events if isinstance(e, BidMade)] == [2]  # others stay hidden


def test_secret_bids_stay_hidden_through_the_round_and_show_at_its_end() -> None:
    state = deal(HANDS, "y5", variants=(Variant.SECRET_BID,), rounds=9)
    bid_all(state, 2, 0, 1)
    play(state, *PLAYS[:5])
    assert view(state, 0).bids == (1, None, None)
    assert not any(isinstance(e, BidsRevealed) for e in view(state, 0).events)
    play(state, PLAYS[5])
    assert state.phase is Phase.OVER
    seen = view(state, 0)
    assert seen.bids == (1, 2, 0) and BidsRevealed((1, 2, 0)) in seen.events


def test_since_gives_only_the_later_visible_events() -> None:
    state = deal(HANDS, "y5")
    bid_all(state, 2, 0, 1)
    mark = len(state.events)
    play(state, "r15")
    assert view(state, 0, since=mark).events == (CardPlayed(1, state.trick[0][1]),)
    assert view(state, 0, since=len(state.events)).events == ()
    with pytest.raises(ValueError):
        view(state, 0, since=-1)


def test_no_view_of_a_whole_game_shows_another_seats_hand() -> None:
    state = RageState.new_game(RageConfig(4, rounds=2), 21)
    while state.phase is not Phase.OVER:
        for seat in range(4):
            seen = view(state, seat)
            others = {c.id for s, hand in enumerate(state.hands) if s != seat for c in hand}
            assert not others & {c.id for c in seen.hand}
            assert all(e.seat == seat for e in seen.events if isinstance(e, HandDealt))
        if state.phase is Phase.BID:
            state.bid(state.fallback_bid())
        else:
            state.play(state.fallback_play())


def test_view_refuses_a_seat_not_at_the_table() -> None:
    with pytest.raises(ValueError, match="seat 3"):
        view(deal(HANDS, "y5"), 3)
