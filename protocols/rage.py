"""Rage protocol v2: pure codecs for every line, used by the referee and the Python bot SDK.

The spec for bot authors is protocols/rage.md; its example transcript is a test vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from protocols.wire import (
    PROTOCOL_VERSION, WireError, ascii_number, key_values, parse_key_values, quote,
)
from referee.games.rage import (
    BidMade, BidsRevealed, CardPlayed, Event, Flipped, HandDealt, RoundScored,
    RoundStarted, TrickWon, TrumpSet, Variant,
)
from referee.games.rage_cards import COLOURS, Colour, Play

GAME = "rage"
BID_REQUEST = "BID?"
PLAY_REQUEST = "PLAY?"
MAX_BID_DIGITS = 3

_FACES = {f"{c.value}{v}" for c in COLOURS for v in range(16)} | {"J", "NT", "TC", "+5", "-5"}
_JOKER_PLAYS = {f"J:{c.value}" for c in COLOURS}


def _ints(values: Sequence[int]) -> str:
    return ",".join(str(v) for v in values)


def variants_word(variants: frozenset[Variant]) -> str:
    """`none` or the variant names joined by commas, in a fixed order."""
    names = sorted(v.value for v in variants)
    return ",".join(names) if names else "none"


def game_line(seat: int, players: int, variants: frozenset[Variant], rounds: int,
              move_ms: int, bank_ms: int) -> str:
    """The first line of every game: who you are and the settings."""
    return f"GAME {GAME} " + key_values({
        "protocol": PROTOCOL_VERSION, "seat": seat, "players": players, "rounds": rounds,
        "variants": variants_word(variants), "move_ms": move_ms, "bank_ms": bank_ms})


def _round_line(event: RoundStarted) -> str:
    return f"ROUND {event.round_no} " + key_values({"cards": event.cards, "dealer": event.dealer})


def _score_line(event: RoundScored) -> str:
    result = event.result
    seats = result.seats
    return f"SCORE {result.round_no} " + key_values({
        "bids": _ints([s.bid for s in seats]),
        "tricks": _ints([s.tricks for s in seats]),
        "points": _ints([s.total for s in seats])})


# One encoder per event type: a dict lookup, where a match statement would try the
# cases in turn before the common CardPlayed.
_ENCODERS: dict[type, Callable[[Any], str]] = {
    CardPlayed: lambda e: f"PLAYED {e.seat} {e.play.notation}",
    TrickWon: lambda e: f"TRICK {e.trick_no} {e.winner}",
    BidMade: lambda e: f"BID {e.seat} {e.bid}",
    RoundStarted: _round_line,
    HandDealt: lambda e: " ".join(["HAND", *(c.face for c in e.cards)]),
    Flipped: lambda e: f"FLIP {e.card.face}",
    TrumpSet: lambda e: f"TRUMP {e.colour.value if e.colour else 'none'} {e.reason}",
    BidsRevealed: lambda e: " ".join(["BIDS", *(str(b) for b in e.bids)]),
    RoundScored: _score_line,
}


def encode_event(event: Event) -> str | None:
    """The line announcing an engine event, or None for events sent otherwise (GameOver)."""
    encoder = _ENCODERS.get(type(event))
    return None if encoder is None else encoder(event)


def bid_request(legal: Sequence[int]) -> str:
    return " ".join([BID_REQUEST, *(str(b) for b in legal)])


def play_request(legal: Sequence[Play]) -> str:
    return " ".join([PLAY_REQUEST, *(p.notation for p in legal)])


def end_line(totals: Sequence[int], places: Sequence[int]) -> str:
    return "END " + key_values({"totals": _ints(totals), "places": _ints(places)})


def parse_bid(reply: str) -> int:
    """A bid reply: a whole number in ASCII digits, nothing else. WireError if malformed."""
    bid = ascii_number(reply.strip(), MAX_BID_DIGITS)
    if bid is None:
        raise WireError(f"a bid must be a whole number, got {quote(reply)}")
    return bid


def check_play_syntax(reply: str) -> str:
    """A play reply: one card in the notation (a Joker with `:colour`). WireError if malformed."""
    text = reply.strip()
    if text in _JOKER_PLAYS or (text in _FACES and text != "J"):
        return text
    if text == "J" or text.startswith("J:"):
        raise WireError(f"a Joker must declare a colour, e.g. J:r; got {quote(reply)}")
    raise WireError(f"not a card in the notation: {quote(reply)}")


# ---- decoding, for bots -------------------------------------------------------------

@dataclass(frozen=True)
class Message:
    """A referee line split into its keyword and words, plus `k=v` settings where present."""

    keyword: str
    words: tuple[str, ...]

    @property
    def settings(self) -> dict[str, str]:
        return parse_key_values([w for w in self.words if "=" in w])


def parse_message(line: str) -> Message:
    """Split any referee line; bots dispatch on `.keyword`."""
    parts = line.split()
    if not parts:
        raise WireError("empty line")
    return Message(parts[0], tuple(parts[1:]))


def parse_colour(letter: str) -> Colour | None:
    """`none` -> None, a colour letter -> the Colour."""
    return None if letter == "none" else Colour(letter)
