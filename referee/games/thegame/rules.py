"""The Game Extreme rules engine (pure, no I/O): deal, piles, turn rules, legal-turn search,
draw, drop-out, end and score, events.

The turn rules are functions over a small frozen `Position` (what the active player sees),
so the referee's `TheGameState` and a bot that only knows its own view run the same code.
Rulings X1-X10 are those of docs/rules.md, section "The Game Extreme".
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from referee.errors import ConfigError, RuleError
from referee.games.thegame.commands import (
    DEFAULT_COMMANDS,
    HIGHEST_CARD,
    LOWEST_CARD,
    Command,
    CommandMap,
)

PILE_NAMES = ("a", "b", "c", "d")
PILE_COUNT = len(PILE_NAMES)
ASCENDING_START = 1
DESCENDING_START = 100
REVERSE_STEP = 10
MIN_PLAYERS = 1
MAX_PLAYERS = 5
THREE_COUNT = 3


def is_ascending(pile: int) -> bool:
    """Piles a and b ascend from 1; c and d descend from 100."""
    return pile < 2


def hand_size_for(players: int) -> int:
    """1 player: 8 cards, 2 players: 7, 3 to 5 players: 6."""
    return {1: 8, 2: 7}.get(players, 6)


def min_cards_for(draw_pile_size: int) -> int:
    """2 while the draw pile has cards, else 1 (an opening Stop may end a turn sooner)."""
    return 2 if draw_pile_size > 0 else 1


@dataclass(frozen=True)
class Placement:
    """One card put on one pile."""

    pile: int
    card: int

    def __str__(self) -> str:
        name = PILE_NAMES[self.pile] if 0 <= self.pile < PILE_COUNT else f"#{self.pile}"
        return f"{self.card} on {name}"


Turn = tuple[Placement, ...]


@dataclass(frozen=True)
class TheGameConfig:
    """Players (1..5) and the command mapping; commands=None plays the original The Game."""

    players: int
    commands: CommandMap | None = DEFAULT_COMMANDS

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"The Game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                              f"got {self.players}")
        if self.commands is not None:
            self.commands.validate()

    @property
    def hand_size(self) -> int:
        """Cards a hand is refilled to."""
        return hand_size_for(self.players)


class Ending(enum.Enum):
    WON = "won"
    LOST = "lost"


class EndReason(enum.StrEnum):
    ALL_PLAYED = "all-played"
    NO_LEGAL_TURN = "no-legal-turn"
    SKULL_SHOWING = "skull-showing"  # all cards down but the last turn left a skull: lost
    FAULT = "fault"


# --- events ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Dealt:
    """Private to `seat`: its starting hand."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class TurnPlayed:
    seat: int
    turn: Turn


@dataclass(frozen=True)
class Drew:
    """Public: how many cards `seat` drew, never which (only when it drew any)."""

    seat: int
    count: int


@dataclass(frozen=True)
class DrewCards:
    """Private to `seat`: the cards it drew."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class PlayerOut:
    """`seat` emptied its hand with the draw pile empty and leaves the game."""

    seat: int


@dataclass(frozen=True)
class GameEnded:
    outcome: Ending
    reason: EndReason
    cards_left: int


Event = Dealt | TurnPlayed | Drew | DrewCards | PlayerOut | GameEnded
PRIVATE_EVENTS = (Dealt, DrewCards)


# --- the active player's position and the pure turn rules -----------------------------

@dataclass(frozen=True)
class Position:
    """What the active player knows when choosing a turn: all the turn rules need."""

    tops: tuple[int, ...]
    hand: tuple[int, ...]
    draw_pile_size: int
    players: int
    commands: CommandMap | None = DEFAULT_COMMANDS
    others_cards: int = 0  # cards in the other hands: 0 makes this possibly the last turn

    @property
    def hand_size(self) -> int:
        """The refill target."""
        return hand_size_for(self.players)

    @property
    def min_cards(self) -> int:
        """2 while the draw pile has cards, else 1."""
        return min_cards_for(self.draw_pile_size)

    def command_on(self, pile: int) -> Command | None:
        """The command on the top card of a pile, binding or not."""
        return None if self.commands is None else self.commands.command_of(self.tops[pile])

    def visible_commands(self) -> dict[int, Command]:
        """Pile -> infinity command on its top: the commands that bind this turn."""
        return _binding_commands([self.command_on(p) for p in range(PILE_COUNT)])


def _binding_commands(on_top: Sequence[Command | None]) -> dict[int, Command]:
    return {pile: c for pile, c in enumerate(on_top) if c is not None and c.is_infinity}


class _Breach(enum.Enum):
    """Why a placement or a finished turn is illegal (formatted by _explain)."""

    AFTER_STOP = enum.auto()
    THREE_FULL = enum.auto()
    NO_SUCH_PILE = enum.auto()
    NOT_IN_HAND = enum.auto()
    WRONG_DIRECTION = enum.auto()
    NO_REVERSE = enum.auto()
    ONE_PILE = enum.auto()
    THREE_TOO_LATE = enum.auto()
    STOP_UNDER_THREE = enum.auto()
    EMPTY = enum.auto()
    THREE_SHORT = enum.auto()
    TOO_FEW = enum.auto()
    SKULL_SHOWING = enum.auto()
    STOP_LEAVES_SKULL = enum.auto()


class _Walk:
    """One turn in progress: pile tops, cards left, and what the turn has done so far."""

    __slots__ = ("tops", "on_top", "left", "count", "three", "stopped", "last_pile", "skulls")

    def __init__(self, tops: tuple[int, ...], on_top: tuple[Command | None, ...],
                 left: frozenset[int]) -> None:
        self.tops = tops
        self.on_top = on_top  # the command on each pile's top card, binding or not
        self.left = left
        self.count = 0
        self.three = False  # a 3! was played this turn
        self.stopped = False  # a Stop was played: the turn is over
        self.last_pile: int | None = None
        self.skulls = 0  # bit mask of piles where a skull played this turn shows

    def after(self, pile: int, card: int, command: Command | None) -> _Walk:
        nxt = _Walk(self.tops[:pile] + (card,) + self.tops[pile + 1:],
                    self.on_top[:pile] + (command,) + self.on_top[pile + 1:], self.left - {card})
        nxt.count = self.count + 1
        nxt.three = self.three or command is Command.THREE
        nxt.stopped = command is Command.STOP
        nxt.last_pile = pile
        bit = 1 << pile
        nxt.skulls = self.skulls | bit if command is Command.SKULL else self.skulls & ~bit
        return nxt


class _Rules:
    """The turn rules for one position (constants derived once, checks per placement)."""

    __slots__ = ("position", "command", "min_cards", "last_turn_possible")

    def __init__(self, position: Position) -> None:
        self.position = position
        self.command: Mapping[int, Command] = (
            {} if position.commands is None else dict(position.commands.by_number))
        self.min_cards = position.min_cards
        # docs/rules.md, Skull: a skull may show only after the turn that puts down the game's
        # last card; that turn is legal and the game is lost (EndReason.SKULL_SHOWING)
        self.last_turn_possible = position.draw_pile_size == 0 and position.others_cards == 0

    def start(self) -> _Walk:
        tops = self.position.tops
        on_top = tuple(self.command.get(top) for top in tops)
        return _Walk(tops, on_top, frozenset(self.position.hand))

    def after(self, walk: _Walk, pile: int, card: int) -> _Walk:
        return walk.after(pile, card, self.command.get(card))

    def placement_breach(self, walk: _Walk, pile: int, card: int) -> _Breach | None:
        """Check one placement against the commands visible just before it (ruling X2)."""
        if walk.stopped:
            return _Breach.AFTER_STOP
        if walk.three and walk.count >= THREE_COUNT:
            return _Breach.THREE_FULL
        if not 0 <= pile < PILE_COUNT:
            return _Breach.NO_SUCH_PILE
        if card not in walk.left:
            return _Breach.NOT_IN_HAND
        top = walk.tops[pile]
        reverse = _is_reverse(pile, top, card)
        if not reverse and not _is_forward(pile, top, card):
            return _Breach.WRONG_DIRECTION
        if reverse and Command.NO_REVERSE in walk.on_top:
            return _Breach.NO_REVERSE  # ruling X2: covering a no-reverse card counts too
        if walk.count and pile != walk.last_pile and Command.ONE_PILE in walk.on_top:
            return _Breach.ONE_PILE  # ruling X3
        return self._lightning_breach(walk, card)

    def _lightning_breach(self, walk: _Walk, card: int) -> _Breach | None:
        command = self.command.get(card)
        if command is Command.THREE and walk.count >= THREE_COUNT:
            return _Breach.THREE_TOO_LATE  # ruling X8: 3! counts itself and the cards before it
        if command is Command.STOP and walk.three and walk.count != THREE_COUNT - 1:
            return _Breach.STOP_UNDER_THREE
        return None

    def end_breach(self, walk: _Walk) -> _Breach | None:
        """Check a turn that stops here: count, 3!, skulls (rulings X5-X8)."""
        if walk.count == 0:
            return _Breach.EMPTY
        if walk.three and walk.count != THREE_COUNT:
            return _Breach.THREE_SHORT
        if walk.count < self.min_cards and not walk.stopped:
            return _Breach.TOO_FEW  # ruling X5: only an opening Stop escapes the minimum
        if walk.skulls and not (self.last_turn_possible and not walk.left):
            return _Breach.STOP_LEAVES_SKULL if walk.stopped else _Breach.SKULL_SHOWING
        return None

    def may_extend(self, walk: _Walk) -> bool:
        """Whether a further card could make a legal turn of this one (a sound prune)."""
        if walk.stopped or walk.three and walk.count >= THREE_COUNT:
            return False
        if walk.three and walk.count + len(walk.left) < THREE_COUNT:
            return False
        # A skull stays the top of its pile until covered: with no card left that could go
        # on it, no extension ends legally (unless this may be the game's last turn).
        return self.last_turn_possible or all(
            any(_is_forward(p, walk.tops[p], c) or _is_reverse(p, walk.tops[p], c)
                for c in walk.left)
            for p in range(PILE_COUNT) if walk.skulls >> p & 1)

    def candidates(self, walk: _Walk) -> Iterator[tuple[int, int]]:
        """(pile, card) pairs that are legal as the next placement. Cards that create no
        obligation (no skull, no 3!) and piles with a skull to cover come first: a search
        then finds a witness fast."""
        piles = sorted(range(PILE_COUNT), key=lambda p: not walk.skulls >> p & 1)
        cards = sorted(walk.left)
        binding = [c for c in cards if self.command.get(c) in _OBLIGATIONS]
        free = [c for c in cards if self.command.get(c) not in _OBLIGATIONS]
        for group in (free, binding):
            for pile in piles:
                top = walk.tops[pile]
                for card in group:
                    # a cheap pre-filter on direction; placement_breach has the last word
                    if (_is_forward(pile, top, card) or _is_reverse(pile, top, card)) and (
                            self.placement_breach(walk, pile, card) is None):
                        yield pile, card


_OBLIGATIONS = (Command.SKULL, Command.THREE)


def _is_forward(pile: int, top: int, card: int) -> bool:
    return card > top if is_ascending(pile) else card < top


def _is_reverse(pile: int, top: int, card: int) -> bool:
    return card == (top - REVERSE_STEP if is_ascending(pile) else top + REVERSE_STEP)


def check_turn_at(position: Position, turn: Sequence[Placement]) -> None:
    """Raise RuleError naming the card and the rule if `turn` is not legal here."""
    rules = _Rules(position)
    walk = rules.start()
    for index, placement in enumerate(turn):
        breach = rules.placement_breach(walk, placement.pile, placement.card)
        if breach is not None:
            raise RuleError(_explain(breach, rules, walk, index, placement))
        walk = rules.after(walk, placement.pile, placement.card)
    breach = rules.end_breach(walk)
    if breach is not None:
        raise RuleError(_explain(breach, rules, walk, len(turn), None))


def is_legal_turn_at(position: Position, turn: Sequence[Placement]) -> bool:
    """check_turn_at as a predicate."""
    try:
        check_turn_at(position, turn)
    except RuleError:
        return False
    return True


def legal_turns_at(position: Position, max_cards: int | None = None) -> Iterator[Turn]:
    """Every legal turn of at most `max_cards` cards, shorter ones before their extensions."""
    rules = _Rules(position)
    limit = len(position.hand) if max_cards is None else max_cards
    yield from _enumerate(rules, rules.start(), [], 1, limit)


def shortest_legal_turns_at(position: Position) -> list[Turn]:
    """All legal turns of the smallest length that has any; [] when there is no legal turn."""
    rules = _Rules(position)
    for length in range(1, len(position.hand) + 1):
        turns = list(_enumerate(rules, rules.start(), [], length, length))
        if turns:
            return turns
    return []


def find_legal_turn_at(position: Position) -> Turn | None:
    """A legal turn (a witness), or None if the player has none (ruling X1: the referee decides)."""
    rules = _Rules(position)
    found = _search(rules, rules.start(), set())
    return None if found is None else tuple(found)


def has_legal_turn_at(position: Position) -> bool:
    """Whether the active player has any legal turn (rulings X1, X5)."""
    return find_legal_turn_at(position) is not None


def _enumerate(rules: _Rules, walk: _Walk, prefix: list[Placement],
               shortest: int, longest: int) -> Iterator[Turn]:
    if walk.count >= shortest and rules.end_breach(walk) is None:
        yield tuple(prefix)
    if walk.count >= longest or not rules.may_extend(walk):
        return
    for pile, card in rules.candidates(walk):
        prefix.append(Placement(pile, card))
        yield from _enumerate(rules, rules.after(walk, pile, card), prefix, shortest, longest)
        prefix.pop()


_SearchKey = tuple[tuple[int, ...], frozenset[int], int, bool, int | None, int]


def _search(rules: _Rules, walk: _Walk, dead: set[_SearchKey]) -> list[Placement] | None:
    """Depth-first search for one legal turn, remembering in-turn states that lead nowhere."""
    if rules.end_breach(walk) is None:
        return []
    if not rules.may_extend(walk):
        return None
    # Counts above 3 behave alike (min_cards <= 2, and 3! is about exactly 3).
    key = (walk.tops, walk.left, min(walk.count, THREE_COUNT), walk.three, walk.last_pile,
           walk.skulls)
    if key in dead:
        return None
    for pile, card in rules.candidates(walk):
        rest = _search(rules, rules.after(walk, pile, card), dead)
        if rest is not None:
            return [Placement(pile, card), *rest]
    dead.add(key)
    return None


def _explain(breach: _Breach, rules: _Rules, walk: _Walk, index: int,
             placement: Placement | None) -> str:
    """One sentence naming the card, the pile and the rule broken."""
    where = f"card #{index + 1} ({placement})" if placement is not None else "the turn"
    return f"{where}: {_reason(breach, rules, walk, placement)}"


def _reason(breach: _Breach, rules: _Rules, walk: _Walk, placement: Placement | None) -> str:
    if breach is _Breach.WRONG_DIRECTION and placement is not None:
        return _direction_reason(walk.tops[placement.pile], placement.pile)
    if breach is _Breach.ONE_PILE and walk.last_pile is not None:
        return (f"a one-pile card shows, so this card must follow the card before it "
                f"on pile {PILE_NAMES[walk.last_pile]} (ruling X3)")
    if breach is _Breach.THREE_SHORT:
        return f"a 3! was played, so the turn needs exactly 3 cards, not {walk.count} (ruling X8)"
    if breach is _Breach.TOO_FEW:
        return _too_few_reason(rules, walk.count)
    if breach in (_Breach.SKULL_SHOWING, _Breach.STOP_LEAVES_SKULL):
        piles = ", ".join(PILE_NAMES[p] for p in range(PILE_COUNT) if walk.skulls >> p & 1)
        ruling = "X7: a Stop does not excuse it" if walk.stopped else "X6"
        return (f"a skull played this turn still shows on pile {piles}; it must be covered "
                f"on its pile in the same turn (ruling {ruling})")
    return _FIXED_REASONS[breach]


def _direction_reason(top: int, pile: int) -> str:
    name = PILE_NAMES[pile]
    if is_ascending(pile):
        return (f"pile {name} ascends from {top}: play higher than {top}, "
                f"or exactly {top - REVERSE_STEP} (reverse trick)")
    return (f"pile {name} descends from {top}: play lower than {top}, "
            f"or exactly {top + REVERSE_STEP} (reverse trick)")


def _too_few_reason(rules: _Rules, count: int) -> str:
    # only reachable while the draw pile has cards: with it empty the minimum is 1
    short = (" (ruling X5: a hand this short may only open with a Stop)"
             if len(rules.position.hand) < rules.min_cards else "")
    return (f"{count} card played, at least {rules.min_cards} are needed while the draw pile "
            f"has cards{short}")


_FIXED_REASONS = {
    _Breach.AFTER_STOP: "the turn already ended with a Stop",
    _Breach.THREE_FULL: "a 3! turn has exactly 3 cards, no more (ruling X8)",
    _Breach.NO_SUCH_PILE: "there is no such pile (piles are a, b, c, d)",
    _Breach.NOT_IN_HAND: "that card is not in the hand (or was already played this turn)",
    _Breach.NO_REVERSE: ("no reverse trick while a no-reverse card shows, not even with the "
                         "card that covers it (ruling X2)"),
    _Breach.THREE_TOO_LATE: "a 3! as 4th card or later cannot make exactly 3 cards (ruling X8)",
    _Breach.STOP_UNDER_THREE: "after a 3! a Stop is allowed only as the 3rd card",
    _Breach.EMPTY: "a turn must play at least one card",
}


# --- the referee's state --------------------------------------------------------------

class TheGameState:
    """One game of The Game (Extreme): the only mutable object; changed by apply_turn."""

    def __init__(self, config: TheGameConfig, hands: Sequence[Sequence[int]],
                 draw_pile: Sequence[int], piles: Sequence[Sequence[int]], current: int) -> None:
        self._config = config
        self._hands = [sorted(hand) for hand in hands]
        self._draw = list(reversed(draw_pile))  # top of the pile at the end: pop() draws
        self._piles = [list(pile) for pile in piles]
        self._current = current
        self._played = [0] * config.players
        self._events: list[Event] = [Dealt(seat, tuple(hand))
                                     for seat, hand in enumerate(self._hands)]
        self._outcome: Ending | None = None
        self._reason: EndReason | None = None
        self._fault_seat: int | None = None
        if not self.has_legal_turn():
            self._end(Ending.LOST, EndReason.NO_LEGAL_TURN)

    @classmethod
    def new_game(cls, config: TheGameConfig, seed: int) -> TheGameState:
        """Shuffle 2..99 with random.Random(seed) and deal; seat 0 starts (ruling X10)."""
        deck = list(range(LOWEST_CARD, HIGHEST_CARD + 1))
        random.Random(seed).shuffle(deck)
        size = config.hand_size
        hands = [deck[seat * size:(seat + 1) * size] for seat in range(config.players)]
        return cls(config, hands, deck[config.players * size:], [[] for _ in PILE_NAMES], 0)

    @classmethod
    def from_deal(cls, config: TheGameConfig, hands: Sequence[Sequence[int]],
                  draw_pile: Sequence[int], piles: Sequence[Sequence[int]] | None = None,
                  current: int = 0) -> TheGameState:
        """An explicit position (for tests): hands per seat, draw pile top first, piles bottom
        first without the row card. Raises ConfigError if the cards do not make sense."""
        pile_cards = [list(p) for p in piles] if piles is not None else [[] for _ in PILE_NAMES]
        _check_deal(config, hands, draw_pile, pile_cards, current)
        return cls(config, hands, draw_pile, pile_cards, current)

    # read-only views of the state ---------------------------------------------------

    @property
    def config(self) -> TheGameConfig:
        return self._config

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's hand, ascending (a copy)."""
        return [list(hand) for hand in self._hands]

    @property
    def draw_pile(self) -> list[int]:
        """The draw pile, top card first (a copy)."""
        return self._draw[::-1]

    @property
    def piles(self) -> list[list[int]]:
        """Cards played on each pile, bottom first, without the row card (a copy)."""
        return [list(pile) for pile in self._piles]

    @property
    def current_seat(self) -> int:
        return self._current

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    @property
    def outcome(self) -> Ending | None:
        return self._outcome

    @property
    def end_reason(self) -> EndReason | None:
        return self._reason

    @property
    def fault_seat(self) -> int | None:
        """The seat charged with the fault that ended the game (ruling X1), if any."""
        return self._fault_seat

    @property
    def cards_played_by(self) -> list[int]:
        return list(self._played)

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    def events_since(self, since: int) -> tuple[Event, ...]:
        """Events from index `since` on."""
        return tuple(self._events[since:])

    def event_count(self) -> int:
        return len(self._events)

    def hand_of(self, seat: int) -> tuple[int, ...]:
        """One seat's hand, ascending."""
        return tuple(self._hands[seat])

    def hand_counts(self) -> tuple[int, ...]:
        return tuple(len(hand) for hand in self._hands)

    def draw_pile_size(self) -> int:
        return len(self._draw)

    def top(self, pile: int) -> int:
        """The card showing on a pile: its row card (1 or 100) while empty."""
        cards = self._piles[pile]
        if cards:
            return cards[-1]
        return ASCENDING_START if is_ascending(pile) else DESCENDING_START

    def tops(self) -> tuple[int, ...]:
        return tuple(self.top(pile) for pile in range(PILE_COUNT))

    def command_on(self, pile: int) -> Command | None:
        """The command on a pile's top card, binding or not."""
        commands = self._config.commands
        return None if commands is None else commands.command_of(self.top(pile))

    def visible_commands(self) -> dict[int, Command]:
        """Pile -> infinity command on its top: the ones that bind now (lightning ones do not
        outlive their turn)."""
        return _binding_commands([self.command_on(p) for p in range(PILE_COUNT)])

    def talking_allowed(self) -> bool:
        """False while a no-talking card shows."""
        return Command.NO_TALKING not in self.visible_commands().values()

    def min_cards(self) -> int:
        """2 while the draw pile has cards, else 1."""
        return min_cards_for(len(self._draw))

    def cards_left(self) -> int:
        """Cards not played: hands plus draw pile (the score, ruling X9)."""
        return sum(len(hand) for hand in self._hands) + len(self._draw)

    def position(self) -> Position:
        """The active seat's Position, for the pure turn rules."""
        seat = self._current
        return Position(tops=self.tops(), hand=tuple(self._hands[seat]),
                        draw_pile_size=len(self._draw), players=self._config.players,
                        commands=self._config.commands,
                        others_cards=sum(len(h) for s, h in enumerate(self._hands) if s != seat))

    # the rules -------------------------------------------------------------------------

    def check_turn(self, turn: Sequence[Placement]) -> None:
        """Raise RuleError with the precise reason unless `turn` is legal now."""
        if self.is_over:
            raise RuleError("the game is over")
        check_turn_at(self.position(), turn)

    def has_legal_turn(self) -> bool:
        """Whether the active player can make any legal turn (ruling X1)."""
        return not self.is_over and has_legal_turn_at(self.position())

    def find_legal_turn(self) -> Turn | None:
        """A legal turn for the active player, or None."""
        return None if self.is_over else find_legal_turn_at(self.position())

    def legal_turns(self, max_cards: int | None = None) -> Iterator[Turn]:
        """The active player's legal turns (of at most `max_cards` cards)."""
        if self.is_over:
            return iter(())
        return legal_turns_at(self.position(), max_cards)

    def apply_turn(self, turn: Sequence[Placement]) -> None:
        """Check, place, draw, move to the next seat with cards, and end the game if due."""
        self.check_turn(turn)
        seat = self._current
        hand = self._hands[seat]
        for placement in turn:
            self._piles[placement.pile].append(placement.card)
            hand.remove(placement.card)
        self._played[seat] += len(turn)
        self._events.append(TurnPlayed(seat, tuple(turn)))
        self._draw_after_turn(seat)
        if not hand and not self._draw:
            self._events.append(PlayerOut(seat))
        if self.cards_left() == 0:
            self._end_all_played()
            return
        self._current = self._next_seat(seat)
        if not self.has_legal_turn():
            self._end(Ending.LOST, EndReason.NO_LEGAL_TURN)

    def record_fault(self, seat: int) -> None:
        """A bot broke a rule: the game ends lost, charged to `seat` (ruling X1)."""
        if self.is_over:
            raise RuleError("the game is over")
        if not 0 <= seat < self._config.players:
            raise RuleError(f"no seat {seat}")
        self._fault_seat = seat
        self._end(Ending.LOST, EndReason.FAULT)

    # internals ---------------------------------------------------------------------------

    def _draw_after_turn(self, seat: int) -> None:
        hand = self._hands[seat]
        if Command.DRAW_ONE in self.visible_commands().values():
            wanted = 1  # a draw-one showing after the turn, whoever played it, even this turn
        else:
            wanted = self._config.hand_size - len(hand)
        drawn = [self._draw.pop() for _ in range(min(wanted, len(self._draw)))]
        if drawn:
            hand.extend(drawn)
            hand.sort()
            self._events.append(Drew(seat, len(drawn)))
            self._events.append(DrewCards(seat, tuple(drawn)))

    def _next_seat(self, seat: int) -> int:
        players = self._config.players
        for step in range(1, players + 1):
            candidate = (seat + step) % players
            if self._hands[candidate]:
                return candidate
        raise AssertionError("no seat holds cards although cards are left")

    def _end_all_played(self) -> None:
        skull = any(self.command_on(p) is Command.SKULL for p in range(PILE_COUNT))
        if skull:
            self._end(Ending.LOST, EndReason.SKULL_SHOWING)
        else:
            self._end(Ending.WON, EndReason.ALL_PLAYED)

    def _end(self, outcome: Ending, reason: EndReason) -> None:
        self._outcome = outcome
        self._reason = reason
        self._events.append(GameEnded(outcome, reason, self.cards_left()))


def _check_deal(config: TheGameConfig, hands: Sequence[Sequence[int]], draw_pile: Sequence[int],
                piles: list[list[int]], current: int) -> None:
    if len(hands) != config.players:
        raise ConfigError(f"{len(hands)} hands given for {config.players} players")
    if len(piles) != PILE_COUNT:
        raise ConfigError(f"{len(piles)} piles given, need {PILE_COUNT}")
    cards = [c for hand in hands for c in hand] + list(draw_pile) + [c for p in piles for c in p]
    if len(set(cards)) != len(cards):
        raise ConfigError("a card appears twice in the deal")
    strays = [c for c in cards if not LOWEST_CARD <= c <= HIGHEST_CARD]
    if strays:
        raise ConfigError(f"card {strays[0]} is not a number card {LOWEST_CARD}..{HIGHEST_CARD}")
    if not 0 <= current < config.players or not hands[current]:
        raise ConfigError(f"seat {current} cannot be the active seat (no such seat or no cards)")
