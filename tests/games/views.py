"""Test oracles: a seat's whole view of a game, built from the engine state and the
production visibility rules (referee/games/*_view.py). The referee itself needs only
those rules; the tests use these views to check that no hidden card leaks, and the
sample-bot tests to drive bots without a referee.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from referee.games.rage.rules import Event as RageEvent, Phase, RageState, Variant
from referee.games.rage.cards import Card, Colour, Play
from referee.games.rage.view import private_to as rage_private_to
from referee.games.thegame.rules import (
    EndReason, Event, Ending, Position, TheGameState,
)
from referee.games.thegame.commands import Command, CommandMap
from referee.games.thegame.view import private_to


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
    events: tuple[RageEvent, ...]


def _others_bids_visible(state: RageState) -> bool:
    variants = state.config.variants
    if Variant.SECRET_BID in variants:  # revealed only once the round is over
        return state.phase is Phase.OVER
    if Variant.HIDDEN_BID in variants:  # revealed once every bid is in
        return state.phase is not Phase.BID
    return True


def visible_events(state: RageState, seat: int, since: int = 0) -> list[RageEvent]:
    """The events from index `since` that `seat` may see (the part of view() the match
    needs after every decision, without building the rest)."""
    return [e for e in state.events_since(since) if rage_private_to(state, e) in (None, seat)]


def rage_view(state: RageState, seat: int, since: int = 0) -> RageView:
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


@dataclass(frozen=True)
class TheGameView:
    """One seat's knowledge: its own hand, public facts, and the events meant for it."""

    seat: int
    players: int
    hand: tuple[int, ...]
    tops: tuple[int, ...]
    visible_commands: Mapping[int, Command]  # pile -> binding (infinity) command on top
    draw_pile_size: int
    hand_counts: tuple[int, ...]
    current_seat: int
    min_cards: int
    talking_allowed: bool
    is_over: bool
    outcome: Ending | None
    end_reason: EndReason | None
    events: tuple[Event, ...]  # from `since` on, private ones only for this seat
    next_event: int  # pass as `since` next time to get only new events
    command_map: CommandMap | None  # public: the commands are printed on the cards

    def position(self) -> Position:
        """This seat's Position for the pure turn rules (meaningful on its own turn)."""
        others = sum(self.hand_counts) - self.hand_counts[self.seat]
        return Position(tops=self.tops, hand=self.hand, draw_pile_size=self.draw_pile_size,
                        players=self.players, commands=self.command_map, others_cards=others)


def thegame_view(state: TheGameState, seat: int, since: int = 0) -> TheGameView:
    """Build what `seat` may see; events from index `since`, others' private ones removed."""
    if not 0 <= seat < state.config.players:
        raise ValueError(f"no seat {seat} in a {state.config.players}-player game")
    return TheGameView(
        seat=seat,
        players=state.config.players,
        hand=state.hand_of(seat),
        tops=state.tops(),
        visible_commands=MappingProxyType(state.visible_commands()),
        draw_pile_size=state.draw_pile_size(),
        hand_counts=state.hand_counts(),
        current_seat=state.current_seat,
        min_cards=state.min_cards(),
        talking_allowed=state.talking_allowed(),
        is_over=state.is_over,
        outcome=state.outcome,
        end_reason=state.end_reason,
        events=tuple(e for e in state.events_since(since) if _may_see(e, seat)),
        next_event=state.event_count(),
        command_map=state.config.commands,
    )


def _may_see(event: Event, seat: int) -> bool:
    return private_to(event) in (None, seat)
