"""Rage for Python bots: state tracking from the referee's lines, and the legal-move helper.

Subclass RageBot and implement `choose_bid` and `choose_play`; the tracker keeps
`self.game` up to date from every line the referee sends, decoded by referee/games/rage/codec.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from bots.sdk import MessageBot
from referee.games.rage import codec
from protocols.wire import WireError
from referee.games.rage.rules import Variant, legal_plays_for
from referee.games.rage.cards import COLOURS, DECK, Card, Colour, Kind, Play


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


# Every play by (card id, notation): a bot's per-line work builds no Play objects.
_PLAY_OF = {(play.card.id, play.notation): play for play in (
    play for card in DECK for play in (
        [Play(card, colour) for colour in COLOURS] if card.kind is Kind.JOKER
        else [Play(card)]))}


class RageBot(MessageBot):
    """Base class: decodes referee lines, tracks the game, asks the strategy for decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.game = RageGame()
        self.route(codec.BidRequest, self._on_bid_request)
        self.route(codec.PlayRequest, self._on_play_request)
        self.route(codec.Game, self._on_game)
        self.route(codec.Round, self._on_round)
        self.route(codec.Hand, self._on_hand)
        self.route(codec.Flip, self._on_flip)
        self.route(codec.Trump, self._on_trump)
        self.route(codec.Bid, self._on_bid)
        self.route(codec.Bids, self._on_bids)
        self.route(codec.Played, self._on_played)
        self.route(codec.Trick, self._on_trick)
        self.route(codec.Score, self._on_score)

    def choose_bid(self, legal: list[int]) -> int:
        raise NotImplementedError

    def choose_play(self, legal: list[Play]) -> Play:
        raise NotImplementedError

    def _on_bid_request(self, request: codec.BidRequest) -> str:
        return codec.bid_reply(self.choose_bid(list(request.bids)))

    def _on_play_request(self, request: codec.PlayRequest) -> str:
        return codec.play_reply(self.choose_play(self._offered(request.plays)))

    def _offered(self, plays: Sequence[Play]) -> list[Play]:
        """The plays a PLAY? request lists (the legal ones), made with this hand's cards."""
        hand_cards: dict[str, Card] = {}
        for card in self.game.hand:
            hand_cards.setdefault(card.face, card)
        offered = []
        for play in plays:
            held = hand_cards.get(play.card.face)
            if held is None:
                raise WireError(
                    f"PLAY? offers {play.notation!r}, which is not in the tracked hand")
            offered.append(_PLAY_OF[held.id, play.notation])
        return offered

    def _on_game(self, message: codec.Game) -> None:
        self.game = RageGame(seat=message.seat, players=message.players,
                             variants=message.variants, totals=[0] * message.players)

    def _on_round(self, message: codec.Round) -> None:
        game = self.game
        game.round_no, game.cards, game.dealer = message.round_no, message.cards, message.dealer
        game.bids = [None] * game.players
        game.tricks_won = [0] * game.players
        game.trick, game.seen, game.trump = [], [], None

    def _on_hand(self, message: codec.Hand) -> None:
        self.game.hand = list(message.cards)

    def _on_flip(self, message: codec.Flip) -> None:
        self.game.seen.append(message.card)

    def _on_trump(self, message: codec.Trump) -> None:
        self.game.trump = message.colour

    def _on_bid(self, message: codec.Bid) -> None:
        self.game.bids[message.seat] = message.bid

    def _on_bids(self, message: codec.Bids) -> None:
        self.game.bids = list(message.bids)

    def _on_played(self, message: codec.Played) -> None:
        game, play = self.game, message.play
        if message.seat == game.seat:  # our own copy of the card leaves our hand
            card = next(c for c in game.hand if c.face == play.card.face)
            game.hand.remove(card)
            play = _PLAY_OF[card.id, play.notation]
        game.trick.append((message.seat, play))
        game.seen.append(play.card)

    def _on_trick(self, message: codec.Trick) -> None:
        self.game.tricks_won[message.winner] += 1
        self.game.trick = []

    def _on_score(self, message: codec.Score) -> None:
        self.game.totals = [t + p for t, p in zip(self.game.totals, message.points)]
