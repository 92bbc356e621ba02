"""The game's account for people."""

from __future__ import annotations

from collections.abc import Sequence

from tests.third_game.high_card.rules import Event, Played


def event_line(event: Event) -> str | None:
    return f"seat {event.seat} plays {event.card}" if isinstance(event, Played) else None


def closing(names: Sequence[str], played: Sequence[int], places: Sequence[int]) -> list[str]:
    return [f"{name}: played {card}, place {place}"
            for name, card, place in zip(names, played, places)]
