"""Rage follow rules: R1/R2 (follow the lead colour), R3 (what sets it), legal-play listing."""

from __future__ import annotations

import random

import pytest

from referee.errors import RuleError
from referee.games.rage.rules import Phase, RageConfig, RageState, legal_plays_for
from referee.games.rage.cards import COLOURS, DECK, Colour, Play, cards_from_faces
from tests.games.test_rage_deals import bid_all, deal, play, tricks_won_events


def notations(plays: list[Play]) -> list[str]:
    return [p.notation for p in plays]


def ready(hands: list[str], stock: str = "y3") -> RageState:
    """Dealer 0, all bids 0: seat 1 leads, then 2, then 0."""
    state = deal(hands, stock)
    bid_all(state, *[0] * len(hands))
    return state


def test_r1_holding_the_lead_colour_only_lead_colour_cards_are_legal() -> None:
    state = ready(["b1 b4 o5", "r5 b2 g3", "r7 r9 y9"])
    play(state, "r5")
    assert notations(state.legal_plays()) == ["r7", "r9"]


def test_r1_trumping_is_refused_while_holding_the_lead_colour() -> None:
    state = ready(["b1 b4 o5", "r5 b2 g3", "r7 y9 g1"])
    play(state, "r5")
    with pytest.raises(RuleError, match="must follow red"):
        play(state, "y9")  # yellow is trump
    with pytest.raises(RuleError, match="must follow red"):
        play(state, "g1")
    assert state.current_seat == 2 and len(state.trick) == 1


@pytest.mark.parametrize("action", ["NT", "TC", "+5", "-5", "J:r", "J:y"])
def test_r2_no_action_card_not_even_a_joker_while_holding_the_lead_colour(action: str) -> None:
    face = action.split(":")[0]
    state = ready(["b1 b4 o5", "r5 b2 g3", f"r7 {face} g1"])
    play(state, "r5")
    assert notations(state.legal_plays()) == ["r7"]
    with pytest.raises(RuleError, match="must follow red"):
        play(state, action)


def test_void_in_the_lead_colour_any_card_is_legal() -> None:
    state = ready(["b1 J NT", "r5 b2 g3", "r7 y9 g1"])
    play(state, "r5", "r7")
    assert notations(state.legal_plays()) == [
        "b1", "J:b", "J:g", "J:r", "J:y", "J:v", "J:o", "NT"]
    play(state, "J:r")  # a Joker may declare any colour, the lead colour included
    won = tricks_won_events(state)[0]
    assert won.plays[-1][1].declared is Colour.RED and won.winner == 0


def test_r3_after_an_action_lead_the_next_player_may_play_anything() -> None:
    state = ready(["b1 b4 o5", "NT b2 g3", "r7 y9 g1"])
    play(state, "NT")
    assert state.lead_colour is None
    assert notations(state.legal_plays()) == ["g1", "r7", "y9"]


def test_r3_the_first_colour_card_after_an_action_lead_sets_the_lead_colour() -> None:
    state = ready(["b1 b4 o5", "NT b2 g3", "b7 y9 g1"])
    play(state, "NT", "y9")
    assert state.lead_colour is Colour.YELLOW
    assert notations(state.legal_plays()) == ["b1", "b4", "o5"]  # seat 0 is void in yellow
    state2 = ready(["b1 y4 o5", "NT b2 g3", "b7 y9 g1"])
    play(state2, "NT", "y9")
    assert notations(state2.legal_plays()) == ["y4"]


def test_r3_a_led_joker_sets_the_lead_colour_to_its_declared_colour() -> None:
    state = ready(["b1 g4 o5", "J b2 g3", "g7 y9 g1"])
    play(state, "J:g")
    assert state.lead_colour is Colour.GREEN
    assert notations(state.legal_plays()) == ["g1", "g7"]


def test_r3_a_joker_after_an_action_lead_sets_the_lead_colour() -> None:
    state = ready(["v1 g4 o5", "+5 b2 g3", "J y9 g1"])
    play(state, "+5", "J:v")
    assert state.lead_colour is Colour.VIOLET
    assert notations(state.legal_plays()) == ["v1"]


def test_legal_plays_are_sorted_by_id_with_one_entry_per_action_face() -> None:
    state = ready(["r1 r2 r3 r4 r5", "NT r7 J b3 NT", "g1 g2 g3 g4 g5"])  # round 6
    legal = state.legal_plays()
    assert notations(legal) == ["b3", "r7", "J:b", "J:g", "J:r", "J:y", "J:v", "J:o", "NT"]
    assert legal[-1].card.id == 98  # the lowest-id No Trump of the two
    assert [p.card.id for p in legal] == sorted(p.card.id for p in legal)


def test_any_copy_of_a_held_action_card_may_be_played() -> None:
    state = ready(["r1 r2 r3 r4 r5", "NT r7 J b3 NT", "g1 g2 g3 g4 g5"])
    state.play(Play(DECK[99]))  # the second No Trump, not the listed one
    assert state.trick == [(1, Play(DECK[99]))]
    assert [c.id for c in state.hand(1)].count(98) == 1


def test_a_joker_needs_a_declared_colour_and_only_a_joker_declares() -> None:
    state = ready(["b1 b4 o5", "J b2 g3", "r7 y9 g1"])
    with pytest.raises(RuleError, match="declared colour"):
        state.play(Play(DECK[96]))
    with pytest.raises(RuleError, match="only a Joker"):
        state.play(Play(DECK[2], Colour.BLUE))


def test_a_card_not_in_the_hand_is_refused() -> None:
    state = ready(["b1 b4 o5", "J b2 g3", "r7 y9 g1"])
    with pytest.raises(RuleError, match="does not hold r7"):
        state.play(Play(DECK[39]))
    with pytest.raises(RuleError, match="no play is due"):
        deal(["b1", "b2", "b3"], "y1").play(Play(DECK[2]))


def test_legal_plays_for_agrees_with_the_state_on_random_games() -> None:
    rng = random.Random(5)
    for seed in range(3):
        state = RageState.new_game(RageConfig(5), seed)
        while state.phase is not Phase.OVER:
            if state.phase is Phase.BID:
                state.bid(rng.choice(state.legal_bids()))
                continue
            seat = state.current_seat
            assert seat is not None
            trick = [p for _, p in state.trick]
            legal = state.legal_plays()
            assert legal_plays_for(state.hand(seat), trick) == legal
            state.play(rng.choice(legal))


def test_legal_plays_for_sorts_an_unsorted_hand() -> None:
    hand, = cards_from_faces("y2 NT b9 J")
    assert notations(legal_plays_for(hand, [])) == (
        ["b9", "y2"] + [f"J:{c.value}" for c in COLOURS] + ["NT"])
    lead, = cards_from_faces("b1")
    assert notations(legal_plays_for(hand, [Play(lead[0])])) == ["b9"]
