"""Infinity commands (no talking, no reverse, one pile, draw one): they bind every active
player while they show on top of a pile; covered, they are dead.

docs/rules.md, "The Game Extreme" / "Commands", rulings X2, X3, X5. Default map numbers used:
no talking 27, no reverse 15 30, one pile 18 33, draw one 21 36, Stop 39.
"""

from __future__ import annotations

from referee.games.thegame.rules import (
    Drew,
    EndReason,
    Ending,
    is_legal_turn_at,
)
from referee.games.thegame.commands import DEFAULT_COMMANDS, Command
from tests.games.thegame_support import deal, pos, solo, t, why

NO_TALKING = 27
NO_REVERSE, NO_REVERSE2 = 15, 30
ONE_PILE, ONE_PILE2 = 18, 33
DRAW_ONE, DRAW_ONE2 = 21, 36
STOP = 39
HAND = [50, 60, 70, 72, 73, 74, 75, 76]


def test_default_numbers_used_here() -> None:
    assert [DEFAULT_COMMANDS.command_of(n) for n in (
        NO_TALKING, NO_REVERSE, NO_REVERSE2, ONE_PILE, ONE_PILE2, DRAW_ONE, DRAW_ONE2)] == [
        Command.NO_TALKING, Command.NO_REVERSE, Command.NO_REVERSE, Command.ONE_PILE,
        Command.ONE_PILE, Command.DRAW_ONE, Command.DRAW_ONE]


def test_visible_commands_are_the_infinity_ones_on_top() -> None:
    state = solo(HAND, [2, 4], [[STOP], [NO_REVERSE], [95], [DRAW_ONE]])
    assert state.visible_commands() == {1: Command.NO_REVERSE, 3: Command.DRAW_ONE}
    assert state.command_on(0) is Command.STOP
    assert state.position().visible_commands() == state.visible_commands()


# --- no talking -------------------------------------------------------------------------

def test_no_talking_while_it_shows_and_talk_again_once_covered() -> None:
    state = solo(HAND, [2, 4, 5, 7], [[NO_TALKING], [], [], []])
    assert not state.talking_allowed()
    state.apply_turn(t("50b 60b"))
    assert not state.talking_allowed(), "no talking does not restrict the turn itself"
    state.apply_turn(t("70a 72a"))
    assert state.talking_allowed()


def test_talking_allowed_without_commands() -> None:
    state = deal([HAND], [2], [[NO_TALKING], [], [], []], commands=None)
    assert state.talking_allowed() and state.visible_commands() == {}


# --- no reverse -------------------------------------------------------------------------

def test_no_reverse_trick_on_any_pile_while_it_shows() -> None:
    message = why(pos([40, 60], tops=(NO_REVERSE, 50, 100, 100)), "40b 60b")
    assert "card #1 (40 on b): no reverse trick while a no-reverse card shows" in message
    assert is_legal_turn_at(pos([40, 60], tops=(14, 50, 100, 100)), t("40b 60b"))


def test_x2_card_covering_no_reverse_may_not_be_a_reverse_trick() -> None:
    message = why(pos([20, 50], tops=(NO_REVERSE2, 1, 100, 100)), "20a 50b")
    assert "card #1 (20 on a)" in message and "(ruling X2)" in message


def test_x2_once_covered_no_reverse_is_dead() -> None:
    assert is_legal_turn_at(pos([32, 22], tops=(NO_REVERSE2, 1, 100, 100)), t("32a 22a"))


def test_x2_no_reverse_binds_from_the_moment_it_is_played() -> None:
    assert "card #2 (5 on a): no reverse trick" in why(pos([NO_REVERSE, 5]), "15a 5a")
    assert is_legal_turn_at(pos([10, NO_REVERSE], tops=(20, 1, 100, 100)), t("10a 15a"))


# --- one pile ---------------------------------------------------------------------------

def test_one_pile_all_cards_on_one_pile_of_the_players_choice() -> None:
    position = pos([50, 60, 70], tops=(ONE_PILE, 1, 100, 100))
    assert is_legal_turn_at(position, t("50b 60b 70b"))
    assert is_legal_turn_at(position, t("50a 60a"))
    assert ("card #2 (60 on c): a one-pile card shows, so this card must follow the card "
            "before it on pile b (ruling X3)") in why(position, "50b 60c")


def test_x3_one_pile_appearing_mid_turn_binds_the_later_cards() -> None:
    position = pos([20, ONE_PILE2, 40, 90])
    assert is_legal_turn_at(position, t("20a 90c 33a 40a"))
    assert "card #4 (40 on b)" in why(position, "20a 90c 33a 40b")


def test_x2_covered_one_pile_binds_no_later_card() -> None:
    """Rulings X2/X3 read together: each card is checked against the commands visible just
    before it, so once the one-pile card is covered the next card may change piles."""
    position = pos([20, 50], tops=(ONE_PILE, 1, 100, 100))
    assert is_legal_turn_at(position, t("20a 50b"))
    assert "(ruling X3)" in why(pos([20, 50], tops=(ONE_PILE, 19, 100, 100)), "20b 50c")


# --- draw one ---------------------------------------------------------------------------

def test_draw_one_showing_after_the_turn_draws_exactly_one() -> None:
    state = solo(HAND, [2, 4, 5, 7], [[DRAW_ONE], [], [], []])
    state.apply_turn(t("50b 60b 70b"))
    assert state.events[-2] == Drew(0, 1)
    assert state.hand_counts() == (6,)


def test_draw_one_played_this_turn_binds_its_player() -> None:
    state = solo([20, DRAW_ONE2, *HAND[2:]], [2, 4, 5, 7])
    state.apply_turn(t("20a 36a"))
    assert state.events[-2] == Drew(0, 1)


def test_draw_one_covered_then_full_refill() -> None:
    state = solo([20, DRAW_ONE2, *HAND[2:]], [2, 4, 5, 7, 8, 10])
    state.apply_turn(t("20a 36a"))
    assert state.hand_counts() == (7,)
    state.apply_turn(t("70a 72a"))
    assert state.events[-2] == Drew(0, 3)
    assert state.hand_counts() == (8,)


def test_draw_one_covered_in_the_same_turn_refills_fully() -> None:
    state = solo(HAND, [2, 4, 5, 7], [[DRAW_ONE], [], [], []])
    state.apply_turn(t("50a 60a"))
    assert state.events[-2] == Drew(0, 2)


def test_x5_short_hand_without_stop_has_no_legal_turn() -> None:
    """Ruling X5: below the minimum with cards still to draw, only an opening Stop helps."""
    state = solo([50], [60])
    assert (state.outcome, state.end_reason) == (Ending.LOST, EndReason.NO_LEGAL_TURN)
    assert "ruling X5" in why(pos([50], draw=1), "50a")


def test_x5_short_hand_may_open_with_a_stop() -> None:
    state = solo([STOP], [60])
    assert not state.is_over
    assert state.find_legal_turn() is not None
    state.apply_turn(t("39a"))
    assert state.hands == [[60]]


def test_x5_draw_one_shrinks_the_hand_until_the_game_ends() -> None:
    state = solo([50, 60], [70, 80], [[DRAW_ONE], [], [], []])
    state.apply_turn(t("50b 60b"))
    assert state.hands == [[70]] and state.draw_pile == [80]
    assert (state.outcome, state.end_reason) == (Ending.LOST, EndReason.NO_LEGAL_TURN)
    assert state.cards_left() == 2
