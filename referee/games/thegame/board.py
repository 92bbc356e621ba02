"""The Game's board for `referee view`: piles, hands, draw pile, hints and who is out at
each decision, as one seat saw it.

The engine is replayed over the logged moves; each event is folded in only if the game's
own judge (view.private_to) lets the seat see it, so another seat's hand is only its
number of cards, and a hint only if view.hint_audience has the seat hear it. The
organiser's board (seat None) sees everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.games.thegame.rules import (
    PILE_NAMES, Dealt, Drew, DrewCards, Event, GameEnded, PlayerOut, TheGameState, TurnPlayed,
)
from referee.games.thegame.view import hint_audience, private_to
from referee.matches.board import Board, State

_HERE = Path(__file__).parent
NAV = (("turn", "Turn"),)


class _Table:
    """The table as one seat (None: the organiser) has seen it so far."""

    def __init__(self, state: TheGameState, seat: int | None) -> None:
        self.state, self.seat = state, seat
        self.seen = 0
        n = state.config.players
        self.hands: list[list[int] | int] = [state.config.hand_size] * n  # dealt: public
        self.draw = state.draw_pile_size()
        self.hints: list[list[str] | None] = [None] * n  # since the last turn
        self.given, self.played = [0] * n, [0] * n
        self.out: list[int] = []
        self.last: list[list[int]] = []  # the last turn's placements: [pile, card]
        self.turns = 0
        self.end: dict[str, Any] | None = None

    def snapshot(self, move: Mapping[str, Any] | None) -> State:
        if move is not None and move["kind"] == "hint":
            self._hint(move["seat"], str(move["move"]).split()[1:])
        for event in self.state.events_since(self.seen):
            self.seen += 1
            if self.seat is None or private_to(event) in (None, self.seat):
                self._fold(event)
        return self._state(move)

    def _hint(self, speaker: int, words: list[str]) -> None:
        self.given[speaker] += len(words)
        if self._hears(speaker):
            self.hints[speaker] = words

    def _hears(self, speaker: int) -> bool:
        """Whether this seat hears `speaker`'s hints (the organiser hears all; a spectator,
        seat -1, none: a hint may say which command card a seat holds)."""
        return self.seat in (None, speaker, *hint_audience(len(self.hands), speaker))

    def _fold(self, event: Event) -> None:
        if isinstance(event, Dealt):
            self.hands[event.seat] = sorted(event.cards)
        elif isinstance(event, TurnPlayed):
            self._turn(event)
        elif isinstance(event, Drew):
            self.draw -= event.count
            hand = self.hands[event.seat]
            if isinstance(hand, int):
                self.hands[event.seat] = hand + event.count
        elif isinstance(event, DrewCards):
            hand = self.hands[event.seat]
            assert isinstance(hand, list)
            self.hands[event.seat] = sorted(hand + list(event.cards))
        elif isinstance(event, PlayerOut):
            self.out.append(event.seat)
        elif isinstance(event, GameEnded):
            self.end = {"o": event.outcome.value, "why": event.reason.value,
                        "left": event.cards_left}

    def _turn(self, event: TurnPlayed) -> None:
        self.turns += 1
        self.hints = [None] * len(self.hands)
        self.last = [[p.pile, p.card] for p in event.turn]
        self.played[event.seat] += len(event.turn)
        hand = self.hands[event.seat]
        for placement in event.turn:
            if isinstance(hand, list):
                hand.remove(placement.card)
            else:
                hand -= 1
        if isinstance(hand, int):
            self.hands[event.seat] = hand

    def _state(self, move: Mapping[str, Any] | None) -> State:
        state = self.state
        commands = state.config.commands
        tops = state.tops()  # the piles are public: every TURNED line shows them
        piles = [[top, None if commands is None or (c := commands.command_of(top)) is None
                  else c.value] for top in tops]
        result: State = {
            "p": piles, "l": [list(p) for p in self.last], "dr": self.draw,
            "h": [list(h) if isinstance(h, list) else h for h in self.hands],
            "hi": list(self.hints), "g": list(self.given), "c": list(self.played),
            "out": list(self.out), "nav": {"turn": f"Turn {self.turns + 1}"},
        }
        if self.end is not None:
            result["end"] = dict(self.end)
        if move is not None:
            result["say"] = self._say(move)
        return result

    def _say(self, move: Mapping[str, Any]) -> str:
        if move["kind"] == "hint" and not self._hears(move["seat"]):
            return "gives hints (not heard here)"
        if move["kind"] == "hint":
            return "hints " + " ".join(str(move["move"]).split()[1:])
        text = " ".join(f"{word.replace(':', ' ← ')}" for word in str(move["move"]).split())
        return f"plays {text}"


def build(state: TheGameState, moves: Sequence[Mapping[str, Any]], seat: int | None,
          apply: Callable[[Mapping[str, Any]], None],
          end: Callable[[], None]) -> Board:
    """The board before the first move, after each (`apply` plays it on `state`), and at
    the end (after `end`, which charges a fault that ended the game), as `seat` saw it."""
    table = _Table(state, seat)
    states = [table.snapshot(None)]
    commands = state.config.commands
    if commands is not None:  # printed on the cards: every seat is told (commands_audience)
        states[0]["cm"] = {str(card): command.value
                           for card, command in sorted(commands.by_number.items())}
    states[0]["pn"] = list(PILE_NAMES)
    for move in moves:
        apply(move)
        states.append(table.snapshot(move))
    end()
    states.append(table.snapshot(None))
    return Board(states, (_HERE / "board.js").read_text(), (_HERE / "board.css").read_text(),
                 NAV)
