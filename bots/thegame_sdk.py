"""The Game Extreme for Python bots: state tracking from the referee's lines, legal turns.

Subclass TheGameBot and implement `choose_turn` (and `choose_hints` to talk); the tracker
keeps `self.game` up to date from every line the referee sends, decoded by
referee/games/thegame/codec.py. The legal-move helpers run the engine's own Position functions, so a
bot judges turns exactly as the referee does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from bots.sdk import MessageBot
from referee.games.thegame import codec
from referee.games.thegame.codec import End, Hint, HintKind
from referee.games.thegame.codec import TurnRequest as TurnRequest  # what choose_turn is given
from referee.games.thegame.rules import (
    ASCENDING_START,
    DESCENDING_START,
    PILE_COUNT,
    PILE_NAMES,
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
from referee.games.thegame.commands import (
    HIGHEST_CARD,
    LOWEST_CARD,
    Command,
    CommandMap,
)

ALL_CARDS = frozenset(range(LOWEST_CARD, HIGHEST_CARD + 1))


def starting_tops() -> list[int]:
    """Row cards: 1 on the ascending piles, 100 on the descending ones."""
    return [ASCENDING_START if is_ascending(p) else DESCENDING_START for p in range(PILE_COUNT)]


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
    end: End | None = None

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


class TheGameBot(MessageBot):
    """Base class: decodes referee lines, tracks the game, asks the strategy for decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.game = TheGameKnowledge()
        self.route(codec.TurnRequest, self._on_turn_request)
        self.route(codec.HintsRequest, self._on_hints_request)
        self.route(codec.Game, self._on_game)
        self.route(codec.Commands, self._on_commands)
        self.route(codec.Hand, self._on_hand)
        self.route(codec.Draw, self._on_draw)
        self.route(codec.Drew, self._on_drew)
        self.route(codec.Turned, self._on_turned)
        self.route(codec.Out, self._on_out)
        self.route(codec.Hinted, self._on_hinted)
        self.route(codec.End, self._on_end)

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

    def _on_turn_request(self, request: TurnRequest) -> str:
        # the referee is the authority on the table; the tracked state should agree
        self.game.tops = list(request.tops)
        self.game.draw_pile_size = request.draw_pile
        return codec.turn_reply(self.choose_turn(request))

    def _on_hints_request(self, request: codec.HintsRequest) -> str:
        return codec.hints_reply(self.choose_hints()[:codec.MAX_HINTS])

    def _on_game(self, message: codec.Game) -> None:
        players, hand_size = message.players, message.hand_size
        self.game = TheGameKnowledge(
            seat=message.seat, players=players, hand_size=hand_size,
            draw_pile_size=len(ALL_CARDS) - players * hand_size,
            hand_counts=[hand_size] * players)

    def _on_commands(self, message: codec.Commands) -> None:
        self.game.commands = message.commands

    def _on_hand(self, message: codec.Hand) -> None:
        self.game.hand = sorted(message.cards)

    def _on_draw(self, message: codec.Draw) -> None:
        self.game.hand = sorted(self.game.hand + list(message.cards))

    def _on_drew(self, message: codec.Drew) -> None:
        self.game.hand_counts[message.seat] += message.count
        self.game.draw_pile_size -= message.count

    def _on_turned(self, message: codec.Turned) -> None:
        game, seat = self.game, message.seat
        for placement in message.turn:
            game.tops[placement.pile] = placement.card
            game.played.add(placement.card)
            if seat == game.seat:
                game.hand.remove(placement.card)
        game.hand_counts[seat] -= len(message.turn)
        game.last_turn_seat = seat
        game.turns += 1
        game.hints = {}  # hints are asked afresh before every turn

    def _on_out(self, message: codec.Out) -> None:
        self.game.out.add(message.seat)

    def _on_hinted(self, message: codec.Hinted) -> None:
        self.game.hints[message.seat] = message.hints

    def _on_end(self, message: End) -> None:
        self.game.end = message
