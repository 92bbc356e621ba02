"""Who sees what: a hand only its seat, every played card everyone."""

from __future__ import annotations

from tests.third_game.high_card.rules import Dealt, Event


def private_to(event: Event) -> int | None:
    """The one seat that may see `event`, or None if every seat may."""
    return event.seat if isinstance(event, Dealt) else None
