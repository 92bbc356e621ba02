"""Typed messages: one frozen dataclass per kind of line, its encoder and decoder side by side.

Decoding is strict: every field reader below accepts exactly the spelling its encoder
writes (no `007`, no `-0`, no extra space, keys in their order). So every message has one
spelling: `decode(encode(m)) == m`, and `encode(decode(line)) == line` for every line that
decodes at all. Anything else, however hostile, is a WireError: the readers never let
another exception through (tests/protocols/test_codecs.py fuzzes both properties).
The lines every game shares (`ERROR`, `BYE`: protocols/README.md) are here too.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Self, TypeVar

from protocols.wire import PROTOCOL_VERSION, WireError, error_line, key_values, quote
from protocols.faults import FaultKind
from protocols.clock import Clock

# One spelling per number (no leading zeros, no -0), in ASCII digits (int() also reads
# '٣'), and at most 9 digits: no number on the wire is larger, and int() of a huge text is slow.
_NUMBER = re.compile(r"0|-?[1-9][0-9]{0,8}")
# Most numbers are small (seats, bids, cards): those are looked up, not parsed.
_SMALL: dict[str, int] = {str(n): n for n in range(1000)}
_ENUM = TypeVar("_ENUM", bound=enum.Enum)
_OWN = TypeVar("_OWN")
_CLOCK_KEY = "clock"


class Message:
    """A line of the protocol; subclasses are frozen dataclasses naming their KEYWORD."""

    __slots__ = ()
    KEYWORD: ClassVar[str]
    __match_args__: ClassVar[tuple[str, ...]]  # the dataclass's fields, in order
    # The line from the fields' values, in their order. Static, so that the referee formats
    # its lines without building messages (some 400 a Rage game: bench/rage_referee.py).
    line: ClassVar[Callable[..., str]]

    def encode(self) -> str:
        """The line, without a line break."""
        return self.line(*[getattr(self, name) for name in self.__match_args__])

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        """The message from the words after the keyword; WireError if they do not fit."""
        raise NotImplementedError


M = TypeVar("M", bound=Message)


def decode_as(kind: type[M], line: str) -> M:
    """`line` as a `kind` message: WireError unless it is exactly what `kind` encodes."""
    keyword, space, rest = line.partition(" ")
    if keyword != kind.KEYWORD:
        raise WireError(f"expected a {kind.KEYWORD} line, got {quote(line)}")
    # Split on single spaces: a doubled or trailing space leaves an empty word, refused.
    return kind.from_words(rest.split(" ") if space else [])


def check_spelling(message: M, words: Sequence[str]) -> M:
    """`message` if it encodes back to its line; for the fields a reader cannot check alone
    (an order, white space in free text)."""
    if message.encode() != " ".join([message.KEYWORD, *words]):
        raise WireError(f"not how the protocol writes a {message.KEYWORD} line")
    return message


def keyword_table(kinds: Iterable[type[Message]]) -> Mapping[str, type[Message]]:
    """Keyword -> message type, for a game's `decode`."""
    return {kind.KEYWORD: kind for kind in kinds}


def decode_with(kinds: Mapping[str, type[Message]], line: str) -> Message:
    """Any line of a game, given its keyword table; WireError for anything else."""
    kind = kinds.get(line.partition(" ")[0])
    if kind is None:
        raise WireError(f"not a line of this protocol: {quote(line)}")
    return decode_as(kind, line)


def encode_with(encoders: Mapping[type, Callable[[Any], str]], event: object) -> str | None:
    """The line announcing an engine event, given a game's table of an encoder per event
    type (a dict lookup: the common events need no chain of cases); None for an event
    with no line of its own."""
    encoder = encoders.get(type(event))
    return None if encoder is None else encoder(event)


# ---- field readers: each returns a value or raises WireError -------------------------

def small_number(word: str) -> int | None:
    """`word` if it spells a number from 0 to 999 (seats, bids, cards), else None: a
    decoder's fast path, which falls back to `number` for the rest and the errors."""
    return _SMALL.get(word)


def number(word: str, what: str) -> int:
    """A whole number in ASCII digits, maybe negative (scores are)."""
    value = _SMALL.get(word)
    if value is not None:
        return value
    if _NUMBER.fullmatch(word) is None:
        raise WireError(f"{what} must be a number, got {quote(word)}")
    return int(word)


def number_words(words: Sequence[str], what: str) -> tuple[int, ...]:
    """One number a word (a BID? line's bids: one lookup each in the common case)."""
    try:
        return tuple([_SMALL[word] for word in words])
    except KeyError:
        return tuple(number(word, what) for word in words)


def number_fields(words: Sequence[str], names: Sequence[str], keyword: str) -> list[int]:
    """Exactly one number per name, e.g. `BID s b`."""
    return [number(word, name) for word, name in zip(fields(words, len(names), keyword), names)]


def numbers(text: str, what: str) -> tuple[int, ...]:
    """Comma-separated numbers, at least one."""
    return number_words(text.split(","), what)


def in_range(word: str, what: str, low: int, high: int) -> int:
    """A number from `low` to `high`."""
    value = number(word, what)
    if not low <= value <= high:
        raise WireError(f"{what} must be {low} to {high}, got {value}")
    return value


def member(kind: type[_ENUM], word: str, what: str) -> _ENUM:
    """The enum member whose value is `word`."""
    try:
        return kind(word)
    except ValueError:
        raise WireError(f"unknown {what} {quote(word)}") from None


def fields(words: Sequence[str], count: int, what: str) -> Sequence[str]:
    """Exactly `count` words."""
    if len(words) != count:
        raise WireError(f"a {what} line has {count} words after the keyword, got {len(words)}")
    return words


def settings(words: Sequence[str], keys: Sequence[str]) -> list[str]:
    """The values of `key=value` words: exactly these keys, in this order."""
    fields(words, len(keys), "+".join(keys))
    values = []
    for word, key in zip(words, keys):
        name, sep, value = word.partition("=")
        if name != key or not sep:
            raise WireError(f"expected {key}=..., got {quote(word)}")
        values.append(value)
    return values


# ---- the GAME line: what every game's has, around the game's own settings -----------

def format_game_line(game: str, seat: int, players: int, own: Mapping[str, object],
                     move_ms: int, bank_ms: int, clock: Clock) -> str:
    """`GAME <game> protocol=2 seat=S players=N`, the game's `own` settings, `move_ms=M
    bank_ms=B`, and the clock's setting if any (README.md, A bot's life)."""
    return f"GAME {game} " + key_values({
        "protocol": PROTOCOL_VERSION, "seat": seat, "players": players, **own,
        "move_ms": move_ms, "bank_ms": bank_ms, **clock_setting(clock)})


def game_settings(words: Sequence[str], game: str, own_keys: Sequence[str],
                  read_own: Callable[[Sequence[str]], _OWN]
                  ) -> tuple[int, int, _OWN, int, int, Clock]:
    """The inverse of format_game_line, from the words after `GAME`: seat, players, the game's
    own settings (the values of `own_keys`, as `read_own` reads them), move_ms, bank_ms
    and the clock, read in the line's order."""
    if not words or words[0] != game:
        raise WireError(f"not a game of {game}: {quote(' '.join(words[:1]))}")
    words, clock = _clock_word(words)
    protocol, seat, players, *own, move_ms, bank_ms = settings(
        words[1:], ["protocol", "seat", "players", *own_keys, "move_ms", "bank_ms"])
    if protocol != str(PROTOCOL_VERSION):
        raise WireError(f"protocol {quote(protocol)}; this codec speaks {PROTOCOL_VERSION}")
    return (number(seat, "seat"), number(players, "players"), read_own(own),
            number(move_ms, "move_ms"), number(bank_ms, "bank_ms"), clock)


def clock_setting(clock: Clock) -> dict[str, str]:
    """The GAME line's optional last setting: `clock=cpu` when move_ms and bank_ms count
    CPU time; nothing for the wall clock, the default, so that those lines read as they
    did before the key (README.md, Time)."""
    return {} if clock is Clock.WALL else {_CLOCK_KEY: clock.value}


def _clock_word(words: Sequence[str]) -> tuple[Sequence[str], Clock]:
    """`words` without a last `clock=...` word, and the clock it names (else the wall's)."""
    if not words or not words[-1].startswith(_CLOCK_KEY + "="):
        return words, Clock.WALL
    clock = member(Clock, words[-1].partition("=")[2], "clock")
    if not clock_setting(clock):  # one spelling: the default is never written
        raise WireError(f"the wall clock is the default, never written: {quote(words[-1])}")
    return words[:-1], clock


def _numbers_line(keyword: str, values: Iterable[int]) -> str:
    return " ".join([keyword, *map(str, values)])


@dataclass(frozen=True, slots=True)
class Numbers(Message):
    """A keyword and one number per field, e.g. `BID s b`: a subclass declares the fields."""

    @classmethod
    def line(cls, *values: int) -> str:
        return _numbers_line(cls.KEYWORD, values)

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        try:  # most lines a bot reads (BID, TRICK): small numbers, one lookup each
            values = [_SMALL[word] for word in words]
        except KeyError:
            values = []
        if len(values) != len(cls.__match_args__):  # the strict reading says what is wrong
            values = number_fields(words, cls.__match_args__, cls.KEYWORD)
        return cls(*values)


@dataclass(frozen=True, slots=True)
class NumberList(Message):
    """A keyword and any count of numbers, e.g. `BIDS b0 b1 ...`: a subclass declares the
    one field (a tuple) and reads the words (from_words)."""

    @classmethod
    def line(cls, values: Sequence[int]) -> str:
        return _numbers_line(cls.KEYWORD, values)


# ---- the lines every game shares ----------------------------------------------------

@dataclass(frozen=True, slots=True)
class Error(Message):
    """`ERROR <kind> <detail>`: you faulted (sent just before your process is stopped)."""

    KEYWORD: ClassVar[str] = "ERROR"
    kind: FaultKind
    detail: str  # one space between words; cut short with "..." to fit a line

    @staticmethod
    def line(kind: FaultKind, detail: str) -> str:
        return error_line(kind.value, detail)

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        if not words:
            raise WireError("an ERROR line names the fault's kind")
        # the detail's spaces are single and the line not cut short only if it reads back
        message = cls(member(FaultKind, words[0], "fault kind"), " ".join(words[1:]))
        return check_spelling(message, words)


@dataclass(frozen=True, slots=True)
class Bye(Message):
    """`BYE`: no more games, exit now."""

    KEYWORD: ClassVar[str] = "BYE"

    @staticmethod
    def line() -> str:
        return Bye.KEYWORD

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        fields(words, 0, cls.KEYWORD)
        return cls()


SHARED_MESSAGES: tuple[type[Message], ...] = (Error, Bye)
