"""Rage deals: configs, explicit and seeded deals, the first flip, dealer rotation (R11).

Also home of the small helpers the other Rage test modules use to write explicit deals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

import pytest

from referee.errors import ConfigError
from referee.games.rage.rules import (Event, Flipped, HandDealt, Phase, RageConfig, RageState,
                                RoundStarted, TrickWon, TrumpReason, TrumpSet, Variant)
from referee.games.rage.cards import DECK, Colour, cards_from_faces, parse_play

E = TypeVar("E", bound=Event)

# ------------------------------------------------------------------ helpers for all Rage tests


def deal(hands: Sequence[str], stock: str = "", *, dealer: int = 0,
         variants: Iterable[Variant] = (), rounds: int = 10, seed: int = 0) -> RageState:
    """A state from face strings: one per seat, then the stock (top first).

    The round follows from the hand size (11 - cards), the table size from len(hands).
    """
    *hand_cards, stock_cards = cards_from_faces(*hands, stock)
    config = RageConfig(len(hands), frozenset(variants), rounds)
    return RageState.from_deal(config, hand_cards, stock_cards, dealer=dealer,
                               round_no=11 - len(hand_cards[0]), seed=seed)


def bid_all(state: RageState, *bids: int) -> None:
    """Make these bids in bidding order."""
    for value in bids:
        state.bid(value)


def play(state: RageState, *notations: str) -> None:
    """Play these notations (`r7`, `NT`, `J:r`) in turn order from the current seats' hands."""
    for text in notations:
        seat = state.current_seat
        assert seat is not None
        chosen = parse_play(text, state.hand(seat))
        assert chosen is not None, f"seat {seat} cannot play {text}"
        state.play(chosen)


def tricks_won_events(state: RageState) -> list[TrickWon]:
    return events_of(state, TrickWon)


def events_of(state: RageState, kind: type[E]) -> list[E]:
    """The state's events of one type, in order."""
    return [e for e in state.events if isinstance(e, kind)]


def play_fallback_to_end(state: RageState) -> None:
    while state.phase is not Phase.OVER:
        if state.phase is Phase.BID:
            state.bid(state.fallback_bid())
        else:
            state.play(state.fallback_play())


# ------------------------------------------------------------------ configs


@pytest.mark.parametrize("players", [2, 9])
def test_config_rejects_table_sizes_outside_3_to_8(players: int) -> None:
    with pytest.raises(ConfigError, match="3 to 8 players"):
        RageConfig(players)


@pytest.mark.parametrize("rounds", [0, 11])
def test_config_rejects_rounds_outside_1_to_10(rounds: int) -> None:
    with pytest.raises(ConfigError, match="1 to 10 rounds"):
        RageConfig(4, rounds=rounds)


@pytest.mark.parametrize("hidden", [Variant.HIDDEN_BID, Variant.SECRET_BID])
def test_r10_plus_minus_one_with_hidden_or_secret_bid_is_refused(hidden: Variant) -> None:
    with pytest.raises(ConfigError, match="R10"):
        RageConfig(4, frozenset({Variant.PLUS_MINUS_ONE, hidden}))


def test_config_refuses_hidden_and_secret_bid_together() -> None:
    with pytest.raises(ConfigError, match="hidden-bid and secret-bid"):
        RageConfig(4, frozenset({Variant.HIDDEN_BID, Variant.SECRET_BID}))


def test_config_accepts_valid_combinations() -> None:
    config = RageConfig(8, frozenset({Variant.PLUS_MINUS_ONE, Variant.DURCHMARSCH}), 3)
    assert config.variants == {Variant.PLUS_MINUS_ONE, Variant.DURCHMARSCH}
    assert RageConfig(3, frozenset({Variant.SECRET_BID, Variant.DURCHMARSCH})).rounds == 10


# ------------------------------------------------------------------ explicit deals


def test_from_deal_uses_the_given_hands_stock_and_dealer() -> None:
    state = deal(["r1 r2", "b1 b2", "g1 g2"], "NT y5 o3", dealer=2)
    assert state.round_no == 9 and state.cards == 2 and state.dealer == 2
    assert [[c.face for c in hand] for hand in state.hands] == [["r1", "r2"], ["b1", "b2"],
                                                                ["g1", "g2"]]
    assert [c.face for c in state.flipped] == ["NT", "y5"]
    assert [c.face for c in state.stock] == ["o3"]
    assert state.trump is Colour.YELLOW
    assert state.phase is Phase.BID and state.current_seat == 0  # left of dealer 2


def test_from_deal_rejects_a_hand_of_the_wrong_size() -> None:
    hands = cards_from_faces("r1 r2", "b1 b2", "g1")
    with pytest.raises(ConfigError, match="seat 2 holds 1 cards"):
        RageState.from_deal(RageConfig(3), hands, [], round_no=9)


def test_from_deal_rejects_a_card_dealt_twice() -> None:
    red_one = DECK[33]
    with pytest.raises(ConfigError, match="twice"):
        RageState.from_deal(RageConfig(3), [[red_one], [DECK[1]], [DECK[2]]], [red_one],
                            round_no=10)


def test_from_deal_rejects_wrong_hand_count_dealer_and_round() -> None:
    hands = cards_from_faces("r1", "b1", "g1")
    with pytest.raises(ConfigError, match="3 hands dealt for 4 players"):
        RageState.from_deal(RageConfig(4), hands, [], round_no=10)
    with pytest.raises(ConfigError, match="dealer 3"):
        RageState.from_deal(RageConfig(3), hands, [], dealer=3, round_no=10)
    with pytest.raises(ConfigError, match="round 10 is outside 1..5"):
        RageState.from_deal(RageConfig(3, rounds=5), hands, [], round_no=10)


def test_deal_flips_until_a_colour_card_and_burns_action_cards() -> None:
    state = deal(["r1", "b1", "g1"], "NT +5 b3 o4")
    assert [c.face for c in state.flipped] == ["NT", "+5", "b3"]
    flips = [e for e in state.events if isinstance(e, (Flipped, TrumpSet))]
    assert [type(e) for e in flips] == [Flipped, Flipped, Flipped, TrumpSet]
    assert flips[-1] == TrumpSet(Colour.BLUE, TrumpReason.DEAL)


def test_stock_running_out_on_the_deal_flip_means_no_trump_for_the_round() -> None:
    state = deal(["r1", "b1", "g1"], "NT TC")
    assert state.trump is None and state.stock == []
    assert events_of(state, TrumpSet) == [TrumpSet(None, TrumpReason.DEAL)]
    bid_all(state, 0, 0, 0)
    play(state, "b1", "g1", "r1")  # seat 1 leads blue; no trump: blue wins
    assert tricks_won_events(state)[0].winner == 1


def test_round_start_events_come_in_order() -> None:
    state = deal(["r1", "b1", "g1"], "y2")
    kinds = [type(e) for e in state.events]
    assert kinds == [RoundStarted, HandDealt, HandDealt, HandDealt, Flipped, TrumpSet]
    assert state.events[0] == RoundStarted(10, 1, 0)


# ------------------------------------------------------------------ seeded games


def test_new_game_is_determined_by_the_seed_and_the_moves() -> None:
    config = RageConfig(4, frozenset({Variant.DURCHMARSCH}))
    first, second = RageState.new_game(config, 42), RageState.new_game(config, 42)
    play_fallback_to_end(first)
    play_fallback_to_end(second)
    assert first.events == second.events
    assert RageState.new_game(config, 43).hands != RageState.new_game(config, 42).hands


def test_new_game_deals_ten_cards_from_a_full_deck_and_flips() -> None:
    state = RageState.new_game(RageConfig(5), 7)
    ids = [c.id for hand in state.hands for c in hand] + [c.id for c in state.flipped]
    ids += [c.id for c in state.stock]
    assert sorted(ids) == list(range(112))
    assert all(len(hand) == 10 for hand in state.hands)
    assert state.trump is not None and state.flipped[-1].colour is state.trump


def test_r11_seat_0_deals_round_1_and_the_deal_passes_left() -> None:
    state = RageState.new_game(RageConfig(3, rounds=5), 3)
    while state.phase is not Phase.OVER:
        if state.phase is Phase.BID and state.bids == [None] * 3:
            assert state.current_seat == (state.dealer + 1) % 3  # R11: left of dealer bids
        if state.phase is Phase.PLAY and state.tricks_played == 0 and not state.trick:
            assert state.current_seat == (state.dealer + 1) % 3  # R11: and leads
        if state.phase is Phase.BID:
            state.bid(state.fallback_bid())
        else:
            state.play(state.fallback_play())
    starts = [e for e in state.events if isinstance(e, RoundStarted)]
    assert [(e.round_no, e.cards, e.dealer) for e in starts] == [
        (1, 10, 0), (2, 9, 1), (3, 8, 2), (4, 7, 0), (5, 6, 1)]


def test_the_game_ends_after_the_configured_rounds() -> None:
    state = RageState.new_game(RageConfig(3, rounds=2), 5)
    play_fallback_to_end(state)
    assert state.phase is Phase.OVER and state.current_seat is None
    assert len(state.round_results) == 2
    assert state.legal_bids() == [] and state.legal_plays() == []


def test_later_rounds_of_an_explicit_deal_come_from_the_seed() -> None:
    states = [deal(["r1 r2", "b1 b2", "g1 g2"], "y5", seed=seed) for seed in (9, 9, 10)]
    for state in states:
        bid_all(state, 0, 0, 0)
        play(state, "b1", "g1", "r1", "b2", "g2", "r2")
    one, same, other = states
    assert one.round_no == 10 and one.dealer == 1 and len(one.stock) + len(one.flipped) == 109
    assert one.hands == same.hands and one.flipped == same.flipped
    assert (one.hands, one.flipped) != (other.hands, other.flipped)
