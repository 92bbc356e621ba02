"""One refereed game of Rage: view -> request -> parse -> the engine judges and applies,
until the end.

Fault policy (docs/rules.md, Faults): a faulty bot is out of the game and places last; a
deterministic fallback plays its seat so the other bots' game is not spoiled.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import partial
from typing import Callable, Sequence

from referee.games.rage import codec
from referee.errors import Fault, Where
from referee.logs.writer import DecidedBy, GameLog
from referee.games.rage.rules import (
    Event, Phase, RageConfig, RageState, Record, RoundResult, SeatRoundResult, event_of,
)
from referee.games.rage.cards import Play, find_play, parse_play
from referee.games.rage.view import private_kinds
from referee.players.player import Player
from referee.settings import FaultPolicy, OnFault, TimeLimits
from referee.matches.match import Match

Observer = Callable[[Event], None]


# docs/rules.md, Faults: a faulty bot is out of the game and places last; a fallback plays.
FAULT_POLICY = FaultPolicy(OnFault.FALLBACK)


class RageMove(enum.StrEnum):
    """The kinds of decision a Rage bot makes (the game log's move "kind")."""

    BID = "bid"
    PLAY = "play"


# Read once: on Python 3.11 every read of an enum class's attribute goes through
# EnumType.__getattr__, and the loop reads these at every decision.
_OVER, _BID = Phase.OVER, Phase.BID
_THE_END = Where("the end")  # after the last trick: in no round
_BY_BOT, _BY_FALLBACK = DecidedBy.BOT, DecidedBy.FALLBACK
_MOVE_BID, _MOVE_PLAY = RageMove.BID, RageMove.PLAY


@dataclass(frozen=True)
class RageResult:
    """What a finished game leaves: per seat names, totals and places, the faults, the rounds."""

    seed: int
    names: tuple[str, ...]
    totals: tuple[int, ...]
    places: tuple[int, ...]
    faults: tuple[Fault, ...]
    rounds: tuple[RoundResult, ...]

    def to_json(self) -> dict[str, object]:
        return {**self.logged_json(), "rounds": [_round_json(r) for r in self.rounds]}

    def logged_json(self) -> dict[str, object]:
        """What the game log's result record holds: the rounds' scores follow from the
        logged moves, and the log's reader derives them again (log_rederive)."""
        return {"totals": list(self.totals), "places": list(self.places),
                "faults": [f.to_json() for f in self.faults]}


def _round_json(result: RoundResult) -> dict[str, object]:
    return {"round": result.round_no, "cards": result.cards, "dealer": result.dealer,
            "seats": [_seat_json(s) for s in result.seats]}


def _seat_json(seat: SeatRoundResult) -> dict[str, int]:
    return {"bid": seat.bid, "tricks": seat.tricks, "trick_points": seat.trick_points,
            "action_points": seat.action_points, "bid_bonus": seat.bid_bonus,
            "total": seat.total}


def game_settings(config: RageConfig, times: TimeLimits) -> dict[str, object]:
    """The settings as written to the log header (enough to replay)."""
    return {"players": config.players, "rounds": config.rounds,
            "variants": sorted(v.value for v in config.variants), "times": times.to_json()}


class RageMatch(Match[Record]):
    """Runs one game on a Table of players."""

    def __init__(self, players: Sequence[Player], config: RageConfig, seed: int,
                 times: TimeLimits, log: GameLog | None = None,
                 observer: Observer | None = None, state: RageState | None = None,
                 policy: FaultPolicy = FAULT_POLICY) -> None:
        """`state` replaces the seeded deal with a prepared one (tests, transcripts)."""
        super().__init__(players, config.players, times, log, _of_records(observer))
        policy.require("Rage", OnFault.FALLBACK)
        self.policy = policy
        self.state = state if state is not None else RageState.new_game(config, seed)
        self.seed = seed
        self._route = _record_route(self.state.config)  # made once a game

    def run(self) -> RageResult:
        """Play the game to the end and return its result."""
        self._start()
        self.table.where = self._where
        state = self.state
        while (phase := state.phase) is not _OVER:
            self._deliver()
            if phase is _BID:
                self._bid()
            else:
                self._play()
        self._deliver()
        return self._finish()

    def _start(self) -> None:
        config = self.state.config
        move_ms, bank_ms = self.limits_ms()
        self.table.start([
            codec.game_line(seat, config.players, config.variants, config.rounds, move_ms, bank_ms,
                            self.times.clock)
            for seat in range(config.players)])

    def _deliver(self) -> None:
        """Queue for every seat the new events it may see (decided by the view alone),
        from the engine's raw records: no Event is built but for an observer."""
        self.deliver(self.state.records_since(self.delivered), self._route)

    def _where(self) -> Where:
        """Where the game stands, for a fault's record: "round 3, bidding", "round 3,
        trick 2", with round 3; "the end", in no round."""
        state = self.state
        if state.phase is _OVER:
            return _THE_END
        if state.phase is _BID:
            return Where(f"round {state.round_no}, bidding", state.round_no)
        return Where(f"round {state.round_no}, trick {state.tricks_played + 1}",
                     state.round_no)

    def _bid(self) -> None:
        state = self.state
        seat, legal = state.current_seat, state.legal_bids()
        assert seat is not None, "a decision is due only while the game is on"
        # The engine judges and applies the bid as the reply is decoded (_judged_bid).
        bid = self.table.ask(seat, codec.bid_request(legal), self._judged_bid)
        by = _BY_BOT
        if bid is None:
            bid, by = state.fallback_bid(), _BY_FALLBACK
            state.bid(bid)
        self.log_move(seat, _MOVE_BID, str(bid), by)

    def _play(self) -> None:
        state = self.state
        seat, legal = state.current_seat, state.legal_plays()
        assert seat is not None, "a decision is due only while the game is on"
        # partial, not a lambda: a decision's decoder costs no frame of its own
        play = self.table.ask(seat, codec.play_request(legal),
                              partial(_judged_play, legal, state, seat))
        by = _BY_BOT
        if play is None:
            play, by = state.fallback_play(), _BY_FALLBACK
            state.play(play)
        self.log_move(seat, _MOVE_PLAY, play.notation, by)

    def _judged_bid(self, reply: str) -> int:
        bid = codec.parse_bid(reply)
        self.state.bid(bid)  # RuleError with the engine's reason: an illegal move
        return bid

    def _finish(self) -> RageResult:
        totals = self.state.totals()
        faulted = self.tell_end(lambda faulted: codec.end_line(totals, self._places(faulted)))
        places = self._places(faulted)
        result = RageResult(
            self.seed, tuple(p.name for p in self.table.players), tuple(totals), tuple(places),
            tuple(self.table.faults[s] for s in sorted(self.table.faults)),
            tuple(self.state.round_results))
        if self.log is not None:
            self.log.result(result.logged_json())
        return result

    def _places(self, faulted: frozenset[int]) -> list[int]:
        return self.state.places(faulted if self.policy.faulted_place_last else frozenset())


def _judged_play(legal: list[Play], state: RageState, seat: int, reply: str) -> Play:
    """The play the reply names, played: the engine judges it (RuleError with its
    reason). The play offered in PLAY? is taken as named; otherwise the card of that
    face in the seat's hand, or if it holds none, the deck's, which the engine refuses."""
    for play in legal:  # find_play(), inline: the common reply is one of PLAY?'s words
        if play.notation == reply:
            break
    else:
        play = _named_play(legal, state, seat, reply)
    state.play(play)
    return play


def _named_play(legal: list[Play], state: RageState, seat: int, reply: str) -> Play:
    text = codec.check_play_syntax(reply)  # WireError: not a card in the notation
    return find_play(legal, text) or parse_play(text, state.hand(seat)) or \
        codec.play_of_notation(text)


Route = Callable[[Record], tuple[int | None, str] | None]


def _record_route(config: RageConfig) -> Route:
    """Each raw record's line (the codec's) and the one seat that may see it (the view's
    private_kinds), or None for a record with no line: by record type, from a table of
    both made once a game."""
    private = private_kinds(config)
    routes = {kind: (encoder, kind in private)
              for kind, encoder in codec.record_encoders().items()}

    def route(record: Record) -> tuple[int | None, str] | None:
        entry = routes.get(record[0])
        if entry is None:
            return None
        encoder, alone = entry
        return (record[1] if alone else None), encoder(record)
    return route


def _of_records(observer: Observer | None) -> Callable[[Record], None] | None:
    """The observer of events, told of each delivered record's event (built for it)."""
    if observer is None:
        return None
    return lambda record: observer(event_of(record))
