"""Rage cards: the deck, faces, play notation and parsing."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.games.rage.cards import (COLOURS, DECK, Card, Colour, Kind, Play, card_by_face,
                                      cards_from_faces, parse_play)


def test_deck_has_112_cards_with_ids_equal_to_positions() -> None:
    assert len(DECK) == 112
    assert all(card.id == i for i, card in enumerate(DECK))


def test_deck_composition_96_colour_cards_and_16_actions() -> None:
    kinds = Counter(card.kind for card in DECK)
    assert kinds == {Kind.COLOUR: 96, Kind.JOKER: 2, Kind.NO_TRUMP: 4, Kind.TRUMP_CHANGE: 4,
                     Kind.PLUS_FIVE: 3, Kind.MINUS_FIVE: 3}
    assert [card.kind for card in DECK[96:]] == (
        [Kind.JOKER] * 2 + [Kind.NO_TRUMP] * 4 + [Kind.TRUMP_CHANGE] * 4
        + [Kind.PLUS_FIVE] * 3 + [Kind.MINUS_FIVE] * 3)


def test_colour_card_ids_are_colour_index_times_16_plus_value() -> None:
    for ci, colour in enumerate(COLOURS):
        for value in range(16):
            card = DECK[ci * 16 + value]
            assert (card.kind, card.colour, card.value) == (Kind.COLOUR, colour, value)


def test_colours_are_in_wire_letter_order() -> None:
    assert [c.value for c in COLOURS] == ["b", "g", "r", "y", "v", "o"]


def test_faces_use_wire_notation() -> None:
    assert DECK[2 * 16 + 7].face == "r7"
    assert str(DECK[15]) == "b15"
    assert DECK[5 * 16].face == "o0"
    assert [DECK[i].face for i in (96, 98, 102, 106, 109)] == ["J", "NT", "TC", "+5", "-5"]
    assert len({card.face for card in DECK}) == 96 + 5  # copies of an action share a face


def test_play_notation_adds_the_declared_colour_for_a_joker() -> None:
    assert Play(DECK[96], Colour.RED).notation == "J:r"
    assert str(Play(DECK[3 * 16 + 8])) == "y8"
    assert Play(DECK[98]).notation == "NT"


def test_face_and_notation_are_derived_not_compared() -> None:
    """Both are stored once at construction; equality and hashing still use the fields."""
    assert Card(7, Kind.COLOUR, Colour.BLUE, 7) == DECK[7]
    assert hash(Card(7, Kind.COLOUR, Colour.BLUE, 7)) == hash(DECK[7])
    assert Play(DECK[96], Colour.RED) == Play(DECK[96], Colour.RED)
    assert "face" not in repr(DECK[7]) and "notation" not in repr(Play(DECK[7]))
    with pytest.raises(TypeError, match="'r'"):
        Play(DECK[96], "r")  # type: ignore[arg-type]


def test_card_rejects_inconsistent_fields() -> None:
    with pytest.raises(ValueError):
        Card(0, Kind.COLOUR, None, 3)
    with pytest.raises(ValueError):
        Card(96, Kind.JOKER, Colour.RED, None)
    with pytest.raises(ValueError):
        Card(0, Kind.COLOUR, Colour.BLUE, 16)


def test_card_by_face_returns_the_lowest_id_copy() -> None:
    hand = [DECK[101], DECK[99], DECK[3]]
    assert card_by_face("NT", hand) is DECK[99]
    assert card_by_face("b3", hand) is DECK[3]
    assert card_by_face("b4", hand) is None


def test_parse_play_names_cards_of_the_hand_only() -> None:
    hand, = cards_from_faces("r7 NT J b15")
    assert parse_play("r7", hand) == Play(DECK[39])
    assert parse_play("NT", hand) == Play(DECK[98])
    assert parse_play("J:o", hand) == Play(DECK[96], Colour.ORANGE)
    assert parse_play("b15", hand) == Play(DECK[15])
    assert parse_play("r8", hand) is None
    assert parse_play("TC", hand) is None


@pytest.mark.parametrize("text", ["J", "J:", "J:x", "J:rr", "r7:r", "NT:b", "", " r7", "r07"])
def test_parse_play_rejects_malformed_text(text: str) -> None:
    hand, = cards_from_faces("r7 NT J")
    assert parse_play(text, hand) is None


def test_cards_from_faces_takes_distinct_copies_across_groups() -> None:
    first, second = cards_from_faces("NT J NT", "NT J r1")
    assert [c.id for c in first] == [98, 96, 99]
    assert [c.id for c in second] == [100, 97, 33]


def test_cards_from_faces_rejects_unknown_faces_and_too_many_copies() -> None:
    with pytest.raises(ValueError, match="no Rage card"):
        cards_from_faces("r16")
    with pytest.raises(ValueError, match="only 2"):
        cards_from_faces("J J", "J")
    with pytest.raises(ValueError, match="only 1"):
        cards_from_faces("r1 r1")
