"""What a seat sees of The Game: its own hand, public facts, its own private events."""

from __future__ import annotations

import pytest

from referee.games.thegame.rules import (
    Dealt,
    Drew,
    DrewCards,
    EndReason,
    GameEnded,
    Ending,
    Placement,
    TheGameConfig,
    TheGameState,
    TurnPlayed,
)
from referee.games.thegame.commands import DEFAULT_COMMANDS, Command
from tests.games.views import thegame_view as view


def _three_players() -> TheGameState:
    hands = [[50, 60, 70, 72, 73, 74], [2, 4, 5, 7, 8, 10], [90, 91, 93, 94, 96, 97]]
    return TheGameState.from_deal(TheGameConfig(3), hands, [11, 13, 14, 16],
                                  [[], [27], [], []])


def test_view_shows_own_hand_and_public_facts() -> None:
    state = _three_players()
    seen = view(state, 1)
    assert (seen.seat, seen.players, seen.hand) == (1, 3, (2, 4, 5, 7, 8, 10))
    assert seen.hand_counts == (6, 6, 6)
    assert seen.tops == (1, 27, 100, 100)
    assert dict(seen.visible_commands) == {1: Command.NO_TALKING}
    assert not seen.talking_allowed
    assert (seen.draw_pile_size, seen.current_seat, seen.min_cards) == (4, 0, 2)
    assert (seen.is_over, seen.outcome, seen.end_reason) == (False, None, None)
    assert seen.command_map is DEFAULT_COMMANDS


def test_view_deals_only_own_hand() -> None:
    state = _three_players()
    dealt = [e for e in view(state, 2).events if isinstance(e, Dealt)]
    assert dealt == [Dealt(2, (90, 91, 93, 94, 96, 97))]


def test_drawn_cards_are_private_and_the_count_public() -> None:
    state = _three_players()
    state.apply_turn((Placement(0, 50), Placement(0, 60)))
    mine = view(state, 0).events[-3:]
    theirs = view(state, 1).events[-2:]
    assert mine == (TurnPlayed(0, (Placement(0, 50), Placement(0, 60))), Drew(0, 2),
                    DrewCards(0, (11, 13)))
    assert theirs == (TurnPlayed(0, (Placement(0, 50), Placement(0, 60))), Drew(0, 2))
    assert not any(isinstance(e, DrewCards) for e in view(state, 1).events)


def test_since_returns_only_new_events() -> None:
    state = _three_players()
    first = view(state, 1)
    assert first.next_event == 3
    state.apply_turn((Placement(0, 50), Placement(0, 60)))
    later = view(state, 1, since=first.next_event)
    assert later.events == (TurnPlayed(0, (Placement(0, 50), Placement(0, 60))), Drew(0, 2))
    assert later.next_event == 6


def test_view_position_matches_the_referees() -> None:
    state = _three_players()
    state.apply_turn((Placement(0, 50), Placement(0, 60)))
    assert view(state, 1).position() == state.position()


def test_view_of_a_finished_game() -> None:
    state = _three_players()
    state.record_fault(2)
    seen = view(state, 0)
    assert (seen.is_over, seen.outcome, seen.end_reason) == (True, Ending.LOST,
                                                             EndReason.FAULT)
    assert seen.events[-1] == GameEnded(Ending.LOST, EndReason.FAULT, 22)


def test_view_is_immutable() -> None:
    seen = view(_three_players(), 0)
    with pytest.raises(TypeError):
        seen.visible_commands[0] = Command.STOP  # type: ignore[index]


def test_view_needs_a_real_seat() -> None:
    with pytest.raises(ValueError, match="no seat 3"):
        view(_three_players(), 3)
