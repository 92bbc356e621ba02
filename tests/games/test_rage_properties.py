"""Rage invariants over random games: cards conserved, scores add up, views leak nothing."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import ConfigError
from referee.games.rage.rules import (BidMade, GameOver, HandDealt, Phase, RageConfig, RageState,
                                RoundStarted, TrickWon, Variant)
from referee.games.rage.cards import Card
from tests.games.views import RageView, rage_view as view


def _valid_variant_sets() -> list[frozenset[Variant]]:
    valid = []
    for size in range(len(Variant) + 1):
        for combo in itertools.combinations(Variant, size):
            try:
                valid.append(RageConfig(3, frozenset(combo)).variants)
            except ConfigError:
                pass
    return valid


VARIANT_SETS = _valid_variant_sets()
BID_HIDING = frozenset({Variant.HIDDEN_BID, Variant.SECRET_BID})


def test_r10_the_valid_variant_sets_are_exactly_those_without_a_bad_pair() -> None:
    # 16 subsets, less 6 holding plus-minus-one with hidden or secret bid, less the 2
    # others holding hidden-bid with secret-bid
    assert len(VARIANT_SETS) == 8
    for variants in VARIANT_SETS:
        assert not (Variant.PLUS_MINUS_ONE in variants and variants & BID_HIDING)
        assert len(variants & BID_HIDING) < 2


def check_cards_conserved(state: RageState) -> None:
    piles = [*state.hands, state.stock, state.flipped, [p.card for _, p in state.trick],
             *state.won_cards]
    assert sorted(c.id for pile in piles for c in pile) == list(range(112))


def visible_cards(seen: RageView) -> set[int]:
    """Cards this view shows from the current round (after its last RoundStarted)."""
    events = list(seen.events)
    starts = [i for i, e in enumerate(events) if isinstance(e, RoundStarted)]
    cards: list[Card] = list(seen.hand)
    for event in events[starts[-1] if starts else 0:]:
        if isinstance(event, HandDealt):
            cards.extend(event.cards)
        elif isinstance(event, TrickWon):
            cards.extend(p.card for _, p in event.plays)
        elif hasattr(event, "card"):
            cards.append(event.card)
        elif hasattr(event, "play"):
            cards.append(event.play.card)
    return {c.id for c in cards}


def check_view(state: RageState, seat: int, since: int) -> None:
    seen = view(state, seat, since)
    others = {c.id for s, hand in enumerate(state.hands) if s != seat for c in hand}
    assert not visible_cards(seen) & others
    assert all(e.seat == seat for e in seen.events if isinstance(e, HandDealt))
    assert seen.hand == tuple(state.hand(seat))
    variants = state.config.variants
    if variants & BID_HIDING:
        assert all(e.seat == seat for e in seen.events if isinstance(e, BidMade))
        revealed = (state.phase is Phase.OVER if Variant.SECRET_BID in variants
                    else state.phase is not Phase.BID)
        expected = tuple(b if s == seat or revealed else None for s, b in enumerate(state.bids))
        assert seen.bids == expected
    else:
        assert seen.bids == tuple(state.bids)


def check_final_scores(state: RageState) -> None:
    assert len(state.round_results) == state.config.rounds
    for result in state.round_results:
        assert sum(seat.tricks for seat in result.seats) == result.cards
        for seat in result.seats:
            assert seat.total == seat.trick_points + seat.action_points + seat.bid_bonus
            assert seat.bid_bonus == (10 if seat.tricks == seat.bid else -5)
    sums = [sum(r.seats[s].total for r in state.round_results) for s in range(state.config.players)]
    assert state.totals() == sums
    assert state.events[-1] == GameOver(tuple(sums))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), choices=st.integers(0, 2**32),
       players=st.integers(3, 8), variants=st.sampled_from(VARIANT_SETS),
       rounds=st.integers(1, 10))
def test_random_games_keep_every_invariant(seed: int, choices: int, players: int,
                                           variants: frozenset[Variant], rounds: int) -> None:
    state = RageState.new_game(RageConfig(players, variants, rounds), seed)
    rng = random.Random(choices)
    seen_up_to = [0] * players
    while state.phase is not Phase.OVER:
        if state.phase is Phase.BID:
            state.bid(rng.choice(state.legal_bids()))
        else:
            state.play(rng.choice(state.legal_plays()))
        check_cards_conserved(state)
        assert sum(state.tricks_won) == state.tricks_played
        for seat in range(players):
            check_view(state, seat, seen_up_to[seat])
            seen_up_to[seat] = len(state.events)
    check_final_scores(state)
