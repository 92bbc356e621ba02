"""Property tests for The Game engine: conservation, privacy of views, and the legal-turn
search (has_legal_turn / find_legal_turn / legal_turns) against brute force (ruling X1:
the referee decides whether a legal turn exists, so its search must be exact)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.thegame.rules import (
    PRIVATE_EVENTS,
    Dealt,
    DrewCards,
    EndReason,
    Placement,
    Position,
    TheGameConfig,
    TheGameState,
    Turn,
    TurnPlayed,
    check_turn_at,
    find_legal_turn_at,
    has_legal_turn_at,
    is_legal_turn_at,
    legal_turns_at,
    shortest_legal_turns_at,
)
from referee.games.thegame.commands import DEFAULT_COMMANDS
from tests.games.views import thegame_view as view

COMMAND_NUMBERS = sorted(DEFAULT_COMMANDS.by_number)
CARD = st.one_of(st.sampled_from(COMMAND_NUMBERS), st.integers(2, 99))  # commands often
COMMANDS = st.sampled_from([DEFAULT_COMMANDS, None])


def brute_force(position: Position) -> set[Turn]:
    """Every ordering of every subset of the hand onto every piles, kept if check_turn_at
    accepts it: an oracle that shares nothing with the search but the per-card checks."""
    found = set()
    for size in range(1, len(position.hand) + 1):
        for cards in itertools.permutations(position.hand, size):
            for piles in itertools.product(range(4), repeat=size):
                turn = tuple(Placement(p, c) for p, c in zip(piles, cards))
                if is_legal_turn_at(position, turn):
                    found.add(turn)
    return found


def assert_search_agrees(position: Position, oracle: set[Turn]) -> None:
    listed = list(legal_turns_at(position))
    assert len(listed) == len(set(listed)), "legal_turns lists each turn once"
    assert set(listed) == oracle
    assert has_legal_turn_at(position) == bool(oracle)
    witness = find_legal_turn_at(position)
    assert (witness is not None) == bool(oracle)
    assert witness is None or witness in oracle
    shortest = shortest_legal_turns_at(position)
    if oracle:
        length = min(len(turn) for turn in oracle)
        assert set(shortest) == {turn for turn in oracle if len(turn) == length}
    else:
        assert shortest == []


@st.composite
def positions(draw: st.DrawFn) -> Position:
    cards = draw(st.lists(CARD, min_size=8, max_size=8, unique=True))
    size = draw(st.integers(1, 4))
    fresh = draw(st.lists(st.booleans(), min_size=4, max_size=4))
    starts = (1, 1, 100, 100)
    tops = tuple(starts[i] if fresh[i] else cards[4 + i] for i in range(4))
    return Position(tops=tops, hand=tuple(cards[:size]), draw_pile_size=draw(st.integers(0, 3)),
                    players=draw(st.integers(1, 5)), commands=draw(COMMANDS),
                    others_cards=draw(st.integers(0, 2)))


@settings(max_examples=120, deadline=None)
@given(positions())
def test_search_agrees_with_brute_force_on_small_positions(position: Position) -> None:
    assert_search_agrees(position, brute_force(position))


@st.composite
def endgames(draw: st.DrawFn) -> TheGameState:
    """A late position: few cards in hands and draw pile, some cards on the piles."""
    players = draw(st.integers(1, 5))
    cards = draw(st.lists(CARD, min_size=players + 4, max_size=players * 3 + 7, unique=True))
    hands: list[list[int]] = [[cards.pop()] for _ in range(players)]
    piles = [[cards.pop()] if draw(st.booleans()) else [] for _ in range(4)]
    draw_pile = [cards.pop() for _ in range(draw(st.integers(0, min(3, len(cards)))))]
    for card in cards:
        hands[draw(st.integers(0, players - 1))].append(card)
    hands = [hand[:4] for hand in hands]
    return TheGameState.from_deal(TheGameConfig(players, draw(COMMANDS)), hands, draw_pile, piles)


@settings(max_examples=40, deadline=None)
@given(endgames(), st.integers(0, 2**32))
def test_endgames_played_out_agree_with_brute_force(state: TheGameState, seed: int) -> None:
    rng = random.Random(seed)
    total = state.cards_left() + sum(len(p) for p in state.piles)
    while True:
        oracle = brute_force(state.position())
        assert_search_agrees(state.position(), oracle)
        assert state.is_over == (not oracle)
        if state.is_over:
            break
        state.apply_turn(rng.choice(sorted(oracle, key=repr)))
        assert state.cards_left() + sum(len(p) for p in state.piles) == total
    if state.cards_left() == 0:
        assert state.end_reason in (EndReason.ALL_PLAYED, EndReason.SKULL_SHOWING)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 5), COMMANDS)
def test_random_games_conserve_cards_and_keep_hands_private(
        seed: int, players: int, commands: object) -> None:
    config = TheGameConfig(players, DEFAULT_COMMANDS if commands is not None else None)
    state = TheGameState.new_game(config, seed)
    rng = random.Random(seed)
    while True:
        assert_conserved(state)
        assert_views_private(state)
        position = state.position()
        first = next(legal_turns_at(position), None)
        assert has_legal_turn_at(position) == (first is not None)
        if state.is_over:
            assert state.end_reason is EndReason.NO_LEGAL_TURN and first is None
            break
        witness = state.find_legal_turn()
        assert witness is not None
        check_turn_at(position, witness)
        state.apply_turn(rng.choice(shortest_legal_turns_at(position)))


def assert_conserved(state: TheGameState) -> None:
    cards = [c for hand in state.hands for c in hand] + state.draw_pile
    cards += [c for pile in state.piles for c in pile]
    assert sorted(cards) == list(range(2, 100))


def assert_views_private(state: TheGameState) -> None:
    for seat in range(state.config.players):
        seen = view(state, seat)
        assert seen.hand == tuple(state.hands[seat])
        assert all(e.seat == seat for e in seen.events if isinstance(e, PRIVATE_EVENTS))
        assert own_cards_from_events(seen.events, seat) == sorted(seen.hand), (
            "a seat can track its own hand from its events, and from nothing else")


def own_cards_from_events(events: tuple[object, ...], seat: int) -> list[int]:
    cards: set[int] = set()
    for event in events:
        if isinstance(event, (Dealt, DrewCards)):
            cards.update(event.cards)
        elif isinstance(event, TurnPlayed) and event.seat == seat:
            cards.difference_update(p.card for p in event.turn)
    return sorted(cards)
