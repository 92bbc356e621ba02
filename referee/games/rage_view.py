"""What one seat may see of a Rage game: the only place that decides visibility."""

from __future__ import annotations

from dataclasses import dataclass

from referee.games.rage import (BidMade, Event, HandDealt, Phase, RageState, Variant)
from referee.games.rage_cards import Card, Colour, Play

_BID_HIDING = frozenset({Variant.HIDDEN_BID, Variant.SECRET_BID})


@dataclass(frozen=True)
class RageView:
    """A seat's observation: its own hand, the public table, and the bids it may see."""

    seat: int
    players: int
    variants: frozenset[Variant]
    round_no: int
    cards: int
    dealer: int
    phase: Phase
    current_seat: int | None
    hand: tuple[Card, ...]
    trump: Colour | None
    no_trump_active: bool
    trick: tuple[tuple[int, Play], ...]
    lead_colour: Colour | None
    bids: tuple[int | None, ...]
    tricks_won: tuple[int, ...]
    totals: tuple[int, ...]
    events: tuple[Event, ...]


def _others_bids_visible(state: RageState) -> bool:
    variants = state.config.variants
    if Variant.SECRET_BID in variants:  # revealed only once the round is over
        return state.phase is Phase.OVER
    if Variant.HIDDEN_BID in variants:  # revealed once every bid is in
        return state.phase is not Phase.BID
    return True


def private_to(state: RageState, event: Event) -> int | None:
    """The one seat that may see `event`, or None if every seat may: a hand, and a bid
    while bids are hidden (the bids themselves show later, as BidsRevealed)."""
    if isinstance(event, HandDealt):
        return event.seat
    if isinstance(event, BidMade) and _BID_HIDING & state.config.variants:
        return event.seat
    return None


def visible_events(state: RageState, seat: int, since: int = 0) -> list[Event]:
    """The events from index `since` that `seat` may see (the part of view() the match
    needs after every decision, without building the rest)."""
    return [e for e in state.events_since(since) if private_to(state, e) in (None, seat)]


def view(state: RageState, seat: int, since: int = 0) -> RageView:
    """The view of `seat`, with the events from index `since` that it may see."""
    if not 0 <= seat < state.config.players:
        raise ValueError(f"seat {seat} is not at this table of {state.config.players}")
    bids_visible = _others_bids_visible(state)
    return RageView(
        seat=seat,
        players=state.config.players,
        variants=state.config.variants,
        round_no=state.round_no,
        cards=state.cards,
        dealer=state.dealer,
        phase=state.phase,
        current_seat=state.current_seat,
        hand=tuple(state.hand(seat)),
        trump=state.trump,
        no_trump_active=state.no_trump_active,
        trick=tuple(state.trick),
        lead_colour=state.lead_colour,
        bids=tuple(bid if s == seat or bids_visible else None for s, bid in enumerate(state.bids)),
        tricks_won=tuple(state.tricks_won),
        totals=tuple(state.totals()),
        events=tuple(visible_events(state, seat, since)),
    )
