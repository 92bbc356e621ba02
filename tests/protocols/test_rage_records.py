"""The referee encodes Rage's events from the engine's raw records (referee/games/rage/codec.py,
record_encoders): every record's line must be the line of its built event."""

from __future__ import annotations

import random

import pytest

from referee.games.rage import codec
from referee.games.rage.rules import GameOver, RageConfig, RageState, Variant


def played_out(variants: frozenset[Variant], seed: int) -> RageState:
    """A whole game, random legal decisions: every kind of record occurs."""
    state = RageState.new_game(RageConfig(4, variants), seed)
    rng = random.Random(seed)
    while state.current_seat is not None:
        if state.legal_bids():
            state.bid(rng.choice(state.legal_bids()))
        else:
            state.play(rng.choice(state.legal_plays()))
    return state


@pytest.mark.parametrize("variants", [
    frozenset(), frozenset({Variant.HIDDEN_BID}), frozenset({Variant.SECRET_BID}),
    frozenset({Variant.PLUS_MINUS_ONE, Variant.DURCHMARSCH})])
def test_every_record_encodes_as_its_event(variants: frozenset[Variant]) -> None:
    state = played_out(variants, 4)
    records, events = state.records_since(0), state.events
    assert len(records) == len(events)
    for record, event in zip(records, events):
        assert record[0] is type(event)
        assert codec.encode_record(record) == codec.encode_event(event)
    kinds = {type(event).__name__ for event in events}
    assert {"HandDealt", "TrumpSet", "TrickWon", "RoundScored", "CardPlayed"} <= kinds
    assert codec.encode_record(records[-1]) is None and records[-1][0] is GameOver


def test_records_since_is_the_tail_of_the_records() -> None:
    state = played_out(frozenset(), 2)
    assert state.records_since(5) == state.records_since(0)[5:]
    assert len(state.events_since(5)) == len(state.records_since(5))
