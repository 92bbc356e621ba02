"""Rage action effects: No Trump and Trump Change (R5), no flip after the last trick (R6),
the same colour again (R7), and the stock running out."""

from __future__ import annotations

from referee.games.rage.rules import (Flipped, RageState, RoundScored, TrickWon, TrumpReason,
                                TrumpSet)
from referee.games.rage.cards import Card, Colour
from tests.games.test_rage_deals import bid_all, deal, events_of, play, tricks_won_events


def trump_sets(state: RageState) -> list[tuple[Colour | None, TrumpReason]]:
    return [(e.colour, e.reason) for e in events_of(state, TrumpSet)]


def faces(cards: list[Card]) -> list[str]:
    return [c.face for c in cards]


def test_no_trump_the_rule_texts_example_lead_colour_wins_and_a_flip_follows() -> None:
    # Red is trump; Anja (seat 1) leads yellow 8, Bernd trumps with red 4, Claudia plays No Trump.
    state = deal(["NT g3", "y8 g1", "r4 g2"], "r1 b5 o6")
    bid_all(state, 0, 0, 0)
    play(state, "y8", "r4")
    play(state, "NT")
    assert tricks_won_events(state)[0].winner == 1
    assert trump_sets(state) == [(Colour.RED, TrumpReason.DEAL), (Colour.BLUE, TrumpReason.NO_TRUMP)]
    assert state.trump is Colour.BLUE and not state.no_trump_active
    assert faces(state.flipped) == ["r1", "b5"] and faces(state.stock) == ["o6"]


def test_no_trump_is_in_force_for_the_rest_of_the_trick_only() -> None:
    state = deal(["y9 g3", "NT g1", "r4 g2"], "r1 b5 o6")
    bid_all(state, 0, 0, 0)
    play(state, "NT")
    assert (state.trump, state.no_trump_active) == (Colour.RED, True)  # flip waits for the trick
    play(state, "r4", "y9")  # red counts as an ordinary colour: it is the lead colour now
    assert tricks_won_events(state)[0].winner == 2
    assert state.trump is Colour.BLUE and not state.no_trump_active


def test_r5_several_no_trumps_in_one_trick_make_one_flip() -> None:
    state = deal(["y1 g3", "NT g1", "NT g2"], "r1 b5 o6")
    bid_all(state, 0, 0, 0)
    play(state, "NT", "NT", "y1")
    assert tricks_won_events(state)[0].winner == 0
    assert trump_sets(state)[1:] == [(Colour.BLUE, TrumpReason.NO_TRUMP)]
    assert faces(state.stock) == ["o6"]


def test_r5_trump_change_flips_at_once_and_the_new_trump_rules_this_trick() -> None:
    state = deal(["b2 o3", "g5 g1", "TC o1"], "r1 b5 o6")
    bid_all(state, 0, 0, 0)
    play(state, "g5", "TC")
    assert state.trump is Colour.BLUE  # before the trick is over
    assert isinstance(state.events[-1], TrumpSet) and isinstance(state.events[-2], Flipped)
    play(state, "b2")
    assert tricks_won_events(state)[0].winner == 0


def test_r5_after_a_trump_change_the_old_trump_is_dead_even_in_this_trick() -> None:
    state = deal(["TC o1", "g5 g1", "r9 o2"], "r1 b5 o6")
    bid_all(state, 0, 0, 0)
    play(state, "g5", "r9", "TC")
    assert tricks_won_events(state)[0].winner == 1  # red 9 is no longer a trump


def test_r5_trump_change_after_no_trump_cancels_it_and_its_pending_flip() -> None:
    state = deal(["TC o2", "g5 g1", "NT o3", "b1 o4"], "r1 b5 o7")
    bid_all(state, 0, 0, 0, 0)
    play(state, "g5", "NT", "b1")
    assert state.no_trump_active
    play(state, "TC")
    assert tricks_won_events(state)[0].winner == 3  # blue, the new trump, counts again
    assert trump_sets(state) == [(Colour.RED, TrumpReason.DEAL),
                                 (Colour.BLUE, TrumpReason.TRUMP_CHANGE)]
    assert faces(state.stock) == ["o7"]  # no flip after the trick


def test_r5_no_trump_after_trump_change_works_as_normal() -> None:
    state = deal(["NT o2", "g5 g1", "TC o3", "b1 o4"], "r1 b5 o7")
    bid_all(state, 0, 0, 0, 0)
    play(state, "g5", "TC", "b1", "NT")
    assert tricks_won_events(state)[0].winner == 1  # no trump in this trick: green wins
    assert trump_sets(state) == [(Colour.RED, TrumpReason.DEAL),
                                 (Colour.BLUE, TrumpReason.TRUMP_CHANGE),
                                 (Colour.ORANGE, TrumpReason.NO_TRUMP)]


def test_r6_no_flip_after_the_last_trick_of_the_final_round() -> None:
    state = deal(["g2", "NT", "g1"], "r1 b5")
    bid_all(state, 0, 0, 0)
    play(state, "NT", "g1", "g2")
    assert tricks_won_events(state)[0].winner == 0
    assert faces(state.flipped) == ["r1"] and faces(state.stock) == ["b5"]
    assert len(events_of(state, TrumpSet)) == 1


def test_r6_no_flip_after_the_last_trick_of_an_earlier_round() -> None:
    state = deal(["g3 NT", "g5 g1", "g6 g2"], "r1 b5")
    bid_all(state, 0, 0, 0)
    play(state, "g5", "g6", "g3", "g2", "NT", "g1")
    events = state.events
    last_trick = max(i for i, e in enumerate(events) if isinstance(e, TrickWon))
    assert isinstance(events[last_trick + 1], RoundScored)  # nothing flipped in between
    assert state.round_no == 10


def test_r7_a_flip_showing_the_old_trump_colour_keeps_it() -> None:
    state = deal(["TC o1", "g5 g1", "r2 o2"], "r1 r9 b5")
    bid_all(state, 0, 0, 0)
    play(state, "g5", "r2", "TC")
    assert trump_sets(state)[-1] == (Colour.RED, TrumpReason.TRUMP_CHANGE)
    assert tricks_won_events(state)[0].winner == 2  # red is still trump


def test_a_flip_burns_action_cards_until_a_colour_card_shows() -> None:
    state = deal(["TC o1", "g5 g1", "r2 o2"], "r1 NT -5 b5 o9")
    bid_all(state, 0, 0, 0)
    play(state, "g5", "r2", "TC")
    assert faces(state.flipped) == ["r1", "NT", "-5", "b5"] and state.trump is Colour.BLUE
    assert tricks_won_events(state)[0].winner == 1
    assert faces(state.won_cards[1]) == ["g5", "r2", "TC"]  # burned cards score for nobody


def test_stock_running_out_on_a_trump_change_leaves_no_trump_for_the_round() -> None:
    state = deal(["TC TC", "g5 g1", "r2 r3"], "r1")
    bid_all(state, 0, 0, 0)
    play(state, "g5", "r2", "TC")
    assert state.trump is None and tricks_won_events(state)[0].winner == 1
    play(state, "g1", "r3", "TC")  # a further flip on an empty stock: still no trump
    assert tricks_won_events(state)[1].winner == 1
    assert trump_sets(state)[1:3] == [(None, TrumpReason.TRUMP_CHANGE)] * 2
    assert trump_sets(state)[3][1] is TrumpReason.DEAL  # the next round's deal


def test_stock_running_out_on_a_no_trump_flip_leaves_no_trump() -> None:
    state = deal(["y1 g3", "NT g1", "r4 g2"], "r1 +5")
    bid_all(state, 0, 0, 0)
    play(state, "NT", "r4", "y1")
    assert state.trump is None and faces(state.flipped) == ["r1", "+5"]
    play(state, "g2", "g3", "g1")  # seat 2 won the first trick and leads
    assert tricks_won_events(state)[1].winner == 0
