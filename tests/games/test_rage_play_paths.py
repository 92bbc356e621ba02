"""RageState.play takes a fast path for the plays legal_plays hands out and a checked path
for any other: over random positions, both must accept exactly the legal plays (by value)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.games.rage.rules import CardPlayed, Phase, RageConfig, RageState, legal_plays_for
from referee.games.rage.cards import COLOURS, DECK, Card, Colour, Play

Move = int | Play


def position(seed: int, choices: int, players: int, decisions: int) -> list[Move]:
    """The moves of a random game up to (about) `decisions` decisions, ending in a play
    phase; empty if the game ended first."""
    state = RageState.new_game(RageConfig(players), seed)
    rng = random.Random(choices)
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        if len(moves) >= decisions and state.phase is Phase.PLAY:
            return moves
        move: Move
        if state.phase is Phase.BID:
            move = rng.choice(state.legal_bids())
            state.bid(move)
        else:
            move = rng.choice(state.legal_plays())
            state.play(move)
        moves.append(move)
    return []


def replayed(players: int, seed: int, moves: list[Move]) -> RageState:
    state = RageState.new_game(RageConfig(players), seed)
    for move in moves:
        if isinstance(move, Play):
            state.play(move)
        else:
            state.bid(move)
    return state


def fresh_copy(play: Play) -> Play:
    """An equal play made of new objects: never one of the engine's own."""
    card = play.card
    return Play(Card(card.id, card.kind, card.colour, card.value), play.declared)


def every_play() -> list[Play]:
    """Every card with every declaration, legal for some card or for none."""
    declarations: list[Colour | None] = [None, *COLOURS]
    return [Play(card, declared) for card in DECK for declared in declarations]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), choices=st.integers(0, 2**32),
       players=st.integers(3, 8), decisions=st.integers(0, 200))
def test_play_accepts_exactly_the_legal_plays_by_either_path(
        seed: int, choices: int, players: int, decisions: int) -> None:
    moves = position(seed, choices, players, decisions)
    state = replayed(players, seed, moves)
    if state.phase is not Phase.PLAY:
        return
    seat = state.current_seat
    assert seat is not None
    hand = state.hand(seat)
    offered = state.legal_plays()
    assert offered == legal_plays_for(hand, [play for _, play in state.trick])
    legal = {play.notation for play in offered}
    candidates = [*offered, *map(fresh_copy, offered), *every_play()]
    trial = replayed(players, seed, moves)
    for candidate in candidates:
        expected = candidate.card in hand and candidate.notation in legal
        try:
            trial.play(candidate)
        except RuleError:
            assert not expected, candidate
            assert trial.hand(seat) == hand and trial.trick == state.trick  # unchanged
            continue
        assert expected, candidate
        assert last_play(trial) == CardPlayed(seat, candidate)
        trial = replayed(players, seed, moves)


def last_play(state: RageState) -> CardPlayed:
    return [event for event in state.events if isinstance(event, CardPlayed)][-1]
