"""Lightning commands (Stop, Skull, 3!): they bind only the active player during that turn.

docs/rules.md, "The Game Extreme" / "Commands", rulings X6, X7, X8. Default map numbers used:
Stop 39 56, Skull 42 59, 3! 45 62 (pinned in test_thegame_commands).
"""

from __future__ import annotations

from referee.games.thegame.rules import (
    Drew,
    EndReason,
    GameEnded,
    Ending,
    is_legal_turn_at,
)
from referee.games.thegame.commands import DEFAULT_COMMANDS, Command
from tests.games.thegame_support import pos, solo, t, why

STOP, STOP2 = 39, 56
SKULL, SKULL2 = 42, 59
THREE, THREE2 = 45, 62


def test_default_numbers_used_here() -> None:
    assert [DEFAULT_COMMANDS.command_of(n)
            for n in (STOP, STOP2, SKULL, SKULL2, THREE, THREE2)] == [
        Command.STOP, Command.STOP, Command.SKULL, Command.SKULL, Command.THREE, Command.THREE]


# --- Stop ---------------------------------------------------------------------------

def test_stop_as_first_card_is_a_legal_one_card_turn() -> None:
    assert is_legal_turn_at(pos([STOP, 50], draw=10), t("39a"))


def test_stop_ends_the_turn_at_once() -> None:
    assert "card #2 (50 on a): the turn already ended with a Stop" in why(pos([STOP, 50]),
                                                                          "39a 50a")


def test_stop_as_a_later_card() -> None:
    assert is_legal_turn_at(pos([20, STOP]), t("20a 39a"))


def test_stop_turn_refills_normally() -> None:
    state = solo([STOP, 50, 60, 61, 63, 64, 66, 67], [70, 72])
    state.apply_turn(t("39a"))
    assert state.events[-2] == Drew(0, 1)
    assert state.hand_counts() == (8,)


def test_lightning_cards_from_an_earlier_turn_bind_nobody() -> None:
    """A Stop, 3! or skull left showing from an earlier turn has no meaning any more."""
    position = pos([50, 60], tops=(STOP, SKULL2, THREE2, 100))
    assert position.visible_commands() == {}
    assert "at least 2" in why(position, "50a")
    assert is_legal_turn_at(position, t("60b 50c"))


# --- 3! -------------------------------------------------------------------------------

def test_three_needs_exactly_three_cards() -> None:
    position = pos([THREE, 50, 60, 70])
    assert "needs exactly 3 cards, not 1 (ruling X8)" in why(position, "45a")
    assert "needs exactly 3 cards, not 2" in why(position, "45a 50a")
    assert is_legal_turn_at(position, t("45a 50a 60a"))
    assert "card #4 (70 on a): a 3! turn has exactly 3 cards, no more" in why(
        position, "45a 50a 60a 70a")


def test_three_counts_the_cards_before_it() -> None:
    assert is_legal_turn_at(pos([20, 24, THREE]), t("20a 24a 45a"))
    assert "card #4 (45 on a): a 3! as 4th card" in why(pos([20, 24, 26, THREE, 50]),
                                                        "20a 24a 26a 45a")


def test_three_with_stop_as_third_card_is_legal() -> None:
    assert is_legal_turn_at(pos([THREE, 50, STOP2]), t("45a 50a 56a"))
    assert is_legal_turn_at(pos([20, THREE, STOP2]), t("20a 45a 56a"))


def test_stop_as_second_card_under_three_is_illegal() -> None:
    assert "card #2 (56 on a): after a 3! a Stop is allowed only as the 3rd card" in why(
        pos([THREE, STOP2, 60]), "45a 56a")


def test_seed_example_number_three_stop_draws_three() -> None:
    """Tim plays a number card, then 3!, then Stop: exactly 3 cards, and he draws 3."""
    state = solo([20, THREE, STOP2, 60, 61, 63, 64, 66], [2, 4, 5, 7])
    state.apply_turn(t("20a 45a 56a"))
    assert state.events[-2] == Drew(0, 3)


def test_x8_two_threes_still_mean_exactly_three() -> None:
    position = pos([THREE, THREE2, 70, 74])
    assert is_legal_turn_at(position, t("45a 62a 70a"))
    assert "exactly 3 cards, not 2" in why(position, "45a 62a")
    assert "a 3! turn has exactly 3 cards, no more (ruling X8)" in why(position,
                                                                       "45a 62a 70a 74a")


def test_x8_player_who_cannot_complete_three_has_no_turn_with_it() -> None:
    """Seed: with 1 or 2 cards left a 3! can be laid but not fulfilled: never legal."""
    state = solo([THREE, 50], [])
    turns = list(state.legal_turns())
    assert turns and all(THREE not in (p.card for p in turn) for turn in turns)
    state.apply_turn(t("50a"))
    assert (state.outcome, state.end_reason) == (Ending.LOST, EndReason.NO_LEGAL_TURN)
    assert state.cards_left() == 1


def test_x8_lone_three_ends_the_game() -> None:
    state = solo([THREE], [])
    assert state.is_over and state.end_reason is EndReason.NO_LEGAL_TURN


# --- Skull ----------------------------------------------------------------------------

def test_skull_must_be_covered_on_its_pile_in_the_same_turn() -> None:
    position = pos([SKULL, 50, 60], draw=0, others=3)
    assert ("the turn: a skull played this turn still shows on pile a; it must be covered "
            "on its pile in the same turn (ruling X6)") in why(position, "42a")
    assert is_legal_turn_at(position, t("42a 50a"))
    assert "still shows on pile a" in why(position, "42a 50b")


def test_skull_need_not_be_covered_immediately() -> None:
    assert is_legal_turn_at(pos([SKULL, 50, 60]), t("42a 50b 60a"))


def test_x6_skull_covered_by_a_skull_which_is_then_covered() -> None:
    position = pos([SKULL, SKULL2, 70])
    assert is_legal_turn_at(position, t("42a 59a 70a"))
    assert "still shows on pile a" in why(position, "42a 59a")
    assert "still shows on pile a" in why(position, "42a 59a 70b")
    assert "still shows on pile a, b" in why(pos([SKULL, SKULL2, 50]), "42a 59b 50c")


def test_x7_stop_may_not_leave_own_skull_uncovered() -> None:
    position = pos([SKULL, STOP, STOP2])
    assert "(ruling X7: a Stop does not excuse it)" in why(position, "42a 39b")
    assert is_legal_turn_at(position, t("42a 56a")), "the Stop itself covers the skull"


def test_three_with_skull_as_third_card_cannot_be_fulfilled() -> None:
    position = pos([THREE, 50, SKULL2, 70])
    assert "ruling X6" in why(position, "45a 50a 59a")
    assert "no more (ruling X8)" in why(position, "45a 50a 59a 70a")
    assert is_legal_turn_at(pos([THREE, SKULL, 50]), t("45b 42a 50a"))


def test_skull_may_show_only_after_the_games_last_card() -> None:
    assert is_legal_turn_at(pos([SKULL], draw=0, others=0), t("42a"))
    assert "ruling X6" in why(pos([SKULL], draw=0, others=1), "42a")
    assert "ruling X6" in why(pos([SKULL, 50], draw=0, others=0), "42a")


def test_skull_left_showing_on_the_last_turn_loses_with_all_98_down() -> None:
    """Seed: all 98 cards down but a skull from the very last turn shows: the game is lost."""
    piles = [list(range(2, 42)), list(range(43, 71)), list(range(99, 70, -1)), []]
    state = solo([SKULL], [], piles)
    state.apply_turn(t("42a"))
    assert sum(len(p) for p in state.piles) == 98
    assert (state.outcome, state.end_reason) == (Ending.LOST, EndReason.SKULL_SHOWING)
    assert state.cards_left() == 0
    assert state.events[-1] == GameEnded(Ending.LOST, EndReason.SKULL_SHOWING, 0)


def test_covering_the_last_skull_wins() -> None:
    piles = [list(range(2, 42)), list(range(44, 71)), list(range(99, 70, -1)), []]
    state = solo([SKULL, 43], [], piles)
    state.apply_turn(t("42a 43a"))
    assert (state.outcome, state.end_reason) == (Ending.WON, EndReason.ALL_PLAYED)
