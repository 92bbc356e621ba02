"""Rage cards: the 112-card deck, plays, and their wire notation (faces)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


class Colour(enum.Enum):
    """The six colours; the value is the letter used on the wire."""

    BLUE = "b"
    GREEN = "g"
    RED = "r"
    YELLOW = "y"
    VIOLET = "v"
    ORANGE = "o"


COLOURS: tuple[Colour, ...] = tuple(Colour)
VALUES_PER_COLOUR = 16  # 0..15
COLOUR_CARDS = len(COLOURS) * VALUES_PER_COLOUR  # 96


class Kind(enum.Enum):
    """A colour card or one of the five action cards; the value is the action's face."""

    COLOUR = "colour"
    JOKER = "J"
    NO_TRUMP = "NT"
    TRUMP_CHANGE = "TC"
    PLUS_FIVE = "+5"
    MINUS_FIVE = "-5"


ACTION_COPIES: tuple[tuple[Kind, int], ...] = (
    (Kind.JOKER, 2), (Kind.NO_TRUMP, 4), (Kind.TRUMP_CHANGE, 4),
    (Kind.PLUS_FIVE, 3), (Kind.MINUS_FIVE, 3),
)


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card; `id` is unique in the deck (0..111)."""

    id: int
    kind: Kind
    colour: Colour | None
    value: int | None
    # Wire notation: `r7`, `b15` for colour cards, `J`, `NT`, `TC`, `+5`, `-5` for actions.
    # Derived once, here: every line the referee writes spells cards.
    face: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        is_colour = self.kind is Kind.COLOUR
        if is_colour != (self.colour is not None) or is_colour != (self.value is not None):
            raise ValueError("a colour card has a colour and a value; an action card neither")
        if self.value is not None and not 0 <= self.value < VALUES_PER_COLOUR:
            raise ValueError(f"card value {self.value} outside 0..15")
        face = self.kind.value if self.colour is None else f"{self.colour.value}{self.value}"
        object.__setattr__(self, "face", face)

    def __str__(self) -> str:
        return self.face


def _build_deck() -> tuple[Card, ...]:
    cards = [Card(ci * VALUES_PER_COLOUR + v, Kind.COLOUR, colour, v)
             for ci, colour in enumerate(COLOURS) for v in range(VALUES_PER_COLOUR)]
    for kind, copies in ACTION_COPIES:
        cards.extend(Card(len(cards), kind, None, None) for _ in range(copies))
    return tuple(cards)


DECK: tuple[Card, ...] = _build_deck()
_IDS_BY_FACE: dict[str, tuple[int, ...]] = {}
for _card in DECK:
    _IDS_BY_FACE[_card.face] = _IDS_BY_FACE.get(_card.face, ()) + (_card.id,)
del _card


@dataclass(frozen=True, slots=True)
class Play:
    """A card put into a trick; a Joker carries the colour its player declared."""

    card: Card
    declared: Colour | None = None
    # Wire notation: the card face, or `J:<colour letter>` for a Joker. Derived once.
    notation: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.declared is None:
            notation = self.card.face
        elif isinstance(self.declared, Colour):
            notation = f"{self.card.face}:{self.declared.value}"
        else:
            raise TypeError(f"a declared colour is a Colour or None, not {self.declared!r}")
        object.__setattr__(self, "notation", notation)

    def __str__(self) -> str:
        return self.notation


def card_by_face(face: str, among: Iterable[Card]) -> Card | None:
    """The lowest-id card with this face among the given cards, or None."""
    found = [card for card in among if card.face == face]
    return min(found, key=lambda card: card.id) if found else None


_COLOUR_BY_LETTER: dict[str, Colour] = {colour.value: colour for colour in COLOURS}


def find_play(plays: Iterable[Play], notation: str) -> Play | None:
    """The play among `plays` written `notation` (e.g. a reply checked against PLAY?'s list)."""
    for play in plays:  # a plain loop: this runs on every reply, and a generator costs more
        if play.notation == notation:
            return play
    return None


def parse_play(text: str, hand: Sequence[Card]) -> Play | None:
    """The play `text` names from `hand` (`r7`, `NT`, `J:r`), or None if it names none."""
    face, sep, letter = text.partition(":")
    card = card_by_face(face, hand)
    if card is None:
        return None
    if card.kind is not Kind.JOKER:
        return None if sep else Play(card)
    declared = _COLOUR_BY_LETTER.get(letter)
    return Play(card, declared) if declared is not None else None


def cards_from_faces(*groups: str) -> tuple[list[Card], ...]:
    """Distinct physical cards for space-separated face groups (`"r7 NT", "NT J"`).

    Repeated action faces take the next unused copy, across all groups; handy for
    writing explicit deals. Raises ValueError for an unknown face or too many copies.
    """
    used: dict[str, int] = {}
    result: list[list[Card]] = []
    for group in groups:
        cards: list[Card] = []
        for face in group.split():
            ids = _IDS_BY_FACE.get(face)
            if ids is None:
                raise ValueError(f"no Rage card has the face {face!r}")
            n = used.get(face, 0)
            if n >= len(ids):
                raise ValueError(f"the deck has only {len(ids)} card(s) {face!r}")
            used[face] = n + 1
            cards.append(DECK[ids[n]])
        result.append(cards)
    return tuple(result)
