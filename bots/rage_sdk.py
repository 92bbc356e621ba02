"""Rage for Python bots: state tracking from the referee's lines, and the legal-move helper.

Subclass RageBot and implement `choose_bid` and `choose_play`; the tracker keeps
`self.game` up to date from every line the referee sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from protocols import rage as codec
from referee.games.rage import Variant, legal_plays_for
from referee.games.rage_cards import DECK, Card, Colour, Play, cards_from_faces


@dataclass
class RageGame:
    """What one seat knows, rebuilt from the lines it received."""

    seat: int = 0
    players: int = 0
    variants: frozenset[Variant] = frozenset()
    round_no: int = 0
    cards: int = 0
    dealer: int = 0
    hand: list[Card] = field(default_factory=list)
    trump: Colour | None = None
    trick: list[tuple[int, Play]] = field(default_factory=list)
    bids: list[int | None] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    seen: list[Card] = field(default_factory=list)  # cards played or flipped this round

    @property
    def trick_plays(self) -> list[Play]:
        return [play for _, play in self.trick]

    def legal_plays(self) -> list[Play]:
        """The legal-move helper: what this seat may play now (same code as the referee)."""
        return legal_plays_for(self.hand, self.trick_plays)


FACE_CARDS = {card.face: card for card in reversed(DECK)}  # a face's first copy


def _cards(faces: Sequence[str]) -> list[Card]:
    """Distinct physical cards for faces (copies of action cards share a face)."""
    return cards_from_faces(" ".join(faces))[0]


class RageBot:
    """Base class: dispatches referee lines, tracks the game, asks the strategy for decisions."""

    def __init__(self) -> None:
        self.game = RageGame()

    def choose_bid(self, legal: list[int]) -> int:
        raise NotImplementedError

    def choose_play(self, legal: list[Play]) -> Play:
        raise NotImplementedError

    def on_line(self, line: str) -> str | None:
        message = codec.parse_message(line)
        handler = getattr(self, "_on_" + message.keyword.rstrip("?").lower(), None)
        if message.keyword == codec.BID_REQUEST:
            return str(self.choose_bid([int(w) for w in message.words]))
        if message.keyword == codec.PLAY_REQUEST:
            legal = self._legal_from(message.words)
            return self.choose_play(legal).notation
        if handler is not None:
            handler(message)
        return None

    def _legal_from(self, words: Sequence[str]) -> list[Play]:
        offered = set(words)
        return [p for p in self.game.legal_plays() if p.notation in offered]

    def _on_game(self, message: codec.Message) -> None:
        settings = message.settings
        players = int(settings["players"])
        variants = settings["variants"]
        self.game = RageGame(
            seat=int(settings["seat"]), players=players,
            variants=frozenset() if variants == "none"
            else frozenset(Variant(v) for v in variants.split(",")),
            totals=[0] * players)

    def _on_round(self, message: codec.Message) -> None:
        game, settings = self.game, message.settings
        game.round_no, game.cards = int(message.words[0]), int(settings["cards"])
        game.dealer = int(settings["dealer"])
        game.bids = [None] * game.players
        game.tricks_won = [0] * game.players
        game.trick, game.seen, game.trump = [], [], None

    def _on_hand(self, message: codec.Message) -> None:
        self.game.hand = _cards(message.words)

    def _on_flip(self, message: codec.Message) -> None:
        self.game.seen.extend(_cards(message.words))

    def _on_trump(self, message: codec.Message) -> None:
        self.game.trump = codec.parse_colour(message.words[0])

    def _on_bid(self, message: codec.Message) -> None:
        self.game.bids[int(message.words[0])] = int(message.words[1])

    def _on_bids(self, message: codec.Message) -> None:
        self.game.bids = [int(w) for w in message.words]

    def _on_played(self, message: codec.Message) -> None:
        seat, notation = int(message.words[0]), message.words[1]
        face, _, colour = notation.partition(":")
        game = self.game
        if seat == game.seat:
            card = next(c for c in game.hand if c.face == face)
            game.hand.remove(card)
        else:
            card = FACE_CARDS[face]
        game.trick.append((seat, Play(card, Colour(colour) if colour else None)))
        game.seen.append(card)

    def _on_trick(self, message: codec.Message) -> None:
        self.game.tricks_won[int(message.words[1])] += 1
        self.game.trick = []

    def _on_score(self, message: codec.Message) -> None:
        points = [int(p) for p in message.settings["points"].split(",")]
        self.game.totals = [t + p for t, p in zip(self.game.totals, points)]
