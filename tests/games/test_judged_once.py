"""Legality is judged once, by the engine (issue 27): a match decodes a reply and hands
the move to the engine, whose refusal, with its reason, becomes the seat's illegal-move
fault. In-process players: the rules, not the transport, are under test here."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocols.faults import FaultKind
from referee.errors import Fault, RuleError
from referee.games.rage.match import RageMatch
from referee.games.rage.rules import RageConfig, RageState
from referee.games.thegame.match import TheGameMatch
from referee.games.thegame.rules import TheGameConfig
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits

Handler = Callable[[str], str | None]


def first_option(line: str) -> str | None:
    """A bot that answers every request with the first legal option it was offered."""
    return line.split()[1] if line.startswith(("BID?", "PLAY?")) else None


def rage_faults(culprit: Handler, seed: int = 3) -> tuple[Fault, ...]:
    players = [FunctionPlayer("culprit", culprit),
               *(FunctionPlayer(f"b{seat}", first_option) for seat in (1, 2))]
    return RageMatch(players, RageConfig(3, rounds=3), seed, TimeLimits()).run().faults


def test_a_bid_out_of_range_is_refused_by_the_engine_with_the_legal_bids() -> None:
    """docs/rules.md, Bidding: a whole number from 0 to k, the round's cards (a 3-round
    game starts at 10)."""
    faults = rage_faults(lambda line: "15" if line.startswith("BID?") else first_option(line))
    assert [(f.seat, f.kind) for f in faults] == [(0, FaultKind.ILLEGAL)]
    assert faults[0].detail == ("seat 0 must bid a whole number from 0 to 10, not 15 "
                                "(legal: 0 1 2 3 4 5 6 7 8 9 10)")


def not_held(line: str) -> str | None:
    """Plays a card of the deck that PLAY? did not offer and the hand cannot hold: the
    notation is well formed, so only the engine can refuse it."""
    if line.startswith("PLAY?"):
        offered = set(line.split()[1:])
        return next(face for face in ("r0", "g0", "b0", "y0", "r1", "g1")
                    if face not in offered)
    return first_option(line)


def test_a_card_not_held_is_refused_by_the_engine_with_the_legal_plays() -> None:
    faults = rage_faults(not_held)
    assert [(f.seat, f.kind) for f in faults] == [(0, FaultKind.ILLEGAL)]
    detail = faults[0].detail
    assert detail.startswith("seat 0 does not hold ") and "(legal: " in detail


class Renege:
    """Keeps its hand from HAND lines; once it holds a card PLAY? does not offer, it
    plays that card (not following the lead colour), else the first option."""

    def __init__(self) -> None:
        self.hand: list[str] = []
        self.reneged: str | None = None

    def __call__(self, line: str) -> str | None:
        words = line.split()
        if words[:1] == ["HAND"]:
            self.hand = words[1:]
        elif words[:1] == ["PLAY?"]:
            unlisted = [face for face in self.hand if face not in words[1:]
                        and face[0] in "rgby" and face[1:].isdigit()]
            if unlisted and self.reneged is None:
                self.reneged = unlisted[0]
                return unlisted[0]
            self.hand.remove(words[1]) if words[1] in self.hand else None
            return words[1]
        return first_option(line)


def test_not_following_suit_is_refused_by_the_engine_r1() -> None:
    """Ruling R1: holding the lead colour, a seat must follow it."""
    for seed in range(40):
        renege = Renege()
        faults = rage_faults(renege, seed)
        if renege.reneged is not None:
            break
    else:
        pytest.fail("no seed of 40 let the bot hold a card it may not play")
    assert [(f.seat, f.kind) for f in faults] == [(0, FaultKind.ILLEGAL)]
    assert " must follow " in faults[0].detail and "(legal: " in faults[0].detail
    assert faults[0].line == renege.reneged


def test_a_refused_bid_is_the_seats_fault_with_the_engines_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The match has no judgement of its own: a bid the engine refuses (here a legal one,
    by a patched engine) is the seat's fault, with the engine's words. When the match
    checked bids against its own list, the engine's refusal escaped as an exception."""
    real, refused = RageState.bid, []

    def engine(state: RageState, value: int) -> None:
        if state.current_seat == 1 and not refused:  # the bot's bid; not the fallback's
            refused.append(value)
            raise RuleError("the engine's own reason")
        real(state, value)
    monkeypatch.setattr(RageState, "bid", engine)
    faults = rage_faults(first_option)
    assert [(f.seat, f.kind, f.detail) for f in faults] == [
        (1, FaultKind.ILLEGAL, "the engine's own reason")]


def test_the_game_turn_of_cards_not_held_is_refused_by_the_engine_x1() -> None:
    """Ruling X1: a turn breaking a rule is the bot's fault; the engine says which."""
    def bogus(line: str) -> str | None:
        return "a:2 a:3" if line.startswith("TURN?") else ("" if line.startswith("HINTS?")
                                                          else None)
    players = [FunctionPlayer("culprit", bogus)]
    result = TheGameMatch(players, TheGameConfig(1, None), 5, TimeLimits()).run()
    assert [(f.seat, f.kind) for f in result.faults] == [(0, FaultKind.ILLEGAL)]
    assert result.faults[0].line == "a:2 a:3"
