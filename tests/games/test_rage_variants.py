"""Rage variants: hidden and secret bids (when they are revealed), and their bidding order.

Plus-minus-one is tested with bidding, durchmarsch with scoring, R10 with the configs.
"""

from __future__ import annotations

from referee.games.rage.rules import (BidMade, BidsRevealed, CardPlayed, Event, RoundScored,
                                TrickWon, Variant)
from tests.games.test_rage_deals import bid_all, deal, play

HANDS = ["g1 g2", "r15 r14", "b1 b2"]  # round 9; seat 1 leads and wins both tricks
PLAYS = ("r15", "b1", "g1", "r14", "b2", "g2")


def kinds(events: list[Event]) -> list[type]:
    return [type(e) for e in events]


def index_of(events: list[Event], kind: type, last: bool = False) -> int:
    found = [i for i, e in enumerate(events) if isinstance(e, kind)]
    return found[-1] if last else found[0]


def test_base_game_never_reveals_bids_separately() -> None:
    state = deal(HANDS, "y5")
    bid_all(state, 2, 0, 0)
    play(state, *PLAYS)
    assert BidsRevealed not in kinds(state.events)


def test_hidden_bid_still_bids_seat_by_seat_from_left_of_the_dealer() -> None:
    state = deal(HANDS, "y5", dealer=1, variants=(Variant.HIDDEN_BID,))
    seats = []
    for value in (0, 1, 2):
        seats.append(state.current_seat)
        state.bid(value)
    assert seats == [2, 0, 1]
    assert [(e.seat, e.bid) for e in state.events if isinstance(e, BidMade)] == [
        (2, 0), (0, 1), (1, 2)]


def test_hidden_bids_are_revealed_after_the_last_bid_before_the_first_trick() -> None:
    state = deal(HANDS, "y5", variants=(Variant.HIDDEN_BID,))
    bid_all(state, 2, 0)
    assert BidsRevealed not in kinds(state.events)
    state.bid(1)
    assert state.events[-1] == BidsRevealed((1, 2, 0))  # in seat order
    play(state, *PLAYS[:1])
    events = state.events
    assert index_of(events, BidMade, last=True) < index_of(events, BidsRevealed)
    assert index_of(events, BidsRevealed) < index_of(events, CardPlayed)


def test_secret_bids_are_revealed_after_the_last_trick_before_the_score() -> None:
    state = deal(HANDS, "y5", variants=(Variant.SECRET_BID,))
    bid_all(state, 2, 0, 1)
    play(state, *PLAYS[:5])
    assert BidsRevealed not in kinds(state.events)
    play(state, PLAYS[5])
    events = state.events
    reveal = index_of(events, BidsRevealed)
    assert events[reveal] == BidsRevealed((1, 2, 0))
    assert index_of(events, TrickWon, last=True) == reveal - 1
    assert isinstance(events[reveal + 1], RoundScored)


def test_secret_bid_reveals_once_per_round() -> None:
    state = deal(HANDS, "y5", variants=(Variant.SECRET_BID,), rounds=10)
    bid_all(state, 2, 0, 1)
    play(state, *PLAYS)
    bid_all(state, 0, 0, 0)  # round 10
    while state.legal_plays():
        state.play(state.fallback_play())
    reveals = [e for e in state.events if isinstance(e, BidsRevealed)]
    assert reveals == [BidsRevealed((1, 2, 0)), BidsRevealed((0, 0, 0))]
