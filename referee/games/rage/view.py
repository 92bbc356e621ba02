"""What one seat may see of a Rage game: the only place that decides visibility.

The match queues each engine event for the seats `private_to` allows, and nothing else
reaches a bot; so hands and hidden bids stay with their seats.
"""

from __future__ import annotations

from referee.games.rage.rules import BidMade, Event, HandDealt, RageConfig, RageState, Variant

_BID_HIDING = frozenset({Variant.HIDDEN_BID, Variant.SECRET_BID})
_HAND: frozenset[type] = frozenset({HandDealt})
_HAND_AND_BID: frozenset[type] = frozenset({HandDealt, BidMade})


def private_kinds(config: RageConfig) -> frozenset[type]:
    """The event types each seen only by the seat it names (its `seat`, a raw record's
    first field, RageState.records_since): a hand, and a bid while bids are hidden (the
    bids themselves show later, as BidsRevealed)."""
    return _HAND_AND_BID if _BID_HIDING & config.variants else _HAND


def private_to(state: RageState, event: Event) -> int | None:
    """The one seat that may see `event`, or None if every seat may (private_kinds)."""
    if type(event) in private_kinds(state.config):
        assert isinstance(event, (HandDealt, BidMade))
        return event.seat
    return None

