"""The Rage rules engine: deal, flip, bidding, plays, tricks, scoring, variants, events.

Pure: no I/O. Rulings R1-R11 refer to ../shared/RULINGS.md.

Internally a hand is a sorted list of card ids (colour card ids are
`colour_index * 16 + value`, so one colour is one contiguous run) and a colour is
its index in COLOURS; the public properties hand out Cards and Colours.
"""

from __future__ import annotations

import enum
import random
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from referee.errors import ConfigError, RuleError
from referee.games.rage_cards import (COLOUR_CARDS, COLOURS, DECK, VALUES_PER_COLOUR, Card, Colour,
                                      Kind, Play)

MIN_PLAYERS, MAX_PLAYERS = 3, 8
MAX_ROUNDS = 10
JOKER_RANK = VALUES_PER_COLOUR  # a Joker ranks above 15 of its declared colour (ruling R4)


class Variant(enum.Enum):
    """Optional rules, each a switch that is off by default."""

    PLUS_MINUS_ONE = "plus-minus-one"
    HIDDEN_BID = "hidden-bid"
    SECRET_BID = "secret-bid"
    DURCHMARSCH = "durchmarsch"


@dataclass(frozen=True)
class RageConfig:
    """Static facts of one game: table size, variants, number of rounds."""

    players: int
    variants: frozenset[Variant] = frozenset()
    rounds: int = MAX_ROUNDS

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", frozenset(self.variants))
        if not all(isinstance(v, Variant) for v in self.variants):
            raise ConfigError("variants must be Variant members")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"Rage needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}")
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise ConfigError(f"a Rage game has 1 to {MAX_ROUNDS} rounds, not {self.rounds}")
        hidden = {Variant.HIDDEN_BID, Variant.SECRET_BID} & self.variants
        if Variant.PLUS_MINUS_ONE in self.variants and hidden:  # ruling R10
            raise ConfigError("plus-minus-one cannot be combined with hidden or secret bids "
                              "(ruling R10): the dealer must see the other bids")
        if len(hidden) == 2:
            raise ConfigError("hidden-bid and secret-bid cannot be combined: hidden bids are "
                              "revealed before the first trick, secret bids only after the round")


def cards_in_round(round_no: int) -> int:
    """Round r deals 11 - r cards to each player."""
    return MAX_ROUNDS + 1 - round_no


class Phase(enum.Enum):
    """What the current seat is asked for; OVER once the last round is scored."""

    BID = "bid"
    PLAY = "play"
    OVER = "over"


class TrumpReason(enum.StrEnum):
    """Why a flip sequence happened."""

    DEAL = "deal"
    TRUMP_CHANGE = "trump-change"
    NO_TRUMP = "no-trump"


# ---------------------------------------------------------------- results and events

@dataclass(frozen=True)
class SeatRoundResult:
    """One seat's score for one round; total = trick_points + action_points + bid_bonus."""

    bid: int
    tricks: int
    trick_points: int
    action_points: int
    bid_bonus: int
    total: int


@dataclass(frozen=True)
class RoundResult:
    """The scores of one round for every seat."""

    round_no: int
    cards: int
    dealer: int
    seats: tuple[SeatRoundResult, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round_no: int
    cards: int
    dealer: int


@dataclass(frozen=True, slots=True)
class HandDealt:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Flipped:
    card: Card


@dataclass(frozen=True, slots=True)
class TrumpSet:
    colour: Colour | None
    reason: TrumpReason


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: int
    bid: int


@dataclass(frozen=True, slots=True)
class BidsRevealed:
    bids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    play: Play


@dataclass(frozen=True, slots=True)
class TrickWon:
    trick_no: int
    winner: int
    plays: tuple[tuple[int, Play], ...]


@dataclass(frozen=True, slots=True)
class RoundScored:
    result: RoundResult


@dataclass(frozen=True, slots=True)
class GameOver:
    totals: tuple[int, ...]


Event: TypeAlias = (RoundStarted | HandDealt | Flipped | TrumpSet | BidMade | BidsRevealed
                    | CardPlayed | TrickWon | RoundScored | GameOver)


# ---------------------------------------------------------------- per-card tables

_DECK_SIZE = len(DECK)
_COLOUR_INDEX: dict[Colour, int] = {colour: i for i, colour in enumerate(COLOURS)}
_CIDX: tuple[int | None, ...] = tuple(
    None if c.colour is None else _COLOUR_INDEX[c.colour] for c in DECK)
# (colour index or None, rank within the colour) of each card played as itself
_KEY: tuple[tuple[int | None, int], ...] = tuple(
    (_CIDX[c.id], c.value if c.value is not None else 0) for c in DECK)
_KIND: tuple[Kind, ...] = tuple(c.kind for c in DECK)
_ACTION_POINTS: tuple[int, ...] = tuple(
    5 if c.kind is Kind.PLUS_FIVE else -5 if c.kind is Kind.MINUS_FIVE else 0 for c in DECK)


def _plays_of(card: Card) -> tuple[Play, ...]:
    if card.kind is Kind.JOKER:
        return tuple(Play(card, colour) for colour in COLOURS)
    return (Play(card),)


_PLAYS: tuple[tuple[Play, ...], ...] = tuple(_plays_of(c) for c in DECK)
_PLAY: tuple[Play, ...] = tuple(plays[0] for plays in _PLAYS)
# Copies of an action card share a face; legal_plays lists only the lowest id of each.
_FACE_GROUP: tuple[int, ...] = tuple(
    next(o.id for o in DECK if o.face == c.face) for c in DECK)


# ---------------------------------------------------------------- pure rules

def _follow_span(hand: Sequence[int], lead: int | None) -> tuple[int, int]:
    """Slice of the sorted hand holding lead-colour cards; empty means free choice."""
    if lead is None:
        return 0, 0
    lo = bisect_left(hand, lead * VALUES_PER_COLOUR)
    return lo, bisect_left(hand, (lead + 1) * VALUES_PER_COLOUR, lo)


def _hand_plays(hand: Sequence[int]) -> list[Play]:
    """Every distinct play from a sorted hand, in canonical order.

    The colour cards come first, one play each, so they line up with the hand's indices.
    """
    first_action = bisect_left(hand, COLOUR_CARDS)
    plays = [_PLAY[i] for i in hand[:first_action]]
    last_group: int | None = None
    for i in hand[first_action:]:
        if _FACE_GROUP[i] != last_group:
            last_group = _FACE_GROUP[i]
            plays.extend(_PLAYS[i])
    return plays


def _select_legal(hand: Sequence[int], plays: list[Play], lead: int | None) -> list[Play]:
    """The legal part of `plays` (= _hand_plays(hand)), as a new list."""
    if lead is not None:
        lo, hi = _follow_span(hand, lead)
        if lo < hi:  # rulings R1, R2: follow with a lead-colour card, nothing else
            return plays[lo:hi]
    return plays[:]


def _play_key(play: Play, position: int) -> tuple[int | None, int]:
    """(colour index or None, rank) of a play at a position in its trick."""
    cid = play.card.id
    if _KIND[cid] is Kind.JOKER and play.declared is not None:
        # ruling R4: above 15 of its colour; of two Jokers of one colour the later is higher
        return _COLOUR_INDEX[play.declared], JOKER_RANK + position
    return _KEY[cid]


def _lead_of(keys: Sequence[tuple[int | None, int]]) -> int | None:
    # ruling R3: the first colour card or the first Joker's declared colour
    return next((ci for ci, _ in keys if ci is not None), None)


def _winning_position(keys: Sequence[tuple[int | None, int]], lead: int | None,
                      trump: int | None) -> int:
    best_pos, best = 0, 0
    for pos, (ci, rank) in enumerate(keys):
        if ci is None:
            continue
        score = rank + 100 if ci == trump else rank + 1 if ci == lead else 0
        if score > best:
            best_pos, best = pos, score
    return best_pos  # no colour card and no Joker: the first card wins (ruling R8)


def _is_deck_card(card: Card) -> bool:
    cid = card.id
    return 0 <= cid < _DECK_SIZE and (card is DECK[cid] or card == DECK[cid])


def _index_of(colour: Colour | None) -> int | None:
    return None if colour is None else _COLOUR_INDEX[colour]


def _colour_at(index: int | None) -> Colour | None:
    return None if index is None else COLOURS[index]


def lead_colour_of(trick: Sequence[Play]) -> Colour | None:
    """The colour to follow in a trick so far (ruling R3), or None."""
    return _colour_at(_lead_of([_play_key(p, i) for i, p in enumerate(trick)]))


def legal_plays_for(hand: Sequence[Card], trick: Sequence[Play]) -> list[Play]:
    """Legal plays from `hand` into `trick` (plays so far, in order), in canonical order."""
    ids = sorted(card.id for card in hand)
    return _select_legal(ids, _hand_plays(ids), _index_of(lead_colour_of(trick)))


def trick_winner(trick: Sequence[Play], trump: Colour | None) -> int:
    """Position in `trick` of the winning play, with `trump` (None under a No Trump)."""
    keys = [_play_key(p, i) for i, p in enumerate(trick)]
    return _winning_position(keys, _lead_of(keys), _index_of(trump))


def legal_bids_for(cards: int, bids_so_far: Sequence[int], is_last_bidder: bool,
                   variants: frozenset[Variant]) -> list[int]:
    """Legal bids, ascending: 0..cards, less the sum-completing bid for the plus-minus-one dealer."""
    bids = list(range(cards + 1))
    if is_last_bidder and Variant.PLUS_MINUS_ONE in variants:
        forbidden = cards - sum(bids_so_far)
        if 0 <= forbidden <= cards:
            bids.remove(forbidden)
    return bids


def action_points(won: Iterable[Card]) -> int:
    """+5 for each "+5" and -5 for each "-5" among the cards won."""
    return _action_points_of_ids(card.id for card in won)


def _action_points_of_ids(won: Iterable[int]) -> int:
    return sum(map(_ACTION_POINTS.__getitem__, won))


def score_seat(bid: int, tricks: int, action_points: int, cards: int,
               durchmarsch: bool) -> SeatRoundResult:
    """Score one seat's round from its bid, tricks won and the action points in them."""
    # Durchmarsch doubles the trick points of a player who won every trick, except in the
    # one-card round 10.
    per_trick = 2 if durchmarsch and tricks == cards and cards > 1 else 1
    trick_points = per_trick * tricks
    bid_bonus = 10 if tricks == bid else -5
    return SeatRoundResult(bid, tricks, trick_points, action_points, bid_bonus,
                           trick_points + action_points + bid_bonus)


def rank_places(totals: Sequence[int], faulted: frozenset[int] = frozenset()) -> list[int]:
    """Competition places (ruling R9); faulted seats share the place below everyone else."""
    if not all(0 <= s < len(totals) for s in faulted):
        raise ValueError(f"faulted seats {sorted(faulted)} outside 0..{len(totals) - 1}")
    clean = [t for s, t in enumerate(totals) if s not in faulted]
    return [len(clean) + 1 if s in faulted else 1 + sum(o > t for o in clean)
            for s, t in enumerate(totals)]


_ALL_IDS = range(len(DECK))


def _shuffled_ids(rng: random.Random) -> list[int]:
    """A uniformly random order of all card ids, seeded by `rng`."""
    # Sorting by random float keys is a uniform shuffle (a tie has odds about 1e-12 and
    # then keeps id order) and runs about 1.5x faster than random.shuffle here.
    random_key = rng.random
    keys = [random_key() for _ in _ALL_IDS]
    return sorted(_ALL_IDS, key=keys.__getitem__)


# ---------------------------------------------------------------- the state

class RageState:
    """A whole game of Rage, advanced one decision (bid or play) at a time.

    Build it with `new_game` or `from_deal`. All public attributes are read-only
    properties; the list-valued ones return fresh copies.
    """

    __slots__ = ("_config", "_n", "_rng", "_hidden", "_secret", "_durchmarsch", "_phase",
                 "_round_no", "_cards", "_dealer", "_current", "_hands", "_plays", "_bids",
                 "_bids_made",
                 "_tricks_won", "_tricks_done", "_trump", "_nt", "_trick", "_keys", "_lead",
                 "_stock", "_flipped", "_won", "_results", "_totals", "_events")
    _phase: Phase
    _round_no: int
    _cards: int
    _dealer: int
    _current: int | None
    _hands: list[list[int]]
    _plays: list[list[Play]]
    _bids: list[int | None]
    _bids_made: int
    _tricks_won: list[int]
    _tricks_done: int
    _trump: int | None
    _nt: bool
    _trick: list[tuple[int, Play]]
    _keys: list[tuple[int | None, int]]
    _lead: int | None
    _stock: list[int]
    _flipped: list[int]
    _won: list[list[int]]

    def __init__(self, config: RageConfig, rng: random.Random, round_no: int, dealer: int,
                 hands: Sequence[Sequence[int]], stock: Sequence[int]) -> None:
        """Internal; use new_game or from_deal. `stock` is top first."""
        self._config = config
        self._n = config.players
        self._rng = rng
        self._hidden = Variant.HIDDEN_BID in config.variants
        self._secret = Variant.SECRET_BID in config.variants
        self._durchmarsch = Variant.DURCHMARSCH in config.variants
        self._results: list[RoundResult] = []
        self._totals = [0] * self._n
        self._events: list[Event] = []
        self._start_round(round_no, dealer, hands, stock)

    @classmethod
    def new_game(cls, config: RageConfig, seed: int) -> RageState:
        """A new game, dealt from `random.Random(seed)`; seat 0 deals round 1 (ruling R11)."""
        rng = random.Random(seed)
        hands, stock = _deal(rng, config.players, cards_in_round(1))
        return cls(config, rng, 1, 0, hands, stock)

    @classmethod
    def from_deal(cls, config: RageConfig, hands: Sequence[Sequence[Card]], stock: Sequence[Card],
                  dealer: int = 0, round_no: int = 1, seed: int = 0) -> RageState:
        """A game from an explicit deal (stock top first); later rounds from Random(seed)."""
        _check_deal(config, hands, stock, dealer, round_no)
        return cls(config, random.Random(seed), round_no, dealer,
                   [[c.id for c in hand] for hand in hands], [c.id for c in stock])

    # ------------------------------------------------------------ read-only state

    @property
    def config(self) -> RageConfig:
        return self._config

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def round_no(self) -> int:
        return self._round_no

    @property
    def cards(self) -> int:
        """Cards dealt to each player this round (= tricks in the round)."""
        return self._cards

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def current_seat(self) -> int | None:
        """The seat whose decision is due; None once the game is over."""
        return self._current

    @property
    def hands(self) -> list[list[Card]]:
        return [[DECK[i] for i in hand] for hand in self._hands]

    def hand(self, seat: int) -> list[Card]:
        """One seat's hand, sorted by card id."""
        return [DECK[i] for i in self._hands[seat]]

    @property
    def bids(self) -> list[int | None]:
        return list(self._bids)

    @property
    def tricks_won(self) -> list[int]:
        return list(self._tricks_won)

    @property
    def tricks_played(self) -> int:
        """Tricks completed in this round."""
        return self._tricks_done

    @property
    def trump(self) -> Colour | None:
        return _colour_at(self._trump)

    @property
    def no_trump_active(self) -> bool:
        return self._nt

    @property
    def trick(self) -> list[tuple[int, Play]]:
        return list(self._trick)

    @property
    def lead_colour(self) -> Colour | None:
        return _colour_at(self._lead)

    @property
    def stock(self) -> list[Card]:
        """Undealt, unturned cards, top first."""
        return [DECK[i] for i in reversed(self._stock)]

    @property
    def flipped(self) -> list[Card]:
        """The trump pile: every card turned this round, in order."""
        return [DECK[i] for i in self._flipped]

    @property
    def won_cards(self) -> list[list[Card]]:
        return [[DECK[i] for i in won] for won in self._won]

    @property
    def round_results(self) -> list[RoundResult]:
        return list(self._results)

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    def events_since(self, index: int) -> list[Event]:
        """The events from position `index` on."""
        if index < 0:
            raise ValueError(f"event index must be >= 0, got {index}")
        return self._events[index:]

    def totals(self) -> list[int]:
        """Each seat's score summed over the rounds scored so far."""
        return list(self._totals)

    def places(self, faulted: frozenset[int] = frozenset()) -> list[int]:
        """Competition places by total (ruling R9); faulted seats below all others."""
        return rank_places(self._totals, faulted)

    # ------------------------------------------------------------ decisions

    def legal_bids(self) -> list[int]:
        """The current seat's legal bids, ascending; empty outside bidding."""
        if self._phase is not Phase.BID:
            return []
        return legal_bids_for(self._cards, self._made_bids(), self._current == self._dealer,
                              self._config.variants)

    def legal_plays(self) -> list[Play]:
        """The current seat's legal plays in canonical order; empty outside the play phase."""
        seat = self._current
        if self._phase is not Phase.PLAY or seat is None:
            return []
        return _select_legal(self._hands[seat], self._plays[seat], self._lead)

    def fallback_bid(self) -> int:
        """The deterministic bid made for a faulty seat: the lowest legal bid."""
        legal = self.legal_bids()
        if not legal:
            raise RuleError(f"no bid is due in phase {self._phase.value}")
        return legal[0]

    def fallback_play(self) -> Play:
        """The deterministic play made for a faulty seat: the first legal play."""
        legal = self.legal_plays()
        if not legal:
            raise RuleError(f"no play is due in phase {self._phase.value}")
        return legal[0]

    def bid(self, value: int) -> None:
        """The current seat bids `value`; RuleError if that is not a legal bid."""
        if self._phase is not Phase.BID:
            raise RuleError(f"no bid is due in phase {self._phase.value}")
        seat = self._current
        assert seat is not None
        if type(value) is not int or value not in self.legal_bids():
            raise RuleError(self._bad_bid_reason(seat, value))
        self._bids[seat] = value
        self._bids_made += 1
        self._events.append(BidMade(seat, value))
        if self._bids_made < self._n:
            self._current = (seat + 1) % self._n
            return
        if self._hidden:
            self._events.append(BidsRevealed(tuple(self._made_bids())))
        self._phase = Phase.PLAY
        self._current = (self._dealer + 1) % self._n  # ruling R11: left of the dealer leads

    def play(self, play: Play) -> None:
        """The current seat plays `play`; RuleError if it is not legal."""
        if self._phase is not Phase.PLAY:
            raise RuleError(f"no play is due in phase {self._phase.value}")
        seat = self._current
        assert seat is not None
        hand = self._hands[seat]
        pos = self._checked_position(seat, hand, play)
        cid = hand.pop(pos)
        self._events.append(CardPlayed(seat, play))
        if cid < COLOUR_CARDS:
            del self._plays[seat][pos]  # colour cards line up with the start of the play list
            key = _KEY[cid]
        else:
            self._plays[seat] = _hand_plays(hand)
            key = _play_key(play, len(self._trick))
            self._action_effect(_KIND[cid])
        trick = self._trick
        trick.append((seat, play))
        self._keys.append(key)
        if self._lead is None:
            self._lead = key[0]
        if len(trick) == self._n:
            self._finish_trick()
        else:
            self._current = (seat + 1) % self._n

    # ------------------------------------------------------------ internals

    def _made_bids(self) -> list[int]:
        return [b for b in self._bids if b is not None]

    def _bad_bid_reason(self, seat: int, value: object) -> str:
        cards = self.cards
        if type(value) is not int or not 0 <= value <= cards:
            return f"seat {seat} must bid a whole number from 0 to {cards}, not {value!r}"
        return (f"plus-minus-one: the dealer (seat {seat}) may not bid {value}, "
                f"which would make the bids sum to {cards}, the number of cards")

    def _checked_position(self, seat: int, hand: list[int], play: Play) -> int:
        """Index of the played card in the sorted hand, after checking the play is legal."""
        card = play.card
        if not _is_deck_card(card):
            raise RuleError(f"{card!r} is not a Rage card")
        cid = card.id
        pos = bisect_left(hand, cid)
        if pos == len(hand) or hand[pos] != cid:
            raise RuleError(f"seat {seat} does not hold {card.face}")
        if _KIND[cid] is Kind.JOKER:
            if not isinstance(play.declared, Colour):
                raise RuleError("a Joker must be played with a declared colour")
        elif play.declared is not None:
            raise RuleError(f"only a Joker declares a colour, not {card.face}")
        lead = self._lead
        if lead is not None:
            lo, hi = _follow_span(hand, lead)
            if lo < hi and not lo <= pos < hi:  # rulings R1, R2
                name = COLOURS[lead].name.lower()
                raise RuleError(f"seat {seat} must follow {name}: it holds {name} cards, "
                                f"so {play.notation} is not allowed")
        return pos

    def _start_round(self, round_no: int, dealer: int, hands: Sequence[Sequence[int]],
                     stock: Sequence[int]) -> None:
        n = self._n
        self._round_no = round_no
        self._cards = cards_in_round(round_no)
        self._dealer = dealer
        self._hands = [sorted(hand) for hand in hands]
        self._plays = [_hand_plays(hand) for hand in self._hands]
        self._stock = list(reversed(stock))  # top at the end, for pop()
        self._flipped = []
        self._won = [[] for _ in range(n)]
        self._bids = [None] * n
        self._bids_made = 0
        self._tricks_won = [0] * n
        self._tricks_done = 0
        self._new_trick()
        self._events.append(RoundStarted(round_no, self._cards, dealer))
        for seat, hand in enumerate(self._hands):
            self._events.append(HandDealt(seat, tuple([DECK[i] for i in hand])))
        self._flip(TrumpReason.DEAL)
        self._phase = Phase.BID
        self._current = (dealer + 1) % n  # ruling R11: left of the dealer bids first

    def _new_trick(self) -> None:
        self._trick = []
        self._keys = []
        self._lead = None
        self._nt = False

    def _action_effect(self, kind: Kind) -> None:
        if kind is Kind.NO_TRUMP:  # ruling R5: one flip after the trick, however many
            self._nt = True
        elif kind is Kind.TRUMP_CHANGE:  # ruling R5: flips now, cancels an earlier No Trump
            self._nt = False
            self._flip(TrumpReason.TRUMP_CHANGE)

    def _flip(self, reason: TrumpReason) -> None:
        """Turn stock cards until a colour card shows; an empty stock means no trump."""
        trump = None
        while self._stock:
            cid = self._stock.pop()
            self._flipped.append(cid)
            self._events.append(Flipped(DECK[cid]))
            trump = _CIDX[cid]
            if trump is not None:  # ruling R7: the old colour again simply stays trump
                break
        self._trump = trump
        self._events.append(TrumpSet(_colour_at(trump), reason))

    def _finish_trick(self) -> None:
        trump = None if self._nt else self._trump
        winner = self._trick[_winning_position(self._keys, self._lead, trump)][0]
        self._tricks_won[winner] += 1
        self._won[winner].extend([play.card.id for _, play in self._trick])
        self._tricks_done += 1
        self._events.append(TrickWon(self._tricks_done, winner, tuple(self._trick)))
        round_over = self._tricks_done == self._cards
        pending_flip = self._nt and not round_over  # rulings R5, R6
        self._new_trick()
        if pending_flip:
            self._flip(TrumpReason.NO_TRUMP)
        if round_over:
            self._end_round()
        else:
            self._current = winner

    def _end_round(self) -> None:
        if self._secret:
            self._events.append(BidsRevealed(tuple(self._made_bids())))
        result = RoundResult(self._round_no, self._cards, self._dealer, tuple(
            score_seat(bid, self._tricks_won[s], _action_points_of_ids(self._won[s]),
                       self._cards, self._durchmarsch)
            for s, bid in enumerate(self._made_bids())))
        self._results.append(result)
        for seat, seat_result in enumerate(result.seats):
            self._totals[seat] += seat_result.total
        self._events.append(RoundScored(result))
        if self._round_no == self._config.rounds:
            self._phase = Phase.OVER
            self._current = None
            self._events.append(GameOver(tuple(self._totals)))
            return
        round_no = self._round_no + 1
        hands, stock = _deal(self._rng, self._n, cards_in_round(round_no))
        self._start_round(round_no, (self._dealer + 1) % self._n, hands, stock)  # ruling R11


def _deal(rng: random.Random, players: int, cards: int) -> tuple[list[list[int]], list[int]]:
    """Shuffle all 112 cards; hands of `cards` ids each, and the stock top first."""
    ids = _shuffled_ids(rng)
    hands = [ids[s * cards:(s + 1) * cards] for s in range(players)]
    return hands, ids[players * cards:]


def _check_deal(config: RageConfig, hands: Sequence[Sequence[Card]], stock: Sequence[Card],
                dealer: int, round_no: int) -> None:
    if not 1 <= round_no <= config.rounds:
        raise ConfigError(f"round {round_no} is outside 1..{config.rounds}")
    if not 0 <= dealer < config.players:
        raise ConfigError(f"dealer {dealer} is not a seat of {config.players} players")
    if len(hands) != config.players:
        raise ConfigError(f"{len(hands)} hands dealt for {config.players} players")
    cards = cards_in_round(round_no)
    for seat, hand in enumerate(hands):
        if len(hand) != cards:
            raise ConfigError(f"seat {seat} holds {len(hand)} cards; round {round_no} deals {cards}")
    all_cards = [c for hand in hands for c in hand] + list(stock)
    for card in all_cards:
        if not _is_deck_card(card):
            raise ConfigError(f"{card!r} is not a Rage card")
    if len({c.id for c in all_cards}) != len(all_cards):
        raise ConfigError("a card is dealt twice")
