"""What one seat may see of a Rage game: the only place that decides visibility.

The match queues each engine event for the seats `private_to` allows, and nothing else
reaches a bot; so hands and hidden bids stay with their seats.
"""

from __future__ import annotations

from referee.games.rage import BidMade, Event, HandDealt, RageConfig, RageState, Variant

_BID_HIDING = frozenset({Variant.HIDDEN_BID, Variant.SECRET_BID})


def private_to(state: RageState, event: Event) -> int | None:
    """The one seat that may see `event`, or None if every seat may: a hand, and a bid
    while bids are hidden (the bids themselves show later, as BidsRevealed)."""
    if isinstance(event, HandDealt):
        return event.seat
    if isinstance(event, BidMade) and _BID_HIDING & state.config.variants:
        return event.seat
    return None


def private_kinds(config: RageConfig) -> frozenset[type]:
    """private_to for raw records (RageState.records_since): the event types whose
    record each goes only to the seat it names first (HandDealt's and BidMade's seat)."""
    if _BID_HIDING & config.variants:
        return frozenset({HandDealt, BidMade})
    return frozenset({HandDealt})
