"""The Game Extreme protocol v2: pure codecs for every line, for the referee and the bot SDK.

The spec for bot authors is protocols/thegame.md; its example transcript is a test vector.
A turn is one whole reply (see the spec for why), e.g. `a:37 a:27 c:92`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Sequence

from protocols.wire import PROTOCOL_VERSION, WireError, key_values, quote
from referee.games.thegame import (
    PILE_NAMES, Dealt, DrewCards, Drew, Event, GameEnded, Placement, PlayerOut, Turn,
    TurnPlayed,
)
from referee.games.thegame_commands import Command, CommandMap

GAME = "thegame"
TURN_REQUEST = "TURN?"
HINTS_REQUEST = "HINTS?"
MAX_HINTS = 4
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


def game_line(seat: int, players: int, hand_size: int, commands_on: bool,
              move_ms: int, bank_ms: int) -> str:
    return f"GAME {GAME} " + key_values({
        "protocol": PROTOCOL_VERSION, "seat": seat, "players": players, "hand": hand_size,
        "commands": "on" if commands_on else "off", "move_ms": move_ms, "bank_ms": bank_ms})


def commands_line(commands: CommandMap) -> str:
    """`COMMANDS stop=.. skull=.. ...`: which numbers carry which command (public)."""
    numbers: dict[str, list[int]] = {c.value: [] for c in Command}
    for number, command in sorted(commands.by_number.items()):
        numbers[command.value].append(number)
    return "COMMANDS " + key_values({k: ",".join(map(str, v)) for k, v in numbers.items()})


def placements_text(turn: Turn) -> str:
    return " ".join(f"{PILE_NAMES[p.pile]}:{p.card}" for p in turn)


def encode_event(event: Event) -> str | None:
    """The line announcing an engine event (the view decides who gets it)."""
    match event:
        case Dealt(_, cards):
            return " ".join(["HAND", *map(str, cards)])
        case DrewCards(_, cards):
            return " ".join(["DRAW", *map(str, cards)])
        case Drew(seat, count):
            return f"DREW {seat} {count}"
        case TurnPlayed(seat, turn):
            return f"TURNED {seat} {placements_text(turn)}"
        case PlayerOut(seat):
            return f"OUT {seat}"
        case GameEnded(outcome, reason, cards_left):
            return "END " + key_values({"result": outcome.name.lower(),
                                        "reason": reason.value, "left": cards_left})
    return None


def turn_request(min_cards: int, draw_pile: int, tops: Sequence[int]) -> str:
    piles = {name: top for name, top in zip(PILE_NAMES, tops)}
    return f"{TURN_REQUEST} " + key_values({"min": min_cards, "draw": draw_pile, **piles})


def hint_line(seat: int, hints: Sequence[Hint]) -> str:
    return " ".join(["HINT", str(seat), *(h.word for h in hints)])


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


def parse_hints(reply: str) -> tuple[Hint, ...]:
    """`none` or up to MAX_HINTS words like `leave:a good:c hold:skull`.

    Anything numeric is refused: the rules forbid telling numbers (docs/rules.md, Talking).
    """
    text = reply.strip()
    if text == "none":
        return ()
    if any(ch.isnumeric() for ch in text):  # isnumeric: '٣', '½' and '三' too
        raise WireError(f"hints may not contain numbers: {quote(reply)}")
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
