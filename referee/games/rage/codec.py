"""Rage protocol v2: every line as a typed message, encoded by the referee and decoded by
the Python bot SDK, and the parsers of the bots' replies.

The spec for bot authors is protocols/rage.md (its table "Lines from the referee" lists
the messages below in order); its example transcript is a test vector. Decoding is strict
(protocols/message.py): a line decodes only in the very spelling its encoder writes.

Each message's static `line` formats it from plain values: the referee calls it, and
builds no message objects.

Only the codec's cards (referee/games/rage/cards.py) are imported with it: the rules
engine (referee/games/rage/rules.py) is imported when a line first needs one of its types (a
GAME line's variants, a TRUMP line's reason, the referee's events), so that a bot which
never reads those starts without it (a fresh sandboxed bot starts for every game).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Self, Sequence

from protocols.message import (
    SHARED_MESSAGES, Message, NumberList, Numbers, decode_with, encode_with, fields,
    format_game_line, game_settings, keyword_table, member, number, number_words, numbers,
    settings, small_number,
)
from protocols.wire import WireError, ascii_number, key_values, quote
from referee.games.rage.cards import COLOURS, DECK, Card, Colour, Kind, Play, cards_from_faces
from protocols.clock import Clock

if TYPE_CHECKING:
    from referee.games.rage.rules import Event, RoundScored, TrumpReason, Variant

GAME = "rage"
BID_REQUEST = "BID?"
PLAY_REQUEST = "PLAY?"
MAX_BID_DIGITS = 3

# A face names the lowest-id copy of its card: copies of an action card are not told apart
# on the wire (rage.md, Cards), so that is the copy a decoder gives.
_CARD_OF_FACE: dict[str, Card] = {card.face: card for card in reversed(DECK)}
_PLAY_OF_NOTATION: dict[str, Play] = {
    play.notation: play for card in _CARD_OF_FACE.values() for play in (
        [Play(card, colour) for colour in COLOURS] if card.kind is Kind.JOKER
        else [Play(card)])}


# Spellings taken in C (map), not by a generator resumed per card: every request lists plays.
_FACE = attrgetter("face")
_NOTATION = attrgetter("notation")


def _ints(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def variants_word(variants: frozenset[Variant]) -> str:
    """`none` or the variant names joined by commas, in a fixed order."""
    names = sorted(v.value for v in variants)
    return ",".join(names) if names else "none"


def _variants(word: str) -> frozenset[Variant]:
    """`none` or names, each once and in variants_word's order."""
    if word == "none":
        return frozenset()
    from referee.games.rage.rules import Variant

    variants = frozenset(member(Variant, name, "variant") for name in word.split(","))
    if variants_word(variants) != word:
        raise WireError(f"variants are listed once each, sorted: {quote(word)}")
    return variants


def _card(face: str) -> Card:
    card = _CARD_OF_FACE.get(face)
    if card is None:
        raise WireError(f"not a card face: {quote(face)}")
    return card


def _cards(faces: Sequence[str]) -> tuple[Card, ...]:
    """Distinct physical cards: a repeated action face takes the next copy in the deck."""
    try:  # once a round: one lookup per word, no call
        cards = tuple([_CARD_OF_FACE[face] for face in faces])
    except KeyError as missing:
        raise WireError(f"not a card face: {quote(missing.args[0])}") from None
    if len(set(faces)) == len(faces):  # each face's first copy: what the common hand holds
        return cards
    try:
        return tuple(cards_from_faces(" ".join(faces))[0])
    except ValueError as error:  # more copies than the deck has
        raise WireError(str(error)) from None


def _play(notation: str) -> Play:
    play = _PLAY_OF_NOTATION.get(notation)
    if play is None:
        raise WireError(f"not a play in the notation: {quote(notation)}")
    return play


def play_of_notation(notation: str) -> Play:
    """The play `notation` writes, with the deck's first card of that face (whoever holds
    it); WireError if it writes none."""
    return _play(notation)


def _plays(notations: Sequence[str]) -> tuple[Play, ...]:
    try:  # once per decision, so one lookup per word and no call
        return tuple([_PLAY_OF_NOTATION[notation] for notation in notations])
    except KeyError as missing:
        raise WireError(f"not a play in the notation: {quote(missing.args[0])}") from None


# ---- the lines from the referee (rage.md, "Lines from the referee") -----------------

@dataclass(frozen=True, slots=True)
class Game(Message):
    """`GAME rage protocol=2 seat=S players=N rounds=R variants=V move_ms=M bank_ms=B`,
    then `clock=cpu` where those times count CPU time."""

    KEYWORD: ClassVar[str] = "GAME"
    seat: int
    players: int
    rounds: int
    variants: frozenset[Variant]
    move_ms: int
    bank_ms: int
    clock: Clock = Clock.WALL  # what move_ms and bank_ms count

    @staticmethod
    def line(seat: int, players: int, rounds: int, variants: frozenset[Variant],
             move_ms: int, bank_ms: int, clock: Clock = Clock.WALL) -> str:
        return format_game_line(GAME, seat, players,
                                {"rounds": rounds, "variants": variants_word(variants)},
                                move_ms, bank_ms, clock)

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        seat, players, (rounds, variants), move_ms, bank_ms, clock = game_settings(
            words, GAME, ("rounds", "variants"),
            lambda own: (number(own[0], "rounds"), _variants(own[1])))
        return cls(seat, players, rounds, variants, move_ms, bank_ms, clock)


@dataclass(frozen=True, slots=True)
class Round(Message):
    """`ROUND r cards=k dealer=d`."""

    KEYWORD: ClassVar[str] = "ROUND"
    round_no: int
    cards: int
    dealer: int

    @staticmethod
    def line(round_no: int, cards: int, dealer: int) -> str:
        return f"ROUND {round_no} cards={cards} dealer={dealer}"

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        round_no, *rest = fields(words, 3, cls.KEYWORD)
        cards, dealer = settings(rest, ("cards", "dealer"))
        return cls(number(round_no, "round"), number(cards, "cards"), number(dealer, "dealer"))


@dataclass(frozen=True, slots=True)
class Hand(Message):
    """`HAND c1 c2 ...`: your cards for this round."""

    KEYWORD: ClassVar[str] = "HAND"
    cards: tuple[Card, ...]

    @staticmethod
    def line(cards: Sequence[Card]) -> str:
        return " ".join(["HAND", *map(_FACE, cards)])

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        return cls(_cards(words))


@dataclass(frozen=True, slots=True)
class Flip(Message):
    """`FLIP c`: a card turned onto the trump pile."""

    KEYWORD: ClassVar[str] = "FLIP"
    card: Card

    @staticmethod
    def line(card: Card) -> str:
        return f"FLIP {card.face}"

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        return cls(_card(fields(words, 1, cls.KEYWORD)[0]))


@dataclass(frozen=True, slots=True)
class Trump(Message):
    """`TRUMP x why`: the trump colour (None: `none`) and why it was set."""

    KEYWORD: ClassVar[str] = "TRUMP"
    colour: Colour | None
    reason: TrumpReason

    @staticmethod
    def line(colour: Colour | None, reason: TrumpReason) -> str:
        return f"TRUMP {colour.value if colour else 'none'} {reason}"

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        colour, reason = fields(words, 2, cls.KEYWORD)
        from referee.games.rage.rules import TrumpReason

        return cls(None if colour == "none" else member(Colour, colour, "colour"),
                   member(TrumpReason, reason, "trump reason"))


@dataclass(frozen=True, slots=True)
class _BidList(NumberList):
    """A keyword and bids: BID? and BIDS."""

    bids: tuple[int, ...]

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        return cls(number_words(words, "bid"))


@dataclass(frozen=True, slots=True)
class BidRequest(_BidList):
    """`BID? b1 b2 ...`: a request; reply one of the listed bids."""

    KEYWORD: ClassVar[str] = BID_REQUEST


@dataclass(frozen=True, slots=True)
class Bid(Numbers):
    """`BID s b`: seat `s` bid `b`."""

    KEYWORD: ClassVar[str] = "BID"
    seat: int
    bid: int


@dataclass(frozen=True, slots=True)
class Bids(_BidList):
    """`BIDS b0 b1 ...`: every seat's bid, revealed."""

    KEYWORD: ClassVar[str] = "BIDS"


@dataclass(frozen=True, slots=True)
class PlayRequest(Message):
    """`PLAY? p1 p2 ...`: a request; reply one of the listed plays."""

    KEYWORD: ClassVar[str] = PLAY_REQUEST
    plays: tuple[Play, ...]

    @staticmethod
    def line(plays: Sequence[Play]) -> str:
        return " ".join([PLAY_REQUEST, *map(_NOTATION, plays)])

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        return cls(_plays(words))


@dataclass(frozen=True, slots=True)
class Played(Message):
    """`PLAYED s p`: seat `s` played `p`."""

    KEYWORD: ClassVar[str] = "PLAYED"
    seat: int
    play: Play

    @staticmethod
    def line(seat: int, play: Play) -> str:
        return f"PLAYED {seat} {play.notation}"

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        if len(words) == 2:  # a bot reads one a seat a trick: lookups first, no calls
            seat, play = small_number(words[0]), _PLAY_OF_NOTATION.get(words[1])
            if seat is not None and play is not None:
                return cls(seat, play)
        seat_word, notation = fields(words, 2, cls.KEYWORD)
        return cls(number(seat_word, "seat"), _play(notation))


@dataclass(frozen=True, slots=True)
class Trick(Numbers):
    """`TRICK t w`: trick `t` of the round was won by seat `w`."""

    KEYWORD: ClassVar[str] = "TRICK"
    trick_no: int
    winner: int


@dataclass(frozen=True, slots=True)
class Score(Message):
    """`SCORE r bids=.. tricks=.. points=..`: the round's scores, per seat."""

    KEYWORD: ClassVar[str] = "SCORE"
    round_no: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...]

    @staticmethod
    def line(round_no: int, bids: Sequence[int], tricks: Sequence[int],
             points: Sequence[int]) -> str:
        return f"SCORE {round_no} " + key_values({
            "bids": _ints(bids), "tricks": _ints(tricks), "points": _ints(points)})

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        round_no, *rest = fields(words, 4, cls.KEYWORD)
        bids, tricks, points = settings(rest, ("bids", "tricks", "points"))
        score = cls(number(round_no, "round"), numbers(bids, "bids"),
                    numbers(tricks, "tricks"), numbers(points, "points"))
        if not len(score.bids) == len(score.tricks) == len(score.points):
            raise WireError("a SCORE line has one bid, trick count and points per seat")
        return score


@dataclass(frozen=True, slots=True)
class End(Message):
    """`END totals=... places=...`: the game is over."""

    KEYWORD: ClassVar[str] = "END"
    totals: tuple[int, ...]
    places: tuple[int, ...]

    @staticmethod
    def line(totals: Sequence[int], places: Sequence[int]) -> str:
        return "END " + key_values({"totals": _ints(totals), "places": _ints(places)})

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        totals, places = settings(words, ("totals", "places"))
        end = cls(numbers(totals, "totals"), numbers(places, "places"))
        if len(end.totals) != len(end.places):
            raise WireError("an END line has one total and one place per seat")
        return end


MESSAGES: tuple[type[Message], ...] = (
    Game, Round, Hand, Flip, Trump, BidRequest, Bid, Bids, PlayRequest, Played, Trick,
    Score, End, *SHARED_MESSAGES)
_BY_KEYWORD = keyword_table(MESSAGES)


def decode(line: str) -> Message:
    """Any line the referee sends a Rage bot, as its message; WireError for anything else."""
    return decode_with(_BY_KEYWORD, line)


# ---- the referee's encoders ---------------------------------------------------------

def game_line(seat: int, players: int, variants: frozenset[Variant], rounds: int,
              move_ms: int, bank_ms: int, clock: Clock = Clock.WALL) -> str:
    """The first line of every game: who you are and the settings."""
    return Game.line(seat, players, rounds, variants, move_ms, bank_ms, clock)


def _score_line(event: RoundScored) -> str:
    result = event.result
    seats = result.seats
    return Score.line(result.round_no, [s.bid for s in seats], [s.tricks for s in seats],
                      [s.total for s in seats])


# The line announcing each event type: a dict lookup, where a match statement would try the
# cases in turn before the common CardPlayed. Filled at the first event: only the referee
# encodes events, and the event types are the engine's.
_ENCODERS: dict[type, Callable[[Any], str]] = {}


def _event_encoders() -> dict[type, Callable[[Any], str]]:
    from referee.games.rage.rules import (
        BidMade, BidsRevealed, CardPlayed, Flipped, HandDealt, RoundScored, RoundStarted,
        TrickWon, TrumpSet,
    )

    _ENCODERS.update({
        CardPlayed: lambda e: Played.line(e.seat, e.play),
        TrickWon: lambda e: Trick.line(e.trick_no, e.winner),
        BidMade: lambda e: Bid.line(e.seat, e.bid),
        RoundStarted: lambda e: Round.line(e.round_no, e.cards, e.dealer),
        HandDealt: lambda e: Hand.line(e.cards),
        Flipped: lambda e: Flip.line(e.card),
        TrumpSet: lambda e: Trump.line(e.colour, e.reason),
        BidsRevealed: lambda e: Bids.line(e.bids),
        RoundScored: _score_line,
    })
    return _ENCODERS


def encode_event(event: Event) -> str | None:
    """The line announcing an engine event, or None for events sent otherwise (GameOver)."""
    return encode_with(_ENCODERS or _event_encoders(), event)


# The same lines from the engine's raw records (RageState.records_since), for the
# referee's delivery: no Event is built, and the common lines are written here inline,
# as Played.line, Trick.line and Bid.line write them (tests/protocols hold them equal).
_RECORD_ENCODERS: dict[type, Callable[[Any], str]] = {}
_FACE_OF_ID = tuple(map(_FACE, DECK))


def record_encoders() -> dict[type, Callable[[Any], str]]:
    """Event type -> the line of a raw record of that type (None: no line, GameOver)."""
    if _RECORD_ENCODERS:
        return _RECORD_ENCODERS
    from referee.games.rage.rules import (
        BidMade, BidsRevealed, CardPlayed, Flipped, HandDealt, RoundScored, RoundStarted,
        TrickWon, TrumpSet,
    )

    _RECORD_ENCODERS.update({
        CardPlayed: lambda r: f"PLAYED {r[1]} {r[2].notation}",
        TrickWon: lambda r: f"TRICK {r[1]} {r[2]}",
        BidMade: lambda r: f"BID {r[1]} {r[2]}",
        RoundStarted: lambda r: Round.line(r[1], r[2], r[3]),
        HandDealt: lambda r: " ".join(["HAND", *map(_FACE_OF_ID.__getitem__, r[2])]),
        Flipped: lambda r: Flip.line(r[1]),
        TrumpSet: lambda r: Trump.line(None if r[1] is None else COLOURS[r[1]], r[2]),
        BidsRevealed: lambda r: Bids.line(r[1]),
        RoundScored: lambda r: _score_line(RoundScored(r[1].get())),
    })
    return _RECORD_ENCODERS


def encode_record(record: tuple[Any, ...]) -> str | None:
    """The line announcing the event of a raw record, or None (GameOver)."""
    encoder = (_RECORD_ENCODERS or record_encoders()).get(record[0])
    return None if encoder is None else encoder(record)


bid_request = BidRequest.line  # (legal bids) -> the line
play_request = PlayRequest.line  # (legal plays) -> the line
end_line = End.line  # (totals, places) -> the line


# ---- the bots' replies: encoders for bots, parsers for the referee ------------------

def bid_reply(bid: int) -> str:
    """A reply to BID?: the bid in digits."""
    return str(bid)


def parse_bid(reply: str) -> int:
    """A bid reply: a whole number in ASCII digits, nothing else. WireError if malformed."""
    bid = ascii_number(reply.strip(), MAX_BID_DIGITS)
    if bid is None:
        raise WireError(f"a bid must be a whole number, got {quote(reply)}")
    return bid


def play_reply(play: Play) -> str:
    """A reply to PLAY?: the play in the notation (a Joker with its declared colour)."""
    return play.notation


def check_play_syntax(reply: str) -> str:
    """A play reply: one card in the notation (a Joker with `:colour`). WireError if malformed."""
    text = reply.strip()
    if text in _PLAY_OF_NOTATION:
        return text
    if text == "J" or text.startswith("J:"):
        raise WireError(f"a Joker must declare a colour, e.g. J:r; got {quote(reply)}")
    raise WireError(f"not a card in the notation: {quote(reply)}")
