"""The base game (The Game): deal, placing, the turn, refill, drop-out, end, score, faults.

Rules from docs/rules.md, "The Game Extreme" / "The base game", rulings X1, X9, X10.
"""

from __future__ import annotations

import pytest

from referee.errors import ConfigError, RuleError
from referee.games.thegame.rules import (
    PILE_NAMES,
    Dealt,
    Drew,
    DrewCards,
    EndReason,
    GameEnded,
    Ending,
    Placement,
    PlayerOut,
    TheGameConfig,
    TheGameState,
    TurnPlayed,
    check_turn_at,
    is_legal_turn_at,
)
from tests.games.thegame_support import deal, pos, t, why

BASE = TheGameConfig(players=1, commands=None)


def test_four_piles_start_with_their_row_cards() -> None:
    state = TheGameState.new_game(TheGameConfig(1), seed=1)
    assert PILE_NAMES == ("a", "b", "c", "d")
    assert state.tops() == (1, 1, 100, 100)
    assert [state.top(p) for p in range(4)] == [1, 1, 100, 100]
    assert state.piles == [[], [], [], []]


@pytest.mark.parametrize(("pile", "tops", "onward", "back", "refused", "reason"), [
    ("a", (45, 1, 100, 100), 50, 35, (44, 40),
     "pile a ascends from 45: play higher than 45, or exactly 35 (reverse trick)"),
    ("c", (1, 1, 45, 100), 40, 55, (46, 50),
     "pile c descends from 45: play lower than 45, or exactly 55 (reverse trick)"),
])
def test_a_pile_takes_a_card_onward_or_exactly_ten_back(
        pile: str, tops: tuple[int, ...], onward: int, back: int, refused: tuple[int, ...],
        reason: str) -> None:
    """Ascending piles take higher cards or exactly 10 lower; descending ones the mirror."""
    position = pos([onward, back, *refused], tops=tops, draw=0, others=5)
    assert is_legal_turn_at(position, t(f"{onward}{pile}"))
    assert is_legal_turn_at(position, t(f"{back}{pile}"))
    for card in refused:
        assert why(position, f"{card}{pile}") == f"card #1 ({card} on {pile}): {reason}"


def test_reverse_tricks_any_number_of_times_on_any_piles() -> None:
    position = pos([40, 30, 50, 60], tops=(50, 1, 40, 100), commands=None)
    assert is_legal_turn_at(position, t("40a 30a 50c 60c"))


def test_at_least_two_cards_while_the_draw_pile_has_cards() -> None:
    position = pos([50, 60], draw=5)
    assert position.min_cards == 2
    assert "1 card played, at least 2 are needed" in why(position, "50a")
    assert is_legal_turn_at(position, t("50a 60a"))


def test_at_least_one_card_once_the_draw_pile_is_empty() -> None:
    position = pos([50, 60], draw=0, others=3)
    assert position.min_cards == 1
    assert is_legal_turn_at(position, t("50a"))


def test_playing_more_is_always_allowed() -> None:
    assert is_legal_turn_at(pos([20, 24, 26, 28, 31]), t("20a 24a 26a 28a 31a"))


def test_card_must_be_in_hand_and_played_once() -> None:
    position = pos([50, 60])
    assert "card #2 (70 on a): that card is not in the hand" in why(position, "50a 70a")
    assert "not in the hand (or was already played" in why(position, "50a 50b")


def test_no_such_pile_and_empty_turn() -> None:
    position = pos([50, 60])
    with pytest.raises(RuleError, match="no such pile"):
        check_turn_at(position, (Placement(4, 50), Placement(0, 60)))
    with pytest.raises(RuleError, match="at least one card"):
        check_turn_at(position, ())


def test_without_commands_command_numbers_are_plain_cards() -> None:
    """--no-commands: 39 (a Stop in the default map) is a plain card, so no 1-card turn."""
    assert is_legal_turn_at(pos([39, 50]), t("39a"))
    assert "at least 2" in why(pos([39, 50], commands=None), "39a")


@pytest.mark.parametrize(("players", "size"), [(1, 8), (2, 7), (3, 6), (4, 6), (5, 6)])
def test_hand_sizes(players: int, size: int) -> None:
    state = TheGameState.new_game(TheGameConfig(players), seed=7)
    assert TheGameConfig(players).hand_size == size
    assert state.hand_counts() == (size,) * players
    assert len(state.draw_pile) == 98 - size * players


@pytest.mark.parametrize("players", [0, 6, -1])
def test_one_to_five_players(players: int) -> None:
    with pytest.raises(ConfigError, match="1 to 5 players"):
        TheGameConfig(players)


def test_deal_uses_every_card_once_and_is_deterministic() -> None:
    state = TheGameState.new_game(TheGameConfig(4), seed=123)
    cards = [c for hand in state.hands for c in hand] + state.draw_pile
    assert sorted(cards) == list(range(2, 100))
    again = TheGameState.new_game(TheGameConfig(4), seed=123)
    assert (again.hands, again.draw_pile) == (state.hands, state.draw_pile)
    other = TheGameState.new_game(TheGameConfig(4), seed=124)
    assert other.hands != state.hands


def test_deal_events_are_one_dealt_per_seat() -> None:
    state = TheGameState.new_game(TheGameConfig(3), seed=5)
    assert state.events == tuple(Dealt(s, tuple(state.hands[s])) for s in range(3))


def test_refill_to_hand_size_from_the_top_of_the_draw_pile() -> None:
    state = deal([[10, 20, 30, 40, 50, 60, 70, 80]], [2, 3, 4, 5], commands=None)
    state.apply_turn(t("10a 20a"))
    assert state.hands == [[2, 3, 30, 40, 50, 60, 70, 80]]
    assert state.draw_pile == [4, 5]
    assert state.events[-3:] == (TurnPlayed(0, t("10a 20a")), Drew(0, 2), DrewCards(0, (2, 3)))
    assert state.piles == [[10, 20], [], [], []]


def test_refill_takes_what_is_left_of_the_draw_pile() -> None:
    state = deal([[10, 20, 30, 40, 50, 60, 70, 80]], [2], commands=None)
    state.apply_turn(t("10a 20a 30a"))
    assert state.hand_counts() == (6,)
    assert state.draw_pile == []
    assert state.min_cards() == 1


def test_x10_seat_0_starts_and_play_goes_clockwise() -> None:
    """Ruling X10: seat 0 takes the first turn; then seat 1, 2, back to 0."""
    state = TheGameState.new_game(TheGameConfig(3, None), seed=3)
    assert state.current_seat == 0
    seats = []
    for _ in range(4):
        seats.append(state.current_seat)
        turn = state.find_legal_turn()
        assert turn is not None
        state.apply_turn(turn)
    assert seats == [0, 1, 2, 0]


def test_empty_hand_with_empty_draw_pile_drops_out() -> None:
    state = deal([[50], [60, 61], [70, 71]], [], commands=None)
    state.apply_turn(t("50a"))
    assert PlayerOut(0) in state.events
    assert state.current_seat == 1
    state.apply_turn(t("60a"))
    state.apply_turn(t("70a"))
    assert state.current_seat == 1, "seat 0 is out and skipped"
    assert state.cards_played_by == [1, 1, 1]
    assert not state.is_over


def test_game_ends_when_the_active_player_has_no_legal_turn() -> None:
    """Ruling X1: the referee finds that seat 1 cannot play; a normal loss, not a fault."""
    state = deal([[99, 50], [60, 70]], [], piles=[[97], [98], [4], [5]], commands=None)
    assert not state.is_over
    state.apply_turn(t("99a"))
    assert state.is_over
    assert (state.outcome, state.end_reason) == (Ending.LOST, EndReason.NO_LEGAL_TURN)
    assert state.current_seat == 1
    assert state.fault_seat is None
    assert state.events[-1] == GameEnded(Ending.LOST, EndReason.NO_LEGAL_TURN, 3)


def test_from_deal_ends_at_once_if_the_first_player_cannot_play() -> None:
    state = deal([[60, 70]], [], piles=[[97], [98], [4], [5]], commands=None)
    assert state.is_over and state.end_reason is EndReason.NO_LEGAL_TURN
    assert not state.has_legal_turn()
    assert state.find_legal_turn() is None
    assert list(state.legal_turns()) == []


def test_x9_score_after_a_loss_counts_hands_and_draw_pile() -> None:
    """Ruling X9: cards not played at that moment, flagged lost."""
    state = deal([[60], [50, 51]], [70, 80], commands=None)
    assert state.is_over and state.outcome is Ending.LOST
    assert state.cards_left() == 5
    assert state.events[-1] == GameEnded(Ending.LOST, EndReason.NO_LEGAL_TURN, 5)


def test_all_cards_played_wins_with_score_zero() -> None:
    state = deal([[50]], [], commands=None)
    state.apply_turn(t("50a"))
    assert (state.outcome, state.end_reason) == (Ending.WON, EndReason.ALL_PLAYED)
    assert state.cards_left() == 0
    assert state.events[-2:] == (PlayerOut(0), GameEnded(Ending.WON, EndReason.ALL_PLAYED, 0))


def test_x1_illegal_turn_is_refused_and_changes_nothing() -> None:
    """Ruling X1: a rule-breaking turn raises RuleError; the match turns it into a fault."""
    state = TheGameState.new_game(TheGameConfig(2), seed=11)
    before = (state.hands, state.draw_pile, state.piles, state.events, state.current_seat)
    card = state.hands[0][0]
    with pytest.raises(RuleError, match="at least 2"):
        state.apply_turn((Placement(0, card),))
    assert (state.hands, state.draw_pile, state.piles, state.events,
            state.current_seat) == before


def test_x1_record_fault_ends_the_game_lost() -> None:
    """Ruling X1: the game ends there, counted as lost, the fault charged to that seat."""
    state = TheGameState.new_game(TheGameConfig(2), seed=11)
    state.record_fault(1)
    assert (state.outcome, state.end_reason, state.fault_seat) == (
        Ending.LOST, EndReason.FAULT, 1)
    assert state.events[-1] == GameEnded(Ending.LOST, EndReason.FAULT, 98)
    with pytest.raises(RuleError, match="over"):
        state.apply_turn(t("50a 60a"))
    with pytest.raises(RuleError, match="over"):
        state.record_fault(0)


def test_record_fault_needs_a_real_seat() -> None:
    with pytest.raises(RuleError, match="no seat 2"):
        TheGameState.new_game(TheGameConfig(2), seed=1).record_fault(2)


def test_x1_referee_finds_a_witness_turn() -> None:
    state = TheGameState.new_game(TheGameConfig(4), seed=99)
    turn = state.find_legal_turn()
    assert turn is not None and state.has_legal_turn()
    state.check_turn(turn)


@pytest.mark.parametrize(("hands", "draw", "piles", "current", "message"), [
    ([[50, 51]], [51], None, 0, "appears twice"),
    ([[50, 100]], [], None, 0, "card 100 is not a number card"),
    ([[50], [60]], [], None, 0, "2 hands given for 1 players"),
    ([[50]], [], [[2], [], []], 0, "3 piles given"),
    ([[50]], [], None, 1, "seat 1 cannot be the active seat"),
])
def test_from_deal_rejects_nonsense(hands: list[list[int]], draw: list[int],
                                    piles: list[list[int]] | None, current: int,
                                    message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TheGameState.from_deal(BASE, hands, draw, piles, current)
