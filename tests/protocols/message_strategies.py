"""Hypothesis strategies: a message of every type of both codecs, and hostile lines.

A message drawn here is one a decoder can give back: numbers of at most 9 digits, Rage
cards as their lowest-id copies (copies are not told apart on the wire, rage.md: Cards),
at least one placement in a TURNED line, and an ERROR detail already in one line's form.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from referee.games.rage import codec as rage

from referee.games.thegame import codec as thegame
from protocols.message import Bye, Error, Message
from protocols.faults import FaultKind
from referee.games.rage.rules import TrumpReason, Variant
from referee.games.rage.cards import COLOURS, DECK, Card, Colour, Kind, Play, cards_from_faces
from referee.games.thegame.rules import PILE_COUNT, EndReason, Ending, Placement
from referee.games.thegame.commands import HIGHEST_CARD, LOWEST_CARD, Command, CommandMap
from protocols.clock import Clock
from tests.bot_text import HINT_WORDS, TRICKY

Strategies = dict[type[Message], st.SearchStrategy[Any]]

NUMBER = st.integers(-999_999_999, 999_999_999)
NUMBERS = st.lists(NUMBER, max_size=9).map(tuple)
CLOCK = st.sampled_from(Clock)  # what a GAME line's move_ms and bank_ms count

# ---- the lines every game shares ----------------------------------------------------

# A detail as error_line writes it: words with single spaces, short enough not to be cut.
DETAIL = st.text(max_size=300).map(lambda text: " ".join(text.split()))
SHARED: Strategies = {
    Error: st.builds(Error, st.sampled_from(FaultKind), DETAIL),
    Bye: st.just(Bye()),
}

# ---- Rage ---------------------------------------------------------------------------


def _canonical(cards: list[Card]) -> tuple[Card, ...]:
    """The copies a decoder gives for these cards' faces."""
    return tuple(cards_from_faces(" ".join(card.face for card in cards))[0])


FIRST_COPIES = _canonical(list({card.face: card for card in DECK}.values()))
CARD = st.sampled_from(FIRST_COPIES)
PLAY = st.sampled_from([
    play for card in FIRST_COPIES for play in (
        [Play(card, colour) for colour in COLOURS] if card.kind is Kind.JOKER
        else [Play(card)])])
HAND = st.lists(st.sampled_from(DECK), unique=True, max_size=12).map(_canonical)


def _per_seat(count: int) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """`count` tuples of numbers, one number per seat in each."""
    return st.integers(1, 8).flatmap(lambda seats: st.tuples(*[
        st.lists(NUMBER, min_size=seats, max_size=seats).map(tuple) for _ in range(count)]))


RAGE: Strategies = {
    rage.Game: st.builds(rage.Game, NUMBER, NUMBER, NUMBER,
                         st.frozensets(st.sampled_from(Variant)), NUMBER, NUMBER, CLOCK),
    rage.Round: st.builds(rage.Round, NUMBER, NUMBER, NUMBER),
    rage.Hand: st.builds(rage.Hand, HAND),
    rage.Flip: st.builds(rage.Flip, CARD),
    rage.Trump: st.builds(rage.Trump, st.none() | st.sampled_from(Colour),
                          st.sampled_from(TrumpReason)),
    rage.BidRequest: st.builds(rage.BidRequest, NUMBERS),
    rage.Bid: st.builds(rage.Bid, NUMBER, NUMBER),
    rage.Bids: st.builds(rage.Bids, NUMBERS),
    rage.PlayRequest: st.builds(rage.PlayRequest, st.lists(PLAY, max_size=12).map(tuple)),
    rage.Played: st.builds(rage.Played, NUMBER, PLAY),
    rage.Trick: st.builds(rage.Trick, NUMBER, NUMBER),
    rage.Score: st.builds(lambda round_no, seats: rage.Score(round_no, *seats),
                          NUMBER, _per_seat(3)),
    rage.End: _per_seat(2).map(lambda seats: rage.End(*seats)),
    **SHARED,
}

# ---- The Game Extreme ---------------------------------------------------------------

TG_CARD = st.integers(LOWEST_CARD, HIGHEST_CARD)
TG_CARDS = st.lists(TG_CARD, max_size=8).map(tuple)
COMMAND_MAP = st.lists(TG_CARD, min_size=28, max_size=28, unique=True).map(
    lambda cards: CommandMap.from_numbers(
        {command: cards[4 * i:4 * i + 4] for i, command in enumerate(Command)}))
HINT = st.sampled_from(HINT_WORDS).map(lambda word: thegame.parse_hints(word)[0])
HINTS = st.lists(HINT, min_size=1, max_size=thegame.MAX_HINTS).map(tuple)
TURN = st.lists(st.builds(Placement, st.integers(0, PILE_COUNT - 1), TG_CARD),
                min_size=1, max_size=8).map(tuple)

THEGAME: Strategies = {
    thegame.Game: st.builds(thegame.Game, NUMBER, NUMBER, NUMBER, st.booleans(), NUMBER,
                            NUMBER, CLOCK),
    thegame.Commands: st.builds(thegame.Commands, COMMAND_MAP),
    thegame.Hand: st.builds(thegame.Hand, TG_CARDS),
    thegame.HintsRequest: st.just(thegame.HintsRequest()),
    thegame.Hinted: st.builds(thegame.Hinted, NUMBER, HINTS),
    thegame.TurnRequest: st.builds(thegame.TurnRequest, NUMBER, NUMBER, st.tuples(
        *[st.integers(1, 100)] * PILE_COUNT)),
    thegame.Turned: st.builds(thegame.Turned, NUMBER, TURN),
    thegame.Draw: st.builds(thegame.Draw, TG_CARDS),
    thegame.Drew: st.builds(thegame.Drew, NUMBER, NUMBER),
    thegame.Out: st.builds(thegame.Out, NUMBER),
    thegame.End: st.builds(thegame.End, st.sampled_from(Ending), st.sampled_from(EndReason),
                           NUMBER),
    **SHARED,
}

# ---- hostile lines ------------------------------------------------------------------

# What a line may be changed with: the tricky characters of bot text, and near misses.
_PIECES = st.sampled_from(list(TRICKY) + ["  ", "-", "-0", "0", "00", "J", "none", "=", ",,"])


@st.composite
def mutated(draw: st.DrawFn, line: str) -> str:
    """`line` changed in one to three places: pieces put in where a field starts (`007`, `-0`)
    or anywhere, characters cut, or two items of a list swapped or one repeated."""
    changed = line
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            changed = draw(_reordered(changed))
            continue
        fronts = [0] + [i + 1 for i, ch in enumerate(changed) if ch in " =,:"]
        start = draw(st.sampled_from(fronts) | st.integers(0, len(changed)))
        cut = draw(st.integers(0, 3))  # characters removed there
        piece = draw(_PIECES) if cut == 0 else draw(st.just("") | _PIECES)
        changed = changed[:start] + piece + changed[start + cut:]
    assume(changed != line)
    return changed


@st.composite
def _reordered(draw: st.DrawFn, line: str) -> str:
    """Two neighbouring words swapped or one repeated; in a word holding a comma list
    (`variants=a,b`, `bids=1,2`), two of its items instead."""
    words = line.split(" ")
    index = draw(st.integers(0, len(words) - 1))
    key, sep, value = words[index].rpartition("=")
    if "," in value:
        words[index] = key + sep + ",".join(draw(_shuffled(value.split(","))))
        return " ".join(words)
    return " ".join(draw(_shuffled(words)))


@st.composite
def _shuffled(draw: st.DrawFn, items: list[str]) -> list[str]:
    index = draw(st.integers(0, len(items) - 1))
    if index + 1 < len(items) and draw(st.booleans()):
        items[index:index + 2] = items[index + 1], items[index]
    else:
        items.insert(index, items[index])
    return items
