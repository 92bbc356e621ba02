"""What one seat may see of a game of The Game: the single place that decides visibility."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from referee.games.thegame import (
    PRIVATE_EVENTS,
    EndReason,
    Event,
    Outcome,
    Position,
    TheGameState,
)
from referee.games.thegame_commands import Command, CommandMap


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
    outcome: Outcome | None
    end_reason: EndReason | None
    events: tuple[Event, ...]  # from `since` on, private ones only for this seat
    next_event: int  # pass as `since` next time to get only new events
    command_map: CommandMap | None  # public: the commands are printed on the cards

    def position(self) -> Position:
        """This seat's Position for the pure turn rules (meaningful on its own turn)."""
        others = sum(self.hand_counts) - self.hand_counts[self.seat]
        return Position(tops=self.tops, hand=self.hand, draw_pile_size=self.draw_pile_size,
                        players=self.players, commands=self.command_map, others_cards=others)


def view(state: TheGameState, seat: int, since: int = 0) -> TheGameView:
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


def private_to(event: Event) -> int | None:
    """The one seat that may see `event` (its own cards), or None if every seat may."""
    return event.seat if isinstance(event, PRIVATE_EVENTS) else None


def _may_see(event: Event, seat: int) -> bool:
    return private_to(event) in (None, seat)
