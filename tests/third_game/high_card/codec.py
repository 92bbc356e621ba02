"""The wire: GAME, HAND, PLAY? and PLAYED lines out, a card number back."""

from __future__ import annotations

from collections.abc import Sequence

from protocols.wire import WireError, ascii_number
from tests.third_game.high_card.rules import Dealt, Event


def game_line(seat: int, players: int) -> str:
    return f"GAME high-card seat {seat} players {players}"


def encode(event: Event) -> str:
    if isinstance(event, Dealt):
        return "HAND " + " ".join(map(str, event.hand))
    return f"PLAYED {event.seat} {event.card}"


def play_request(hand: Sequence[int]) -> str:
    return "PLAY? " + " ".join(map(str, hand))


def end_line(places: Sequence[int]) -> str:
    return "END " + " ".join(map(str, places))


def parse_card(reply: str) -> int:
    """The card a reply names; WireError for anything but a number (the engine judges
    whether it may be played)."""
    card = ascii_number(reply, 2)
    if card is None:
        raise WireError(f"expected a card number, got {reply[:40]!r}")
    return card
