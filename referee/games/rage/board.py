"""Rage's board for `referee view`: the table at each decision, as one seat saw it.

The engine is replayed over the logged moves and each of its events is folded in only
if the game's own judge (view.private_to) lets the seat see it: another seat's hand is
then only its number of cards, and a hidden or secret bid only `?` until the engine
reveals the bids (BidsRevealed). The organiser's board (seat None) sees every event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.games.rage.rules import (
    BidMade, BidsRevealed, CardPlayed, Event, Flipped, GameOver, HandDealt, RageState,
    RoundScored, RoundStarted, TrickWon, TrumpSet, Variant,
)
from referee.games.rage.view import private_to
from referee.matches.board import Board, State

_HERE = Path(__file__).parent
NAV = (("round", "Round"), ("trick", "Trick"))
_HIDING = frozenset({Variant.HIDDEN_BID, Variant.SECRET_BID})


class _Table:
    """The table as one seat (None: the organiser) has seen it so far."""

    def __init__(self, state: RageState, seat: int | None) -> None:
        self.state, self.seat = state, seat
        self.seen = 0  # engine events folded in (or passed over as not the seat's)
        n = state.config.players
        self.hiding = bool(_HIDING & state.config.variants)
        self.round = self.cards = self.dealer = self.trick_no = 0
        self.hands: list[list[str] | int] = [0] * n
        self.bids: list[int | str | None] = [None] * n
        self.won, self.score = [0] * n, [0] * n
        self.trick: list[list[Any]] = []
        self.winner: int | None = None
        self.winners: list[int] = []
        self.flips: list[str] = []
        self.trump: str | None = None
        self.revealed = False
        self.over = False

    def snapshot(self, move: Mapping[str, Any] | None) -> State:
        """The table after `move` (None: before the first, or at the end). A new round's
        deal waits for the next snapshot, so a round's last trick and its score sheet
        are shown before the next deal."""
        sheet = None
        if move is not None and move["kind"] == "bid":
            self.bids[move["seat"]] = "?"  # made; its value shows if the seat may see it
        for index, event in enumerate(self.state.events_since(self.seen)):
            if index and isinstance(event, RoundStarted):
                break
            self.seen += 1
            if self.seat is None or private_to(self.state, event) in (None, self.seat):
                sheet = self._fold(event) or sheet
        return self._state(move, sheet)

    def _fold(self, event: Event) -> list[list[int]] | None:
        if isinstance(event, RoundStarted):
            n = len(self.hands)
            self.round, self.cards, self.dealer = event.round_no, event.cards, event.dealer
            self.hands = [event.cards] * n
            self.bids, self.won = [None] * n, [0] * n
            self.trick, self.winner, self.winners, self.trick_no = [], None, [], 0
            self.flips, self.revealed = [], False
        elif isinstance(event, HandDealt):
            self.hands[event.seat] = [card.face for card in event.cards]
        elif isinstance(event, Flipped):
            self.flips.append(event.card.face)
        elif isinstance(event, TrumpSet):
            self.trump = None if event.colour is None else event.colour.value
        elif isinstance(event, BidMade):
            self.bids[event.seat] = event.bid
        elif isinstance(event, BidsRevealed):
            self.bids, self.revealed = list(event.bids), True
        elif isinstance(event, CardPlayed):
            self._played(event)
        elif isinstance(event, TrickWon):
            self.winner, self.trick_no = event.winner, event.trick_no
            self.won[event.winner] += 1
            self.winners.append(event.winner)
        elif isinstance(event, RoundScored):
            seats = event.result.seats
            for seat, result in enumerate(seats):
                self.score[seat] += result.total
            return [[s.bid, s.tricks, s.trick_points, s.action_points, s.bid_bonus, s.total]
                    for s in seats]
        elif isinstance(event, GameOver):
            self.score, self.over = list(event.totals), True
        return None

    def _played(self, event: CardPlayed) -> None:
        if self.winner is not None:  # the first card of the next trick
            self.trick, self.winner = [], None
        hand = self.hands[event.seat]
        if isinstance(hand, list):
            hand.remove(event.play.card.face)
        else:
            self.hands[event.seat] = hand - 1
        self.trick.append([event.seat, event.play.notation])

    def _state(self, move: Mapping[str, Any] | None, sheet: list[list[int]] | None) -> State:
        playing = bool(self.trick) or self.trick_no > 0
        trick = self.trick_no if self.winner is not None else self.trick_no + 1
        state: State = {
            "r": self.round, "k": self.cards, "d": self.dealer,
            "h": [list(h) if isinstance(h, list) else h for h in self.hands],
            "b": list(self.bids), "w": list(self.won), "s": list(self.score),
            "t": [list(play) for play in self.trick], "tw": self.winner, "tn": trick,
            "ws": list(self.winners), "f": list(self.flips), "tr": self.trump,
            "nav": {"round": f"Round {self.round}",
                    "trick": f"Round {self.round}, trick {trick}" if playing
                    else f"Round {self.round}, bidding"},
        }
        if self.hiding and not self.revealed:
            state["hb"] = 1  # the table has not seen the bids yet
        if sheet is not None:
            state["sh"] = sheet
        if self.over:
            state["over"] = 1
        if move is not None:
            state["say"] = self._say(move)
        return state

    def _say(self, move: Mapping[str, Any]) -> str:
        if move["kind"] == "bid":
            bid = self.bids[move["seat"]]
            return "bids " + ("(hidden)" if bid == "?" else str(bid))
        said = f"plays {move['move']}"
        if self.winner is not None:
            said += f"; trick {self.trick_no} to seat {self.winner}"
        return said


def build(state: RageState, moves: Sequence[Mapping[str, Any]], seat: int | None,
          apply: Callable[[Mapping[str, Any]], None]) -> Board:
    """The board before the first move, after each (`apply` plays it on `state`), and at
    the end, as `seat` saw it."""
    table = _Table(state, seat)
    states = [table.snapshot(None)]
    for move in moves:
        apply(move)
        states.append(table.snapshot(move))
    states.append(table.snapshot(None))
    return Board(states, (_HERE / "board.js").read_text(), (_HERE / "board.css").read_text(),
                 NAV)
