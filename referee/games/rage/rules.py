"""The Rage rules engine: deal, flip, bidding, plays, tricks, scoring, variants, events.

Pure: no I/O. Rulings R1-R11 are those of docs/rules.md, section Rage.

Internally a hand is a sorted list of card ids (colour card ids are
`colour_index * 16 + value`, so one colour is one contiguous run) and a colour is
its index in COLOURS; the public properties hand out Cards and Colours.
"""

from __future__ import annotations

import enum
import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat, starmap
from typing import Any, TypeAlias

from referee.errors import ConfigError, RuleError
from referee.games.rage.cards import (COLOUR_CARDS, COLOURS, DECK, VALUES_PER_COLOUR, Card, Colour,
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
        check_variants(self.variants)


def check_variants(variants: frozenset[Variant]) -> None:
    """ConfigError for variants that cannot be played together: the one place this is
    decided, for single games and tournament files alike."""
    hidden = {Variant.HIDDEN_BID, Variant.SECRET_BID} & variants
    if Variant.PLUS_MINUS_ONE in variants and hidden:  # ruling R10
        raise ConfigError("plus-minus-one cannot be combined with hidden-bid or secret-bid "
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

def _reneges(hand: Sequence[int], cid: int, lead: int) -> bool:
    """Whether playing card `cid` from the sorted hand fails to follow the lead colour:
    rulings R1, R2 allow another card only to a hand without that colour."""
    if _CIDX[cid] == lead:
        return False
    lo = bisect_left(hand, lead * VALUES_PER_COLOUR)
    return lo < len(hand) and hand[lo] < (lead + 1) * VALUES_PER_COLOUR


def _hand_plays(hand: Sequence[int]) -> list[Play]:
    """Every distinct play from a sorted hand, in canonical order.

    The colour cards come first, one play each, so they line up with the hand's indices.
    """
    plays = [_PLAY[i] for i in hand]
    if hand and hand[-1] >= COLOUR_CARDS:  # skip the action part when there is none
        first_action = bisect_left(hand, COLOUR_CARDS)
        del plays[first_action:]
        last_group: int | None = None
        for i in hand[first_action:]:
            if _FACE_GROUP[i] != last_group:
                last_group = _FACE_GROUP[i]
                plays.extend(_PLAYS[i])
    return plays


def _select_legal(hand: Sequence[int], plays: list[Play], lead: int | None) -> list[Play]:
    """The legal part of `plays` (= _hand_plays(hand)), as a new list.

    The one legal-play rule, for RageState.legal_plays and legal_plays_for alike: the
    lead-colour cards are one run of the sorted hand.
    """
    if lead is not None:
        lo = bisect_left(hand, lead * VALUES_PER_COLOUR)
        hi = bisect_left(hand, (lead + 1) * VALUES_PER_COLOUR, lo)
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


def _trick_points_and_bonus(bid: int, tricks: int, cards: int,
                            durchmarsch: bool) -> tuple[int, int]:
    # Durchmarsch doubles the trick points of a player who won every trick, except in the
    # one-card round 10.
    per_trick = 2 if durchmarsch and tricks == cards and cards > 1 else 1
    return per_trick * tricks, 10 if tricks == bid else -5


def score_seat(bid: int, tricks: int, action_points: int, cards: int,
               durchmarsch: bool) -> SeatRoundResult:
    """Score one seat's round from its bid, tricks won and the action points in them."""
    trick_points, bid_bonus = _trick_points_and_bonus(bid, tricks, cards, durchmarsch)
    return SeatRoundResult(bid, tricks, trick_points, action_points, bid_bonus,
                           trick_points + action_points + bid_bonus)


def rank_places(totals: Sequence[int], faulted: frozenset[int] = frozenset()) -> list[int]:
    """Competition places (ruling R9) of the seats without a fault; faulted seats all take
    the last place, so a table where every seat faulted has no first place."""
    if not all(0 <= s < len(totals) for s in faulted):
        raise ValueError(f"faulted seats {sorted(faulted)} outside 0..{len(totals) - 1}")
    clean = [t for s, t in enumerate(totals) if s not in faulted]
    return [len(totals) if s in faulted else 1 + sum(o > t for o in clean)
            for s, t in enumerate(totals)]


_ALL_IDS = range(len(DECK))


def _shuffled_ids(rng: random.Random) -> list[int]:
    """A uniformly random order of all card ids, seeded by `rng`."""
    # Sorting by random float keys is a uniform shuffle (a tie has odds about 1e-12 and
    # then keeps id order) and runs about 1.5x faster than random.shuffle here.
    # starmap calls rng.random() len(DECK) times from C: the same keys, a little faster.
    keys = list(starmap(rng.random, repeat((), len(_ALL_IDS))))
    return sorted(_ALL_IDS, key=keys.__getitem__)


# ---------------------------------------------------------------- lazy records

# A random playout never reads the events or the RoundResults, and the referee needs
# only their lines, but building a frozen dataclass costs ~7x a tuple. So the state logs
# each event as a raw record, (event type, *raw fields), and builds the Event objects
# only when `events`/`events_since` are read (once: every read hands out the same
# objects). The raw fields are the event's own, except where a record keeps the cheaper
# form the engine holds (see records_since), which hands the records out as they are.
Record: TypeAlias = tuple[Any, ...]


def _hand_dealt(seat: int, ids: tuple[int, ...]) -> HandDealt:
    return HandDealt(seat, tuple([DECK[i] for i in ids]))


def _trump_set(trump: int | None, reason: TrumpReason) -> TrumpSet:
    return TrumpSet(_colour_at(trump), reason)


def _trick_won(trick_no: int, winner: int, trick: list[tuple[int, Play]]) -> TrickWon:
    return TrickWon(trick_no, winner, tuple(trick))  # a finished trick's list never changes


class _LazyResult:
    """A round's RoundResult, built when first asked for from each seat's
    (bid, tricks, action points)."""

    __slots__ = ("_round_no", "_cards", "_dealer", "_seats", "_durchmarsch", "_result")

    def __init__(self, round_no: int, cards: int, dealer: int,
                 seats: list[tuple[int, int, int]], durchmarsch: bool) -> None:
        self._round_no, self._cards, self._dealer = round_no, cards, dealer
        self._seats, self._durchmarsch = seats, durchmarsch
        self._result: RoundResult | None = None

    def get(self) -> RoundResult:
        if self._result is None:
            self._result = RoundResult(self._round_no, self._cards, self._dealer, tuple(
                score_seat(bid, tricks, points, self._cards, self._durchmarsch)
                for bid, tricks, points in self._seats))
        return self._result


def _round_scored(result: _LazyResult) -> RoundScored:
    return RoundScored(result.get())


# The event types whose records hold other fields than the event: their builders.
_BUILDERS: dict[Any, Callable[..., Event]] = {HandDealt: _hand_dealt, TrumpSet: _trump_set,
                                             TrickWon: _trick_won, RoundScored: _round_scored}


_BIDDING, _PLAYING, _OVER = Phase.BID, Phase.PLAY, Phase.OVER


# ---------------------------------------------------------------- the state

def event_of(record: Record) -> Event:
    """The event a raw record (RageState.records_since) stands for."""
    kind: Callable[..., Event] = record[0]
    return _BUILDERS.get(kind, kind)(*record[1:])


class RageState:
    """A whole game of Rage, advanced one decision (bid or play) at a time.

    Build it with `new_game` or `from_deal`. All public attributes are read-only
    properties; the list-valued ones return fresh copies.
    """

    __slots__ = ("_config", "_n", "_rng", "_hidden", "_secret", "_durchmarsch",
                 "_plus_minus_one", "_phase", "_round_no", "_cards", "_dealer", "_current",
                 "_hands", "_plays", "_bids", "_bids_made", "_tricks_won", "_tricks_done",
                 "_trump", "_nt", "_trick", "_keys", "_lead", "_trick_points", "_stock",
                 "_stock_top", "_first_flip", "_won", "_action_points", "_results", "_totals",
                 "_log", "_events")
    _phase: Phase
    _round_no: int
    _cards: int
    _dealer: int
    _current: int  # meaningless once the game is over (current_seat is then None)
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
    _trick_points: int  # action points among the cards of the current trick
    # The stock is a list of ids, top first, turned by moving _stock_top; the cards turned
    # this round (the trump pile) are _stock[_first_flip:_stock_top]. A seeded deal keeps
    # the whole shuffled deck there, the dealt hands before _first_flip.
    _stock: list[int]
    _stock_top: int
    _first_flip: int
    _won: list[list[list[tuple[int, Play]]]]  # per seat, the tricks it won this round
    _action_points: list[int]  # per seat, the action points of the tricks it won

    def __init__(self, config: RageConfig, rng: random.Random, round_no: int, dealer: int,
                 hands: list[list[int]], stock: list[int], top: int) -> None:
        """Internal; use new_game or from_deal. `stock[top:]` is the stock, top first."""
        self._config = config
        self._n = config.players
        self._rng = rng
        self._hidden = Variant.HIDDEN_BID in config.variants
        self._secret = Variant.SECRET_BID in config.variants
        self._durchmarsch = Variant.DURCHMARSCH in config.variants
        self._plus_minus_one = Variant.PLUS_MINUS_ONE in config.variants
        self._results: list[_LazyResult] = []
        self._totals = [0] * self._n
        self._log: list[Record] = []
        self._events: list[Event] = []  # the first len(_events) records, built
        self._start_round(round_no, dealer, hands, stock, top)

    @classmethod
    def new_game(cls, config: RageConfig, seed: int) -> RageState:
        """A new game, dealt from `random.Random(seed)`; seat 0 deals round 1 (ruling R11)."""
        rng = random.Random(seed)
        return cls(config, rng, 1, 0, *_deal(rng, config.players, cards_in_round(1)))

    @classmethod
    def from_deal(cls, config: RageConfig, hands: Sequence[Sequence[Card]], stock: Sequence[Card],
                  dealer: int = 0, round_no: int = 1, seed: int = 0) -> RageState:
        """A game from an explicit deal (stock top first); later rounds from Random(seed)."""
        _check_deal(config, hands, stock, dealer, round_no)
        return cls(config, random.Random(seed), round_no, dealer,
                   [[c.id for c in hand] for hand in hands], [c.id for c in stock], 0)

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
        return None if self._phase is _OVER else self._current

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
        return [DECK[i] for i in self._stock[self._stock_top:]]

    @property
    def flipped(self) -> list[Card]:
        """The trump pile: every card turned this round, in order."""
        return [DECK[i] for i in self._stock[self._first_flip:self._stock_top]]

    @property
    def won_cards(self) -> list[list[Card]]:
        return [[DECK[play.card.id] for trick in tricks for _, play in trick]
                for tricks in self._won]

    @property
    def round_results(self) -> list[RoundResult]:
        return [result.get() for result in self._results]

    @property
    def events(self) -> list[Event]:
        if len(self._events) < len(self._log):
            self._build_events()
        return list(self._events)

    def events_since(self, index: int) -> list[Event]:
        """The events from position `index` on."""
        if index < 0:
            raise ValueError(f"event index must be >= 0, got {index}")
        if len(self._events) < len(self._log):
            self._build_events()
        return self._events[index:]

    def records_since(self, index: int) -> list[Record]:
        """The raw records of the events from position `index` on: the same events as
        events_since(index), unbuilt. A record is (event type, *fields), the fields being:
        RoundStarted (round_no, cards, dealer); HandDealt (seat, sorted card ids);
        Flipped (card); TrumpSet (colour index in COLOURS or None, reason); BidMade (seat,
        bid); BidsRevealed (bids); CardPlayed (seat, play); TrickWon (trick_no, winner,
        list of (seat, play)); RoundScored (a lazy result, whose get() is the
        RoundResult); GameOver (totals). The records are the engine's own: read only."""
        return self._log[index:]

    def totals(self) -> list[int]:
        """Each seat's score summed over the rounds scored so far."""
        return list(self._totals)

    def places(self, faulted: frozenset[int] = frozenset()) -> list[int]:
        """Competition places by total (ruling R9); faulted seats below all others."""
        return rank_places(self._totals, faulted)

    # ------------------------------------------------------------ decisions

    def legal_bids(self) -> list[int]:
        """The current seat's legal bids, ascending; empty outside bidding."""
        if self._phase is not _BIDDING:
            return []
        if not self._plus_minus_one:  # fast path: every bid 0..cards
            return list(range(self._cards + 1))
        return legal_bids_for(self._cards, self._made_bids(), self._current == self._dealer,
                              self._config.variants)

    def legal_plays(self) -> list[Play]:
        """The current seat's legal plays in canonical order; empty outside the play phase."""
        if self._phase is not _PLAYING:
            return []
        seat = self._current
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
        if self._phase is not _BIDDING:
            raise RuleError(f"no bid is due in phase {self._phase.value}")
        seat = self._current
        if (type(value) is not int or not 0 <= value <= self._cards
                or (self._plus_minus_one and value not in self.legal_bids())):
            raise RuleError(f"{self._bad_bid_reason(seat, value)} (legal: "
                            f"{' '.join(map(str, self.legal_bids()))})")
        self._bids[seat] = value
        self._bids_made += 1
        self._log.append((BidMade, seat, value))
        if self._bids_made < self._n:
            self._current = (seat + 1) % self._n
            return
        if self._hidden:
            self._log.append((BidsRevealed, tuple(self._made_bids())))
        self._phase = _PLAYING
        self._current = (self._dealer + 1) % self._n  # ruling R11: left of the dealer leads

    def play(self, play: Play) -> None:
        """The current seat plays `play`; RuleError if it is not legal."""
        if self._phase is not _PLAYING:
            raise RuleError(f"no play is due in phase {self._phase.value}")
        seat = self._current
        hand = self._hands[seat]
        # Fast path: a play of a held card, equal to one of that card's own plays (_PLAYS:
        # a deck card, rightly declared), has only following left to check. legal_plays
        # hands out those very objects, so `in` ends at its identity test. Any other play,
        # legal or not, gets the full checks.
        pos = bisect_left(hand, play.card.id)
        lead = self._lead
        if (pos == len(hand) or play not in _PLAYS[hand[pos]]
                or (lead is not None and _reneges(hand, hand[pos], lead))):
            pos = self._checked_position(seat, hand, play)  # raises unless the play is legal
        cid = hand[pos]
        del hand[pos]
        self._log.append((CardPlayed, seat, play))
        trick = self._trick
        if cid < COLOUR_CARDS:
            del self._plays[seat][pos]  # colour cards line up with the start of the play list
            key = _KEY[cid]
        else:
            self._plays[seat] = _hand_plays(hand)
            key = _play_key(play, len(trick))
            self._trick_points += _ACTION_POINTS[cid]
            self._action_effect(_KIND[cid])
        trick.append((seat, play))
        self._keys.append(key)
        if lead is None:
            self._lead = key[0]
        if len(trick) == self._n:
            self._finish_trick()
        else:
            self._current = (seat + 1) % self._n

    # ------------------------------------------------------------ internals

    def _build_events(self) -> None:
        """Build the events of the records not built yet."""
        self._events.extend(map(event_of, self._log[len(self._events):]))

    def _made_bids(self) -> list[int]:
        return [b for b in self._bids if b is not None]

    def _bad_bid_reason(self, seat: int, value: object) -> str:
        cards = self.cards
        if type(value) is not int or not 0 <= value <= cards:
            return f"seat {seat} must bid a whole number from 0 to {cards}, not {value!r}"
        return (f"plus-minus-one: the dealer (seat {seat}) may not bid {value}, "
                f"which would make the bids sum to {cards}, the number of cards")

    def _legal_said(self) -> str:
        """The legal plays, as a refusal tells them to the seat."""
        return f" (legal: {' '.join(p.notation for p in self.legal_plays())})"

    def _checked_position(self, seat: int, hand: list[int], play: Play) -> int:
        """Index of the played card in the sorted hand, after checking the play is legal."""
        card = play.card
        if not _is_deck_card(card):
            raise RuleError(f"{card!r} is not a Rage card")
        cid = card.id
        pos = bisect_left(hand, cid)
        if pos == len(hand) or hand[pos] != cid:
            raise RuleError(f"seat {seat} does not hold {card.face}{self._legal_said()}")
        if _KIND[cid] is Kind.JOKER:
            if not isinstance(play.declared, Colour):
                raise RuleError("a Joker must be played with a declared colour")
        elif play.declared is not None:
            raise RuleError(f"only a Joker declares a colour, not {card.face}")
        lead = self._lead
        if lead is not None and _reneges(hand, cid, lead):
            name = COLOURS[lead].name.lower()
            raise RuleError(f"seat {seat} must follow {name}: it holds {name} cards, "
                            f"so {play.notation} is not allowed{self._legal_said()}")
        return pos

    def _start_round(self, round_no: int, dealer: int, hands: list[list[int]],
                     stock: list[int], top: int) -> None:
        """Deal `hands` (fresh lists, kept and sorted in place) and turn the first trump."""
        n = self._n
        self._round_no = round_no
        self._cards = cards_in_round(round_no)
        self._dealer = dealer
        log = self._log
        log.append((RoundStarted, round_no, self._cards, dealer))
        self._hands, self._plays = hands, []
        for seat, hand in enumerate(hands):
            hand.sort()
            self._plays.append(_hand_plays(hand))
            log.append((HandDealt, seat, tuple(hand)))
        self._stock = stock
        self._stock_top = self._first_flip = top
        self._won = [[] for _ in range(n)]
        self._action_points = [0] * n
        self._bids = [None] * n
        self._bids_made = 0
        self._tricks_won = [0] * n
        self._tricks_done = 0
        self._new_trick()
        self._flip(TrumpReason.DEAL)
        self._phase = _BIDDING
        self._current = (dealer + 1) % n  # ruling R11: left of the dealer bids first

    def _new_trick(self) -> None:
        self._trick = []
        self._keys = []
        self._lead = None
        self._nt = False
        self._trick_points = 0

    def _action_effect(self, kind: Kind) -> None:
        if kind is Kind.NO_TRUMP:  # ruling R5: one flip after the trick, however many
            self._nt = True
        elif kind is Kind.TRUMP_CHANGE:  # ruling R5: flips now, cancels an earlier No Trump
            self._nt = False
            self._flip(TrumpReason.TRUMP_CHANGE)

    def _flip(self, reason: TrumpReason) -> None:
        """Turn stock cards until a colour card shows; an empty stock means no trump."""
        stock, top, log = self._stock, self._stock_top, self._log
        trump = None
        while top < len(stock):
            cid = stock[top]
            top += 1
            log.append((Flipped, DECK[cid]))
            trump = _CIDX[cid]
            if trump is not None:  # ruling R7: the old colour again simply stays trump
                break
        self._stock_top = top
        self._trump = trump
        log.append((TrumpSet, trump, reason))

    def _finish_trick(self) -> None:
        trick = self._trick
        trump = None if self._nt else self._trump
        winner = trick[_winning_position(self._keys, self._lead, trump)][0]
        self._tricks_won[winner] += 1
        self._won[winner].append(trick)
        self._action_points[winner] += self._trick_points
        self._tricks_done += 1
        self._log.append((TrickWon, self._tricks_done, winner, trick))
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
            self._log.append((BidsRevealed, tuple(self._made_bids())))
        cards, durchmarsch, totals = self._cards, self._durchmarsch, self._totals
        seats = list(zip(self._made_bids(), self._tricks_won, self._action_points))
        for seat, (bid, tricks, points) in enumerate(seats):
            trick_points, bid_bonus = _trick_points_and_bonus(bid, tricks, cards, durchmarsch)
            totals[seat] += trick_points + points + bid_bonus
        result = _LazyResult(self._round_no, cards, self._dealer, seats, durchmarsch)
        self._results.append(result)
        self._log.append((RoundScored, result))
        if self._round_no == self._config.rounds:
            self._phase = _OVER
            self._log.append((GameOver, tuple(totals)))
            return
        round_no = self._round_no + 1
        dealer = (self._dealer + 1) % self._n  # ruling R11
        self._start_round(round_no, dealer, *_deal(self._rng, self._n, cards_in_round(round_no)))


def _deal(rng: random.Random, players: int, cards: int) -> tuple[list[list[int]], list[int], int]:
    """Shuffle all 112 cards; hands of `cards` ids each, and the shuffled ids with the
    index of the stock's top card (the stock follows the hands)."""
    ids = _shuffled_ids(rng)
    hands = [ids[s * cards:(s + 1) * cards] for s in range(players)]
    return hands, ids, players * cards


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
