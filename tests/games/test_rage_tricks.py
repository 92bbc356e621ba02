"""Rage trick winners: lead colour, trump, Jokers (R4), action-only tricks (R8)."""

from __future__ import annotations

from referee.games.rage.rules import Phase, trick_winner
from referee.games.rage.cards import Colour, Play, cards_from_faces, parse_play
from tests.games.test_rage_deals import bid_all, deal, play, tricks_won_events


def winner(hands: list[str], stock: str, *plays: str) -> int:
    """Seat winning a one-card-round trick (dealer 0: seat 1 leads, then 2, then 0)."""
    state = deal(hands, stock)
    bid_all(state, *[0] * len(hands))
    play(state, *plays)
    won = tricks_won_events(state)
    assert len(won) == 1 and [p.notation for _, p in won[0].plays] == list(plays)
    return won[0].winner


def test_highest_card_of_the_lead_colour_wins_without_trump() -> None:
    assert winner(["r3", "r5", "r9"], "y1", "r5", "r9", "r3") == 2


def test_off_colour_cards_never_win() -> None:
    assert winner(["g15", "r2", "b15"], "y1", "r2", "b15", "g15") == 1


def test_a_trump_beats_the_lead_colour() -> None:
    assert winner(["r9", "r15", "y0"], "y1", "r15", "y0", "r9") == 2


def test_the_highest_trump_wins() -> None:
    assert winner(["y10", "r2", "y3"], "y1", "r2", "y3", "y10") == 0


def test_r4_a_joker_beats_the_15_of_its_declared_colour() -> None:
    assert winner(["r3", "r15", "J"], "y1", "r15", "J:r", "r3") == 2


def test_r4_a_joker_not_of_the_trump_colour_loses_to_any_trump() -> None:
    assert winner(["y0", "r15", "J"], "y1", "r15", "J:r", "y0") == 0


def test_r4_a_joker_declared_trump_beats_the_trump_15() -> None:
    assert winner(["J", "r5", "y15"], "y1", "r5", "y15", "J:y") == 0


def test_r4_of_two_jokers_of_one_colour_the_later_is_higher() -> None:
    assert winner(["r15", "J", "J"], "y1", "J:r", "J:r", "r15") == 2


def test_r4_jokers_of_different_colours_do_not_outrank_each_other() -> None:
    # the led blue Joker sets blue; the later green Joker is neither lead nor trump
    assert winner(["b2", "J", "J"], "y1", "J:b", "J:g", "b2") == 1


def test_r8_a_trick_of_only_non_joker_action_cards_goes_to_the_first_card() -> None:
    assert winner(["-5", "+5", "NT"], "y1", "+5", "NT", "-5") == 1


def test_r8_with_a_joker_present_the_joker_wins_an_action_trick() -> None:
    assert winner(["-5", "+5", "J"], "y1", "+5", "J:b", "-5") == 2


def test_an_action_card_never_beats_a_colour_card() -> None:
    assert winner(["+5", "NT", "b0"], "y1", "NT", "b0", "+5") == 2


def test_the_winner_leads_the_next_trick_and_gets_the_cards() -> None:
    state = deal(["r3 g1", "r5 g2", "r9 g3"], "y1")  # round 9
    bid_all(state, 0, 0, 0)
    play(state, "r5", "r9", "r3")
    assert state.current_seat == 2 and state.tricks_won == [0, 0, 1]
    assert sorted(c.face for c in state.won_cards[2]) == ["r3", "r5", "r9"]
    assert state.trick == [] and state.lead_colour is None and state.phase is Phase.PLAY


def test_trick_winner_helper_returns_the_winning_position() -> None:
    hand, = cards_from_faces("r5 y2 J r15")
    plays = [parse_play(t, hand) for t in ("r5", "y2", "J:r", "r15")]
    assert all(isinstance(p, Play) for p in plays)
    trick = [p for p in plays if p is not None]
    assert trick_winner(trick, Colour.YELLOW) == 1
    assert trick_winner(trick, None) == 2
    assert trick_winner(trick, Colour.RED) == 2
