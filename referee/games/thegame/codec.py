"""The Game Extreme protocol v2: every line as a typed message, encoded by the referee and
decoded by the Python bot SDK, and the parsers of the bots' replies.

The spec for bot authors is protocols/thegame.md (its table "Lines from the referee" lists
the messages below in order); its example transcript is a test vector. Decoding is strict
(protocols/message.py): a line decodes only in the very spelling its encoder writes.
Each message's static `line` formats it from plain values, for the referee.
A turn is one whole reply (see the spec for why), e.g. `a:37 a:27 c:92`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Self, Sequence

from protocols.message import (
    SHARED_MESSAGES, Message, NumberList, Numbers, check_spelling, decode_with, encode_with,
    fields, format_game_line, game_settings, in_range, keyword_table, member, number,
    settings,
)
from protocols.wire import WireError, key_values, quote
from referee.errors import ConfigError
from referee.games.thegame import rules as engine
from referee.games.thegame.rules import (
    ASCENDING_START, DESCENDING_START, PILE_NAMES, EndReason, Ending, Placement, Turn,
)
from referee.games.thegame.commands import HIGHEST_CARD, LOWEST_CARD, Command, CommandMap
from protocols.clock import Clock

GAME = "thegame"
TURN_REQUEST = "TURN?"
HINTS_REQUEST = "HINTS?"
MAX_HINTS = 4
NO_HINTS = "none"
NUMBERS_IN_HINT = "hints may not contain numbers"  # the rules forbid them
# [0-9], not \d: \d also matches digits of other scripts, such as '٣'.
_PLACEMENT = re.compile(r"([abcd]):([0-9]{1,3})")


class HintKind(enum.Enum):
    """The fixed, non-numeric hint vocabulary (docs/rules.md, The Game: Talking)."""

    LEAVE = "leave"  # please leave pile P alone
    GOOD = "good"  # I can play well on pile P
    HOLD = "hold"  # I hold a command, naming which


@dataclass(frozen=True)
class Hint:
    kind: HintKind
    subject: str  # a pile name, or a command's wire name for HOLD

    @property
    def word(self) -> str:
        return f"{self.kind.value}:{self.subject}"


def placements_text(turn: Turn) -> str:
    """`a:37 c:92 ...`: a turn as TURNED lines and TURN? replies write it."""
    return " ".join(f"{PILE_NAMES[p.pile]}:{p.card}" for p in turn)


def _card(word: str) -> int:
    return in_range(word, "card", LOWEST_CARD, HIGHEST_CARD)


def _seat(word: str) -> int:
    return number(word, "seat")


def _switch(word: str, what: str) -> bool:
    if word not in ("on", "off"):
        raise WireError(f"{what} must be on or off, got {quote(word)}")
    return word == "on"


def _placements(words: Sequence[str]) -> Turn:
    """`pile:card` words, at least one (the strict reading, for the referee's lines)."""
    if not words:
        raise WireError("a turn places at least one card")
    placements = []
    for word in words:
        pile, _, card = word.partition(":")
        if pile not in PILE_NAMES:
            raise WireError(f"expected pile:card like a:37, got {quote(word)}")
        placements.append(Placement(PILE_NAMES.index(pile), _card(card)))
    return tuple(placements)


# ---- the lines from the referee (thegame.md, "Lines from the referee") --------------

@dataclass(frozen=True, slots=True)
class Game(Message):
    """`GAME thegame protocol=2 seat=S players=N hand=H commands=on|off move_ms=M bank_ms=B`,
    then `clock=cpu` where those times count CPU time."""

    KEYWORD: ClassVar[str] = "GAME"
    seat: int
    players: int
    hand_size: int  # hands are refilled to this
    commands_on: bool  # off: the original The Game
    move_ms: int
    bank_ms: int
    clock: Clock = Clock.WALL  # what move_ms and bank_ms count

    @staticmethod
    def line(seat: int, players: int, hand_size: int, commands_on: bool, move_ms: int,
             bank_ms: int, clock: Clock = Clock.WALL) -> str:
        own = {"hand": hand_size, "commands": "on" if commands_on else "off"}
        return format_game_line(GAME, seat, players, own, move_ms, bank_ms, clock)

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        seat, players, (hand, commands_on), move_ms, bank_ms, clock = game_settings(
            words, GAME, ("hand", "commands"),
            lambda own: (number(own[0], "hand"), _switch(own[1], "commands")))
        return cls(seat, players, hand, commands_on, move_ms, bank_ms, clock)


@dataclass(frozen=True, slots=True)
class Commands(Message):
    """`COMMANDS stop=.. skull=.. ...`: which numbers carry which command (public)."""

    KEYWORD: ClassVar[str] = "COMMANDS"
    commands: CommandMap

    @staticmethod
    def line(commands: CommandMap) -> str:
        return "COMMANDS " + key_values({
            command.value: ",".join(map(str, commands.numbers_of(command)))
            for command in Command})

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        values = settings(words, [command.value for command in Command])
        cards = {command: [_card(word) for word in text.split(",")]
                 for command, text in zip(Command, values)}
        try:
            commands = CommandMap.from_numbers(cards)
            commands.validate()
        except ConfigError as error:
            raise WireError(f"not a command mapping: {error}") from None
        return check_spelling(cls(commands), words)  # each command's numbers ascending


@dataclass(frozen=True, slots=True)
class _CardList(NumberList):
    """A keyword and cards: HAND and DRAW."""

    cards: tuple[int, ...]

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        return cls(tuple(_card(word) for word in words))


@dataclass(frozen=True, slots=True)
class Hand(_CardList):
    """`HAND c1 c2 ...`: your cards, at the deal."""

    KEYWORD: ClassVar[str] = "HAND"


@dataclass(frozen=True, slots=True)
class HintsRequest(Message):
    """`HINTS?`: a request; reply `none` or 1 to 4 hints before another seat's turn."""

    KEYWORD: ClassVar[str] = HINTS_REQUEST

    @staticmethod
    def line() -> str:
        return HINTS_REQUEST

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        fields(words, 0, cls.KEYWORD)
        return cls()


@dataclass(frozen=True, slots=True)
class Hinted(Message):
    """`HINT s h1 h2 ...`: seat `s` gave these hints, before the coming turn."""

    KEYWORD: ClassVar[str] = "HINT"
    seat: int
    hints: tuple[Hint, ...]

    @staticmethod
    def line(seat: int, hints: Sequence[Hint]) -> str:
        return " ".join(["HINT", str(seat), *(h.word for h in hints)])

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        if not 2 <= len(words) <= 1 + MAX_HINTS:
            raise WireError(f"a HINT line names a seat and 1 to {MAX_HINTS} hints")
        return cls(_seat(words[0]), tuple(_parse_hint(word) for word in words[1:]))


@dataclass(frozen=True, slots=True)
class TurnRequest(Message):
    """`TURN? min=K draw=D a=.. b=.. c=.. d=..`: a request; reply your whole turn."""

    KEYWORD: ClassVar[str] = TURN_REQUEST
    min_cards: int
    draw_pile: int
    tops: tuple[int, ...]  # one per pile, a b c d

    @staticmethod
    def line(min_cards: int, draw_pile: int, tops: Sequence[int]) -> str:
        piles = {name: top for name, top in zip(PILE_NAMES, tops)}
        return f"{TURN_REQUEST} " + key_values({"min": min_cards, "draw": draw_pile, **piles})

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        min_cards, draw, *tops = settings(words, ("min", "draw", *PILE_NAMES))
        return cls(number(min_cards, "min"), number(draw, "draw"), tuple(
            in_range(top, "a pile's top", ASCENDING_START, DESCENDING_START) for top in tops))


@dataclass(frozen=True, slots=True)
class Turned(Message):
    """`TURNED s p1 p2 ...`: seat `s` placed these cards, in order."""

    KEYWORD: ClassVar[str] = "TURNED"
    seat: int
    turn: Turn

    @staticmethod
    def line(seat: int, turn: Turn) -> str:
        return f"TURNED {seat} {placements_text(turn)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        if not words:
            raise WireError("a TURNED line names a seat and its placements")
        return cls(_seat(words[0]), _placements(words[1:]))


@dataclass(frozen=True, slots=True)
class Draw(_CardList):
    """`DRAW c1 ...`: the cards you drew after your turn."""

    KEYWORD: ClassVar[str] = "DRAW"


@dataclass(frozen=True, slots=True)
class Drew(Numbers):
    """`DREW s k`: seat `s` drew `k` cards (the count only)."""

    KEYWORD: ClassVar[str] = "DREW"
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class Out(Numbers):
    """`OUT s`: seat `s` has no cards left and the draw pile is empty."""

    KEYWORD: ClassVar[str] = "OUT"
    seat: int


@dataclass(frozen=True, slots=True)
class End(Message):
    """`END result=won|lost reason=R left=L`: the game is over."""

    KEYWORD: ClassVar[str] = "END"
    outcome: Ending
    reason: EndReason
    cards_left: int

    @property
    def won(self) -> bool:
        return self.outcome is Ending.WON

    @staticmethod
    def line(outcome: Ending, reason: EndReason, cards_left: int) -> str:
        return "END " + key_values({"result": outcome.value, "reason": reason.value,
                                    "left": cards_left})

    @classmethod
    def from_words(cls, words: list[str]) -> Self:
        result, reason, left = settings(words, ("result", "reason", "left"))
        return cls(member(Ending, result, "result"), member(EndReason, reason, "end reason"),
                   number(left, "left"))


MESSAGES: tuple[type[Message], ...] = (
    Game, Commands, Hand, HintsRequest, Hinted, TurnRequest, Turned, Drew, Draw, Out, End,
    *SHARED_MESSAGES)
_BY_KEYWORD = keyword_table(MESSAGES)


def decode(line: str) -> Message:
    """Any line the referee sends a The Game bot, as its message; WireError for anything else."""
    return decode_with(_BY_KEYWORD, line)


# ---- the referee's encoders ---------------------------------------------------------

game_line = Game.line  # (seat, players, hand size, commands on, move_ms, bank_ms, clock)
commands_line = Commands.line  # (command map) -> the line

# The line announcing each event type (the view decides who gets it).
_ENCODERS: dict[type, Callable[[Any], str]] = {
    engine.TurnPlayed: lambda e: Turned.line(e.seat, e.turn),
    engine.Drew: lambda e: Drew.line(e.seat, e.count),
    engine.DrewCards: lambda e: Draw.line(e.cards),
    engine.Dealt: lambda e: Hand.line(e.cards),
    engine.PlayerOut: lambda e: Out.line(e.seat),
    engine.GameEnded: lambda e: End.line(e.outcome, e.reason, e.cards_left),
}


def encode_event(event: engine.Event) -> str | None:
    """The line announcing an engine event (the view decides who gets it)."""
    return encode_with(_ENCODERS, event)


turn_request = TurnRequest.line  # (min cards, draw pile size, tops) -> the line
hint_line = Hinted.line  # (seat, hints) -> the line


# ---- the bots' replies: encoders for bots, parsers for the referee ------------------

def turn_reply(turn: Turn) -> str:
    """A reply to TURN?: the whole turn, placements in order."""
    return placements_text(turn)


def parse_turn(reply: str) -> Turn:
    """`a:37 c:92 ...` -> placements, in order. WireError if malformed."""
    words = reply.split()
    if not words:
        raise WireError("a turn must place at least one card, e.g. 'a:37 a:27'")
    placements = []
    for word in words:
        match = _PLACEMENT.fullmatch(word)
        if match is None:
            raise WireError(f"expected pile:card like a:37, got {quote(word)}")
        placements.append(Placement(PILE_NAMES.index(match[1]), int(match[2])))
    return tuple(placements)


def hints_reply(hints: Sequence[Hint]) -> str:
    """A reply to HINTS?: `none`, or the hints' words."""
    return " ".join(h.word for h in hints) if hints else NO_HINTS


def parse_hints(reply: str) -> tuple[Hint, ...]:
    """`none` or up to MAX_HINTS words like `leave:a good:c hold:skull`.

    Anything numeric is refused: the rules forbid telling numbers (docs/rules.md, Talking).
    """
    text = reply.strip()
    if text == NO_HINTS:
        return ()
    if any(ch.isnumeric() for ch in text):  # isnumeric: '٣', '½' and '三' too
        raise WireError(f"{NUMBERS_IN_HINT}: {quote(reply)}")
    words = text.split()
    if not words or len(words) > MAX_HINTS:
        raise WireError(f"reply 'none' or 1 to {MAX_HINTS} hints, got {quote(reply)}")
    return tuple(_parse_hint(word) for word in words)


def _parse_hint(word: str) -> Hint:
    kind_text, _, subject = word.partition(":")
    try:
        kind = HintKind(kind_text)
    except ValueError:
        raise WireError(
            f"unknown hint {quote(word)}; use leave:P, good:P or hold:COMMAND") from None
    valid = [c.value for c in Command] if kind is HintKind.HOLD else list(PILE_NAMES)
    if subject not in valid:
        raise WireError(f"hint {quote(word)}: subject must be one of {', '.join(valid)}")
    return Hint(kind, subject)
