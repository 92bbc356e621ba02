"""One refereed game of The Game Extreme: hints, then the active bot's whole turn.

Fault policy (docs/rules.md, Faults; ruling X1): a rule-breaking turn, a timeout, a crash or a
protocol error ends the team's game as lost, charged to that bot. The referee alone
decides that no legal turn exists; that is a normal loss.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, Sequence

from referee.games.thegame import codec
from referee.errors import Fault, Where
from referee.logs.writer import GameLog
from referee.games.thegame.rules import (
    EndReason, Event, Ending, TheGameConfig, TheGameState, Turn,
)
from referee.games.thegame.view import commands_audience, hint_audience, private_to
from referee.players.player import Player
from referee.settings import FaultPolicy, OnFault, TimeLimits
from referee.matches.match import Match, route_by

Observer = Callable[[Event], None]


# Ruling X1: the first fault ends the team's game as lost, charged to that bot.
FAULT_POLICY = FaultPolicy(OnFault.END_GAME)


class TheGameMove(enum.StrEnum):
    """The kinds of decision a bot of The Game makes (the game log's move "kind")."""

    TURN = "turn"
    HINT = "hint"


@dataclass(frozen=True)
class TheGameResult:
    """A finished cooperative game: the team's result and each bot's share."""

    seed: int
    names: tuple[str, ...]
    won: bool
    reason: EndReason
    cards_left: int
    hand_cards: int
    draw_pile: int
    cards_played: tuple[int, ...]
    hints_given: tuple[int, ...]
    faults: tuple[Fault, ...]

    def to_json(self) -> dict[str, object]:
        return {"won": self.won, "reason": self.reason.value, "cards_left": self.cards_left,
                "hand_cards": self.hand_cards, "draw_pile": self.draw_pile,
                "cards_played": list(self.cards_played),
                "hints_given": list(self.hints_given),
                "faults": [f.to_json() for f in self.faults]}


def game_settings(config: TheGameConfig, times: TimeLimits) -> dict[str, object]:
    """The settings as written to the log header (enough to replay)."""
    commands = config.commands.to_json() if config.commands is not None else None
    return {"players": config.players, "commands": commands, "times": times.to_json()}


# Each event's line (the codec's) and the one seat that may see it (the view's).
_ROUTE = route_by(private_to, codec.encode_event)


class TheGameMatch(Match[Event]):
    """Runs one cooperative game on a Table of players."""

    def __init__(self, players: Sequence[Player], config: TheGameConfig, seed: int,
                 times: TimeLimits, log: GameLog | None = None,
                 observer: Observer | None = None, state: TheGameState | None = None,
                 policy: FaultPolicy = FAULT_POLICY) -> None:
        """`state` replaces the seeded deal with a prepared one (tests, transcripts)."""
        super().__init__(players, config.players, times, log, observer)
        policy.require("The Game", OnFault.END_GAME)
        self.state = state if state is not None else TheGameState.new_game(config, seed)
        self.seed = seed
        self.hints_given = [0] * config.players
        self.turns = 0  # turns begun: the hints before a turn belong to it

    def run(self) -> TheGameResult:
        """Play until the team wins, has no legal turn, or a bot faults."""
        self._start()
        self.table.where = self._where
        while not self.state.is_over:
            self._deliver()
            if self._collect_hints():
                self._turn()
        self._deliver()
        return self._finish()

    def _start(self) -> None:
        config = self.state.config
        move_ms, bank_ms = self.limits_ms()
        self.table.start([
            codec.game_line(seat, config.players, config.hand_size,
                            config.commands is not None, move_ms, bank_ms, self.times.clock)
            for seat in range(config.players)])
        if config.commands is not None:
            line = codec.commands_line(config.commands)
            for seat in commands_audience(config.players):
                self.table.tell(seat, line)
        self._charge_faults()

    def _deliver(self) -> None:
        """Queue for every seat the new events it may see (decided by thegame_view alone)."""
        self.deliver(self.state.events_since(self.delivered), _ROUTE)

    def _where(self) -> Where:
        """Where the game stands, for a fault's record: "turn 14" (its hints too); a
        game of turns, not rounds."""
        return Where("the end" if self.state.is_over else f"turn {self.turns + 1}")

    def _collect_hints(self) -> bool:
        """Ask every other seat for hints and pass them on; False if someone faulted."""
        active = self.state.current_seat
        for seat in range(self.state.config.players):
            if seat == active or not self.state.talking_allowed():
                continue
            hints = self.table.ask(seat, codec.HINTS_REQUEST, codec.parse_hints)
            if hints is None:
                return self._charge_faults()
            if hints:
                self.hints_given[seat] += len(hints)
                self.log_move(seat, TheGameMove.HINT, "hint " + " ".join(h.word for h in hints))
                line = codec.hint_line(seat, hints)
                for other in hint_audience(self.state.config.players, seat):
                    self.table.tell(other, line)
        return self._charge_faults()

    def _turn(self) -> None:
        state = self.state
        seat = state.current_seat
        request = codec.turn_request(state.min_cards(), len(state.draw_pile),
                                     [state.top(p) for p in range(4)])
        # The engine judges and applies the turn as the reply is decoded (_judged_turn).
        turn = self.table.ask(seat, request, self._judged_turn)
        self.turns += 1
        if turn is None:
            self._charge_faults()
            return
        self.log_move(seat, TheGameMove.TURN, codec.placements_text(turn))

    def _judged_turn(self, reply: str) -> Turn:
        turn = codec.parse_turn(reply)
        self.state.apply_turn(turn)  # RuleError with the engine's reason: an illegal move
        return turn

    def _charge_faults(self) -> bool:
        """End the game on the first fault (X1); True while there is none."""
        if not self.table.faults:
            return True
        if not self.state.is_over:
            self.state.record_fault(min(self.table.faults))
        return False

    def _finish(self) -> TheGameResult:
        self.table.detach()
        state = self.state
        reason = state.end_reason
        assert reason is not None, "a game over has its end reason"
        hand_cards = sum(len(h) for h in state.hands)
        result = TheGameResult(
            self.seed, tuple(p.name for p in self.table.players),
            state.outcome is Ending.WON, reason,
            state.cards_left(), hand_cards, len(state.draw_pile),
            tuple(state.cards_played_by), tuple(self.hints_given),
            tuple(self.table.faults[s] for s in sorted(self.table.faults)))
        if self.log is not None:
            self.log.result(result.to_json())
        return result

