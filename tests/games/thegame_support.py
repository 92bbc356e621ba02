"""Shared helpers of The Game engine tests: turns written as text, positions, explicit deals."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from referee.errors import RuleError
from referee.games.thegame.rules import (
    PILE_NAMES,
    Placement,
    Position,
    TheGameConfig,
    TheGameState,
    Turn,
    check_turn_at,
)
from referee.games.thegame.commands import DEFAULT_COMMANDS, CommandMap


def t(text: str) -> Turn:
    """'50a 60b' -> a turn: each word is a card, then the letter of its pile."""
    return tuple(Placement(PILE_NAMES.index(w[-1]), int(w[:-1])) for w in text.split())


def pos(hand: Sequence[int], tops: tuple[int, ...] = (1, 1, 100, 100), draw: int = 10,
        others: int = 0, commands: CommandMap | None = DEFAULT_COMMANDS) -> Position:
    """The active player's position: `others` cards in the other hands (0 makes this turn
    possibly the game's last), the default commands unless told otherwise."""
    return Position(tops=tops, hand=tuple(hand), draw_pile_size=draw, players=1,
                    commands=commands, others_cards=others)


def why(position: Position, text: str) -> str:
    """The reason the turn `text` is refused (the test fails if it is legal)."""
    with pytest.raises(RuleError) as info:
        check_turn_at(position, t(text))
    return str(info.value)


def deal(hands: Sequence[Sequence[int]], draw: Sequence[int],
         piles: Sequence[Sequence[int]] | None = None, *, current: int = 0,
         commands: CommandMap | None = DEFAULT_COMMANDS) -> TheGameState:
    """A game from an explicit deal, one hand per player: the draw pile top card first,
    the piles bottom card first without their row cards."""
    return TheGameState.from_deal(TheGameConfig(len(hands), commands), hands, draw, piles,
                                  current)


def solo(hand: Sequence[int], draw: Sequence[int],
         piles: Sequence[Sequence[int]] | None = None) -> TheGameState:
    """A one-player game with the default commands."""
    return deal([hand], draw, piles)
