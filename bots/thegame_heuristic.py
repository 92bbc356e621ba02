#!/usr/bin/env python3
"""The Game Extreme bot: closest-card play with card counting, command care and hints.

A placement costs the number of unplayed cards it makes unreachable on its pile; a reverse
trick earns them back and is always welcome. The turn is planned card by card, each card
judged with one card of lookahead; cards beyond the minimum are added only while they are
nearly free. Commands are planned around (a skull is only played when it can be covered,
a 3! only when three cards fit, a Stop may end the turn early), and every planned turn is
checked with the engine's `check_turn_at`; when the plan does not pass, the best of the
engine's shortest legal turns is played instead. Hints: `leave:P` for a pile this seat can
play on almost for free, `good:P` for a pile where it has a close card; as the active
player it keeps off piles its teammates asked about.
"""

from __future__ import annotations

import bisect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

if not __package__:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.sdk import run_bot  # noqa: E402
from bots.thegame_sdk import TheGameBot, TurnRequest  # noqa: E402
from referee.games.thegame.codec import Hint, HintKind  # noqa: E402
from referee.games.thegame.rules import (  # noqa: E402
    PILE_COUNT,
    PILE_NAMES,
    REVERSE_STEP,
    THREE_COUNT,
    Placement,
    Position,
    Turn,
    is_ascending,
    is_legal_turn_at,
    shortest_legal_turns_at,
)
from referee.games.thegame.commands import Command  # noqa: E402


@dataclass(frozen=True)
class Weights:
    """The tuning knobs. Costs count unplayed cards a placement makes unreachable."""

    gap: float = 0.1  # per skipped number, played or not: keeps piles tight
    reverse_bonus: float = 3.0  # a reverse trick, on top of the cards it wins back
    # a card beyond the minimum is played only if it costs this or less: in a team it pays
    # to shed cheap cards, alone it pays to keep them (measured with bench/thegame_strength.py)
    extra_max: float = 2.5
    extra_max_solo: float = 0.5
    leave_penalty: float = 4.0  # a forward card on a pile a teammate asked to leave alone
    good_penalty: float = 1.5  # ... on a pile a teammate can play on well
    leave_hint_max: float = 0.5  # say `leave:P` when a card costs at most this on P
    good_hint_max: float = 2.0  # say `good:P` when a card costs at most this on P


# What an infinity command costs the team while it shows on top after a turn.
SHOWING_COST = {Command.DRAW_ONE: 8.0, Command.ONE_PILE: 3.0, Command.NO_REVERSE: 2.0,
                Command.NO_TALKING: 1.0}
SKULL_LEFT_COST = 1000.0


class _Step(NamedTuple):
    """A turn being planned (a NamedTuple: built thousands of times per turn)."""

    tops: tuple[int, ...]
    hand: tuple[int, ...]  # ascending
    live: int  # bit mask of the unplayed cards
    placed: int
    three: bool  # a 3! was planned: exactly three cards
    stopped: bool
    last_pile: int | None
    cover: int | None  # the pile whose skull, planned this turn, still needs covering


class Planner:
    """Plans one turn greedily with one card of lookahead, in the costs of `Weights`.

    It mirrors the placement rules only to steer the plan; the engine has the last word.
    """

    def __init__(self, position: Position, unplayed: frozenset[int],
                 penalty: Sequence[float], weights: Weights) -> None:
        self.position = position
        self.commands = {} if position.commands is None else dict(position.commands.by_number)
        self.penalty = tuple(penalty)
        self.weights = weights
        self.extra_max = weights.extra_max if position.players > 1 else weights.extra_max_solo
        live = 0
        for card in unplayed:
            live |= 1 << card
        self.start = _Step(position.tops, tuple(sorted(position.hand)), live, 0, False, False,
                           None, None)

    def plan(self) -> Turn | None:
        """The planned turn, or None if the plan runs into a dead end."""
        step, turn = self.start, []
        while True:
            need = self.needed(step)
            best = self._best_option(step)
            if best is None or (need == 0 and best[0] > self.extra_max):
                break
            _, placement, step = best
            turn.append(placement)
        return tuple(turn) if self.needed(step) == 0 else None

    def _best_option(self, step: _Step) -> tuple[float, Placement, _Step] | None:
        best: tuple[float, Placement, _Step] | None = None
        for pile, card in self.moves(step):
            after = self.after(step, pile, card)
            follow = self.best_cost(after)
            score = self.cost(step, pile, card)
            if self.needed(after) > 0:
                if follow is None:
                    continue  # a dead end: this card cannot complete a turn
                score += follow
            elif follow is not None:
                score += min(0.0, follow)  # a card that opens a reverse trick is worth it
            if best is None or score < best[0]:
                best = (score, Placement(pile, card), after)
        return best

    def needed(self, step: _Step) -> int:
        """Cards the turn still needs before it may end."""
        if step.stopped:
            return 0
        if step.three:
            return THREE_COUNT - step.placed
        return max(self.position.min_cards - step.placed, 0 if step.cover is None else 1)

    def moves(self, step: _Step) -> Iterator[tuple[int, int]]:
        """The placements the plan may make next."""
        for pile in self._piles(step):
            for card in self._cards(step, pile):
                yield pile, card

    def best_cost(self, step: _Step) -> float | None:
        """The cost of the cheapest next placement, or None if there is none."""
        best: float | None = None
        for pile in self._piles(step):
            for card in self._cards(step, pile):
                cost = self.cost(step, pile, card)
                best = cost if best is None else min(best, cost)
                if not self._is_reverse(step, pile, card) and not self._showing_cost(card):
                    break  # farther plain cards cost more and command cards no less
        return best

    def best_on_pile(self, pile: int) -> float | None:
        """The cheapest card this hand has for `pile` now (for hints)."""
        costs = [self.cost(self.start, pile, card) for card in self._cards(self.start, pile)]
        return min(costs, default=None)

    def turn_cost(self, turn: Turn) -> float:
        """The summed cost of a whole turn (to rank the engine's legal turns)."""
        step, total = self.start, 0.0
        for placement in turn:
            total += self.cost(step, placement.pile, placement.card)
            step = self.after(step, placement.pile, placement.card)
        if step.cover is not None:
            total += SKULL_LEFT_COST  # legal only as the game's last turn, which it then loses
        return total

    def cost(self, step: _Step, pile: int, card: int) -> float:
        """Unplayed cards made unreachable (negative for a reverse trick), plus extras."""
        top = step.tops[pile]
        low, high = (card, top) if card < top else (top, card)
        between = ((step.live >> (low + 1)) & ((1 << max(high - low - 1, 0)) - 1)).bit_count()
        if self._is_reverse(step, pile, card):
            cost = -(between + self.weights.reverse_bonus)
        else:
            cost = between + self.weights.gap * (high - low - 1) + self.penalty[pile]
        if self.commands:
            cost += self._showing_cost(card) - self._showing_cost(top)
        return cost

    def _showing_cost(self, card: int) -> float:
        command = self.commands.get(card)
        return 0.0 if command is None else SHOWING_COST.get(command, 0.0)

    def after(self, step: _Step, pile: int, card: int) -> _Step:
        """The planned turn with one more placement."""
        command = self.commands.get(card)
        return _Step(step.tops[:pile] + (card,) + step.tops[pile + 1:],
                     tuple(c for c in step.hand if c != card), step.live & ~(1 << card),
                     step.placed + 1, step.three or command is Command.THREE,
                     command is Command.STOP, pile, pile if command is Command.SKULL else None)

    def _piles(self, step: _Step) -> Sequence[int]:
        if step.stopped or step.three and step.placed >= THREE_COUNT:
            return ()
        if step.cover is not None:
            return (step.cover,)
        if step.placed and self._showing(step, Command.ONE_PILE):
            return (step.last_pile,) if step.last_pile is not None else ()  # ruling X3
        return range(PILE_COUNT)

    def _cards(self, step: _Step, pile: int) -> Iterator[int]:
        """Cards allowed on `pile`: the reverse trick first, then the nearest forward first."""
        top, hand = step.tops[pile], step.hand
        if is_ascending(pile):
            reverse = top - REVERSE_STEP
            forward: Sequence[int] = hand[bisect.bisect_right(hand, top):]
        else:
            reverse = top + REVERSE_STEP
            forward = hand[:bisect.bisect_left(hand, top)][::-1]
        if reverse in hand and not self._showing(step, Command.NO_REVERSE):  # ruling X2
            if self._card_allowed(step, reverse):
                yield reverse
        for card in forward:
            if self._card_allowed(step, card):
                yield card

    def _card_allowed(self, step: _Step, card: int) -> bool:
        """The lightning-command rules the plan keeps (rulings X6-X8, simplified)."""
        command = self.commands.get(card)
        if command is Command.THREE:
            return step.placed < THREE_COUNT
        if command is Command.STOP:
            return not step.three or step.placed == THREE_COUNT - 1
        if command is Command.SKULL:  # it needs a cover in this turn, and no skull on skull
            return step.cover is None and not (step.three and step.placed >= THREE_COUNT - 1)
        return True

    def _showing(self, step: _Step, command: Command) -> bool:
        return any(self.commands.get(top) is command for top in step.tops)

    def _is_reverse(self, step: _Step, pile: int, card: int) -> bool:
        top = step.tops[pile]
        return card == (top - REVERSE_STEP if is_ascending(pile) else top + REVERSE_STEP)


class HeuristicBot(TheGameBot):
    """Plans its turns with `Planner` and talks about the piles it can play on cheaply."""

    def __init__(self, weights: Weights = Weights()) -> None:
        super().__init__()
        self.weights = weights

    def planner(self) -> Planner:
        """A planner for the current position, with the teammates' hints as pile penalties."""
        game = self.game
        penalty = [0.0] * PILE_COUNT
        for pile in range(PILE_COUNT):
            kinds = game.hints_about(pile)
            if HintKind.LEAVE in kinds:
                penalty[pile] = self.weights.leave_penalty
            elif HintKind.GOOD in kinds:
                penalty[pile] = self.weights.good_penalty
        return Planner(self.position(), game.unplayed(), tuple(penalty), self.weights)

    def choose_turn(self, request: TurnRequest) -> Turn:
        """The planned turn if the engine accepts it, else the cheapest shortest legal turn."""
        planner = self.planner()
        turn = planner.plan()
        position = planner.position
        if turn and is_legal_turn_at(position, turn):
            return turn
        turns = shortest_legal_turns_at(position)
        if not turns:
            raise RuntimeError(f"no legal turn in {position}: the tracked state is off")
        return min(turns, key=planner.turn_cost)

    def choose_hints(self) -> tuple[Hint, ...]:
        """`leave:P` where this seat plays almost for free, `good:P` where it plays well."""
        if not self.game.hand:
            return ()
        planner = Planner(self.position(), self.game.unplayed(), (0.0,) * PILE_COUNT,
                          self.weights)
        hints = []
        for pile in range(PILE_COUNT):
            best = planner.best_on_pile(pile)
            if best is None:
                continue
            if best <= self.weights.leave_hint_max:
                hints.append(Hint(HintKind.LEAVE, PILE_NAMES[pile]))
            elif best <= self.weights.good_hint_max:
                hints.append(Hint(HintKind.GOOD, PILE_NAMES[pile]))
        return tuple(hints)


if __name__ == "__main__":
    run_bot("thegame_heuristic", "1.0", HeuristicBot())
