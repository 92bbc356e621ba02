"""Every parser of bot text, fuzzed: it parses or raises WireError, never anything else.

A WireError becomes the bot's protocol fault (referee/matches/table.py), so its detail quotes the
bot's text cut short, and the `ERROR <kind> <detail>` line sent back always fits a line.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.rage import codec as rage

from referee.games.thegame import codec as thegame
from protocols.wire import (
    MAX_LINE_BYTES, MAX_QUOTE_CHARS, PROTOCOL_VERSION, WireError, decode_line, error_line,
    format_hello, parse_hello, parse_key_values, quote,
)
from protocols.faults import FaultKind
from referee.transport.channel import encode_line
from tests.bot_text import (
    BOT_TEXT, DETAIL_BOUND, HINT_TEXT, PILES, PLAY_WORDS, TRICKY, is_ascii_number,
    is_hint_reply, is_placement,
)

FUZZ = settings(max_examples=200, deadline=None)
NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")


def assert_short(error: WireError) -> None:
    assert len(str(error)) <= DETAIL_BOUND


# ---- regressions found by the hostile-bot zoo ----------------------------------------

@pytest.mark.parametrize("reply", ["²", "٣", "1²", "三", "1" * 4000, "9" * 5000, "+1", "-0",
                                   "1_0", " 1 2", "1.0", "0x1"])
def test_a_bid_is_ascii_digits_only(reply: str) -> None:
    with pytest.raises(WireError) as caught:
        rage.parse_bid(reply)
    assert_short(caught.value)


@pytest.mark.parametrize("protocol", ["²", "٣", "2²", "9" * 4000, "9" * 10])
def test_a_hello_version_is_ascii_digits_only(protocol: str) -> None:
    with pytest.raises(WireError) as caught:
        parse_hello(f"HELLO {protocol} tok name 1.0")
    assert_short(caught.value)


@pytest.mark.parametrize("reply", ["a:٣٧", "b:²", "c:1000", "d:" + "9" * 4000])
def test_a_placement_card_is_one_to_three_ascii_digits(reply: str) -> None:
    with pytest.raises(WireError):
        thegame.parse_turn(reply)


@pytest.mark.parametrize("reply", ["leave:a ٣", "good:b ½", "hold:stop 三"])
def test_hints_refuse_numerals_of_any_script(reply: str) -> None:
    """docs/rules.md, Talking: anything numeric is rejected."""
    with pytest.raises(WireError, match="numbers"):
        thegame.parse_hints(reply)


@pytest.mark.parametrize("detail", ["x" * 4090, "é" * 3000, "😀" * 1100, "a b\n" * 2000])
def test_error_line_fits_a_line_however_long_the_detail(detail: str) -> None:
    line = error_line("protocol", detail)
    assert len(encode_line(line)) <= MAX_LINE_BYTES
    assert line.startswith("ERROR protocol ") and line.endswith("...")


def test_quote_cuts_long_text_short_and_leaves_short_text_whole() -> None:
    assert quote("r3") == "'r3'"
    long = quote("x" * 4000)
    assert len(long) == MAX_QUOTE_CHARS + 3 and long.startswith("'xxx") and long.endswith("...")


# ---- fuzz: parse or WireError, and what a success means -----------------------------

@FUZZ
@given(BOT_TEXT)
def test_parse_bid_accepts_exactly_up_to_three_ascii_digits(reply: str) -> None:
    text = reply.strip()
    try:
        bid = rage.parse_bid(reply)
    except WireError as error:
        assert not is_ascii_number(text, rage.MAX_BID_DIGITS)
        assert_short(error)
    else:
        assert is_ascii_number(text, rage.MAX_BID_DIGITS) and bid == int(text)


@given(st.integers(0, 999), st.sampled_from(["", " ", "\t", "\u3000"]))
def test_every_bid_the_referee_can_list_reads_back(bid: int, pad: str) -> None:
    assert rage.parse_bid(f"{pad}{bid}{pad}") == bid


@FUZZ
@given(st.one_of(BOT_TEXT, st.sampled_from(PLAY_WORDS + ["J", "J:", "J:x", "r16", "y-1"])))
def test_play_syntax_accepts_exactly_the_card_notation(reply: str) -> None:
    try:
        text = rage.check_play_syntax(reply)
    except WireError as error:
        assert reply.strip() not in PLAY_WORDS
        assert_short(error)
    else:
        assert text == reply.strip() and text in PLAY_WORDS


def _placement_words() -> st.SearchStrategy[str]:
    card = st.one_of(st.integers(0, 999).map(str), st.text(alphabet=TRICKY, max_size=4))
    return st.builds(lambda p, c: f"{p}:{c}", st.sampled_from(PILES + "e"), card)


TURN_TEXT = st.one_of(BOT_TEXT, st.lists(_placement_words(), max_size=6).map(" ".join))


@FUZZ
@given(TURN_TEXT)
def test_parse_turn_reads_exactly_pile_card_words(reply: str) -> None:
    words = reply.split()
    try:
        turn = thegame.parse_turn(reply)
    except WireError as error:
        assert not (words and all(is_placement(w) for w in words))
        assert_short(error)
    else:
        assert [(thegame.PILE_NAMES[p.pile], p.card) for p in turn] == [
            (w[0], int(w[2:])) for w in words]


@FUZZ
@given(HINT_TEXT)
def test_parse_hints_reads_only_the_fixed_vocabulary(reply: str) -> None:
    """docs/rules.md, Talking: a fixed non-numeric vocabulary, at most MAX_HINTS words."""
    try:
        hints = thegame.parse_hints(reply)
    except WireError as error:
        assert not is_hint_reply(reply)
        assert_short(error)
    else:
        assert [h.word for h in hints] == ([] if reply.strip() == "none" else reply.split())
        assert not any(ch.isnumeric() for ch in reply)


def _hello_word() -> st.SearchStrategy[str]:
    return st.one_of(st.text(alphabet=TRICKY + ".", min_size=1, max_size=12),
                     st.from_regex(r"[A-Za-z0-9._+-]{1,45}", fullmatch=True), BOT_TEXT)


HELLO_TEXT = st.one_of(
    BOT_TEXT,
    st.builds(lambda v, t, n, w: f"HELLO {v} {t} {n} {w}",
              st.one_of(st.integers(0, 10**12).map(str), _hello_word()),
              _hello_word(), _hello_word(), _hello_word()))


@FUZZ
@given(HELLO_TEXT)
def test_parse_hello_accepts_exactly_the_grammar(line: str) -> None:
    parts = line.split()
    well_formed = (len(parts) == 5 and parts[0] == "HELLO" and is_ascii_number(parts[1], 9)
                   and all(_is_name(word) for word in parts[3:]))
    try:
        hello = parse_hello(line)
    except WireError as error:
        assert not well_formed
        assert_short(error)
    else:
        assert well_formed and hello.protocol == int(parts[1])
        assert (hello.token, hello.name, hello.version) == tuple(parts[2:])


def _is_name(word: str) -> bool:
    return 1 <= len(word) <= 40 and all(ch in NAME_CHARS for ch in word)


@settings(max_examples=50, deadline=None)
@given(st.from_regex(r"[0-9a-f]{32}", fullmatch=True),
       st.from_regex(r"[A-Za-z0-9._+-]{1,40}", fullmatch=True),
       st.from_regex(r"[A-Za-z0-9._+-]{1,40}", fullmatch=True))
def test_every_hello_a_bot_sdk_writes_reads_back(token: str, name: str, version: str) -> None:
    hello = parse_hello(format_hello(token, name, version))
    assert (hello.protocol, hello.token, hello.name, hello.version) == (
        PROTOCOL_VERSION, token, name, version)


@FUZZ
@given(st.one_of(st.binary(max_size=64), st.binary(min_size=4090, max_size=4100),
                 BOT_TEXT.map(lambda t: t.encode("utf-8"))))
def test_decode_line_gives_one_line_of_text_or_wire_error(raw: bytes) -> None:
    try:
        text = decode_line(raw)
    except WireError as error:
        assert_short(error)
        return
    assert len(raw) <= MAX_LINE_BYTES
    assert "\n" not in text and "\r" not in text
    assert raw in {text.encode(), text.encode() + b"\n", text.encode() + b"\r",
                   text.encode() + b"\r\n"}


@FUZZ
@given(st.lists(st.one_of(BOT_TEXT, st.text(alphabet="a=b ", max_size=6)), max_size=5))
def test_parse_key_values_reads_key_equals_value_words(words: list[str]) -> None:
    try:
        pairs = parse_key_values(words)
    except WireError as error:
        assert any("=" not in word for word in words)
        assert_short(error)
    else:
        assert all("=" in word for word in words)
        assert pairs == dict(word.split("=", 1) for word in words)


@FUZZ
@given(st.sampled_from([kind.value for kind in FaultKind]),
       st.one_of(BOT_TEXT, BOT_TEXT.map(quote)))
def test_error_line_is_always_one_sendable_line(kind: str, detail: str) -> None:
    line = error_line(kind, detail)
    assert len(encode_line(line)) <= MAX_LINE_BYTES  # raises on a line break, too
    # What can be sent of the detail: a lone surrogate (no UTF-8 for it) becomes '?'.
    whole = f"ERROR {kind} {' '.join(detail.split())}".encode("utf-8", "replace").decode()
    if len(whole.encode()) <= MAX_LINE_BYTES:
        assert line == whole
    else:
        assert line.endswith("...") and line.startswith(whole[:60])
