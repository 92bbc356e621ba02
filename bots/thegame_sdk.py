"""The Game Extreme for Python bots: state tracking from the referee's lines, legal turns.

Subclass TheGameBot and implement `choose_turn` (and `choose_hints` to talk); the tracker
keeps `self.game` up to date from every line the referee sends. The legal-move helpers
run the engine's own Position functions, so a bot judges turns exactly as the referee does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Callable

from protocols import thegame as codec
from protocols.thegame import Hint, HintKind
from protocols.wire import WireError, parse_key_values
from referee.games.thegame import (
    ASCENDING_START,
    DESCENDING_START,
    PILE_COUNT,
    PILE_NAMES,
    EndReason,
    Placement,
    Position,
    Turn,
    find_legal_turn_at,
    hand_size_for,
    is_ascending,
    is_legal_turn_at,
    legal_turns_at,
    min_cards_for,
    shortest_legal_turns_at,
)
from referee.games.thegame_commands import (
    HIGHEST_CARD,
    LOWEST_CARD,
    Command,
    CommandMap,
)

ALL_CARDS = frozenset(range(LOWEST_CARD, HIGHEST_CARD + 1))


def starting_tops() -> list[int]:
    """Row cards: 1 on the ascending piles, 100 on the descending ones."""
    return [ASCENDING_START if is_ascending(p) else DESCENDING_START for p in range(PILE_COUNT)]


@dataclass(frozen=True)
class TurnRequest:
    """A `TURN?` line: the minimum cards, the draw pile size and the pile tops."""

    min_cards: int
    draw_pile: int
    tops: tuple[int, ...]


@dataclass(frozen=True)
class GameEnd:
    """An `END` line: the team's result."""

    won: bool
    reason: EndReason
    cards_left: int


@dataclass
class TheGameKnowledge:
    """What one seat knows, rebuilt from the lines it received."""

    seat: int = 0
    players: int = 1
    hand_size: int = hand_size_for(1)
    commands: CommandMap | None = None
    hand: list[int] = field(default_factory=list)  # ascending
    tops: list[int] = field(default_factory=starting_tops)
    draw_pile_size: int = 0
    hand_counts: list[int] = field(default_factory=list)
    out: set[int] = field(default_factory=set)
    played: set[int] = field(default_factory=set)  # every card on a pile
    hints: dict[int, tuple[Hint, ...]] = field(default_factory=dict)  # since the last turn
    last_turn_seat: int | None = None
    turns: int = 0
    end: GameEnd | None = None

    @property
    def min_cards(self) -> int:
        """2 while the draw pile has cards, else 1."""
        return min_cards_for(self.draw_pile_size)

    @property
    def active_seat(self) -> int:
        """The seat whose turn comes next: seat 0 first (ruling X10), then clockwise."""
        if self.last_turn_seat is None:
            return 0
        for step in range(1, self.players + 1):
            seat = (self.last_turn_seat + step) % self.players
            if self.hand_counts[seat] > 0:
                return seat
        return self.last_turn_seat

    def command_on(self, pile: int) -> Command | None:
        """The command on a pile's top card, binding or not."""
        return None if self.commands is None else self.commands.command_of(self.tops[pile])

    def visible_commands(self) -> dict[int, Command]:
        """Pile -> infinity command showing on top: the ones binding every active player."""
        return self.position().visible_commands()

    @property
    def talking_allowed(self) -> bool:
        """False while a no-talking card shows."""
        return Command.NO_TALKING not in self.visible_commands().values()

    def unplayed(self) -> frozenset[int]:
        """Cards not on any pile yet: in some hand or in the draw pile."""
        return ALL_CARDS - self.played

    def unseen(self) -> frozenset[int]:
        """Unplayed cards this seat does not hold: in other hands or the draw pile."""
        return self.unplayed() - set(self.hand)

    def hints_about(self, pile: int) -> set[HintKind]:
        """Which kinds of pile hint teammates gave about `pile` before the coming turn."""
        name = PILE_NAMES[pile]
        return {h.kind for seat, hints in self.hints.items() if seat != self.seat
                for h in hints if h.subject == name}

    def position(self) -> Position:
        """This seat's Position for the engine's turn rules (meaningful on its own turn)."""
        others = sum(self.hand_counts) - self.hand_counts[self.seat] if self.hand_counts else 0
        return Position(tops=tuple(self.tops), hand=tuple(self.hand),
                        draw_pile_size=self.draw_pile_size, players=self.players,
                        commands=self.commands, others_cards=others)

    def legal_turns(self, max_cards: int | None = None) -> Iterator[Turn]:
        """Every legal turn of at most `max_cards` cards (the referee's own code)."""
        return legal_turns_at(self.position(), max_cards)

    def shortest_legal_turns(self) -> list[Turn]:
        """All legal turns of the smallest length that has any."""
        return shortest_legal_turns_at(self.position())

    def find_legal_turn(self) -> Turn | None:
        """One legal turn, or None if there is none."""
        return find_legal_turn_at(self.position())

    def is_legal(self, turn: Sequence[Placement]) -> bool:
        """Whether the referee would accept `turn` now."""
        return is_legal_turn_at(self.position(), turn)


class TheGameBot:
    """Base class: dispatches referee lines, tracks the game, asks the strategy for decisions."""

    def __init__(self) -> None:
        self.game = TheGameKnowledge()
        self._handlers: dict[str, Callable[[list[str]], None]] = {
            "GAME": self._on_game, "COMMANDS": self._on_commands, "HAND": self._on_hand,
            "DRAW": self._on_draw, "DREW": self._on_drew, "TURNED": self._on_turned,
            "OUT": self._on_out, "HINT": self._on_hint, "END": self._on_end}

    def choose_turn(self, request: TurnRequest) -> Turn:
        """The whole turn to play; `self.game` is up to date."""
        raise NotImplementedError

    def choose_hints(self) -> tuple[Hint, ...]:
        """Hints for the coming turn of `self.game.active_seat` (at most 4); none by default."""
        return ()

    def position(self) -> Position:
        """Shortcut for `self.game.position()`."""
        return self.game.position()

    def legal_turns(self, max_cards: int | None = None) -> Iterator[Turn]:
        """Shortcut for `self.game.legal_turns(max_cards)`."""
        return self.game.legal_turns(max_cards)

    def on_line(self, line: str) -> str | None:
        """Handle one referee line; return the reply if it is a request."""
        words = line.split()
        keyword = words.pop(0) if words else ""
        if keyword == codec.TURN_REQUEST:
            return codec.placements_text(self.choose_turn(self._on_turn_request(words)))
        if keyword == codec.HINTS_REQUEST:
            hints = self.choose_hints()[:codec.MAX_HINTS]
            return " ".join(h.word for h in hints) if hints else "none"
        handler = self._handlers.get(keyword)
        if handler is not None:
            handler(words)
        return None

    def _on_turn_request(self, words: list[str]) -> TurnRequest:
        settings = parse_key_values(words)
        request = TurnRequest(int(settings["min"]), int(settings["draw"]),
                              tuple(int(settings[name]) for name in PILE_NAMES))
        # the referee is the authority on the table; the tracked state should agree
        self.game.tops = list(request.tops)
        self.game.draw_pile_size = request.draw_pile
        return request

    def _on_game(self, words: list[str]) -> None:
        settings = parse_key_values(words[1:])
        players, hand_size = int(settings["players"]), int(settings["hand"])
        self.game = TheGameKnowledge(
            seat=int(settings["seat"]), players=players, hand_size=hand_size,
            draw_pile_size=len(ALL_CARDS) - players * hand_size,
            hand_counts=[hand_size] * players)

    def _on_commands(self, words: list[str]) -> None:
        numbers = {Command(name): [int(n) for n in cards.split(",")]
                   for name, cards in parse_key_values(words).items()}
        self.game.commands = CommandMap.from_numbers(numbers)

    def _on_hand(self, words: list[str]) -> None:
        self.game.hand = sorted(int(w) for w in words)

    def _on_draw(self, words: list[str]) -> None:
        self.game.hand = sorted(self.game.hand + [int(w) for w in words])

    def _on_drew(self, words: list[str]) -> None:
        seat, count = int(words[0]), int(words[1])
        self.game.hand_counts[seat] += count
        self.game.draw_pile_size -= count

    def _on_turned(self, words: list[str]) -> None:
        game, seat = self.game, int(words[0])
        turn = codec.parse_turn(" ".join(words[1:]))
        for placement in turn:
            game.tops[placement.pile] = placement.card
            game.played.add(placement.card)
            if seat == game.seat:
                game.hand.remove(placement.card)
        game.hand_counts[seat] -= len(turn)
        game.last_turn_seat = seat
        game.turns += 1
        game.hints = {}  # hints are asked afresh before every turn

    def _on_out(self, words: list[str]) -> None:
        self.game.out.add(int(words[0]))

    def _on_hint(self, words: list[str]) -> None:
        try:
            self.game.hints[int(words[0])] = codec.parse_hints(" ".join(words[1:]))
        except WireError:
            pass  # the referee checked them; a newer vocabulary is simply not understood

    def _on_end(self, words: list[str]) -> None:
        settings = parse_key_values(words)
        self.game.end = GameEnd(settings["result"] == "won", EndReason(settings["reason"]),
                                int(settings["left"]))
