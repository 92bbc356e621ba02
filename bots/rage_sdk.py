"""Rage for Python bots: state tracking from the referee's lines, and the legal-move helper.

Subclass RageBot and implement `choose_bid` and `choose_play`; the tracker keeps
`self.game` up to date from every line the referee sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from protocols import rage as codec
from protocols.wire import WireError
from referee.games.rage import Variant, legal_plays_for
from referee.games.rage_cards import COLOURS, DECK, Card, Colour, Kind, Play, cards_from_faces


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
# Every play by (card id, notation): a bot's per-line work builds no Play objects.
_PLAY_OF = {(play.card.id, play.notation): play for play in (
    play for card in DECK for play in (
        [Play(card, colour) for colour in COLOURS] if card.kind is Kind.JOKER
        else [Play(card)]))}

Handler = Callable[[codec.Message], None]


def _ignore(message: codec.Message) -> None:
    """The handler of lines a bot does not track."""


def _cards(faces: Sequence[str]) -> list[Card]:
    """Distinct physical cards for faces (copies of action cards share a face)."""
    return cards_from_faces(" ".join(faces))[0]


class RageBot:
    """Base class: dispatches referee lines, tracks the game, asks the strategy for decisions."""

    def __init__(self) -> None:
        self.game = RageGame()
        self._handlers: dict[str, Handler] = {}  # keyword -> `_on_<keyword>` or _ignore

    def choose_bid(self, legal: list[int]) -> int:
        raise NotImplementedError

    def choose_play(self, legal: list[Play]) -> Play:
        raise NotImplementedError

    def on_line(self, line: str) -> str | None:
        keyword, _, rest = line.partition(" ")
        words = rest.split()
        if keyword == codec.PLAY_REQUEST:
            return self.choose_play(self._offered(words)).notation
        if keyword == codec.BID_REQUEST:
            return str(self.choose_bid([int(w) for w in words]))
        handler = self._handlers.get(keyword)
        if handler is None:
            handler = getattr(self, "_on_" + keyword.lower(), _ignore)
            self._handlers[keyword] = handler
        if handler is not _ignore:
            handler(codec.Message(keyword, tuple(words)))
        return None

    def _offered(self, words: Sequence[str]) -> list[Play]:
        """The plays a PLAY? request lists (the legal ones), made with this hand's cards."""
        hand_cards: dict[str, Card] = {}
        for card in self.game.hand:
            hand_cards.setdefault(card.face, card)
        plays = []
        for word in words:
            held = hand_cards.get(word.partition(":")[0])
            play = None if held is None else _PLAY_OF.get((held.id, word))
            if play is None:
                raise WireError(f"PLAY? offers {word!r}, which is not in the tracked hand")
            plays.append(play)
        return plays

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
        face = notation.partition(":")[0]
        game = self.game
        if seat == game.seat:
            card = next(c for c in game.hand if c.face == face)
            game.hand.remove(card)
        else:
            card = FACE_CARDS[face]
        game.trick.append((seat, _PLAY_OF[card.id, notation]))
        game.seen.append(card)

    def _on_trick(self, message: codec.Message) -> None:
        self.game.tricks_won[int(message.words[1])] += 1
        self.game.trick = []

    def _on_score(self, message: codec.Message) -> None:
        points = [int(p) for p in message.settings["points"].split(",")]
        self.game.totals = [t + p for t, p in zip(self.game.totals, points)]
