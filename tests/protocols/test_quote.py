"""Quoting an offending line escapes it exactly once (protocols/wire.quote): a line that
was not UTF-8 is recorded with its bytes escaped already (\\xNN), so it is quoted without
escaping those backslashes again; any other line is quoted as repr quotes it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.wire import WireError, decode_line, line_escaped, quote
from referee.transport.channel import excerpt

GARBAGE = b"\xff\xfe not utf-8 \xc3\x28"  # what tests' garbage bots send


def not_utf8_detail(raw: bytes) -> str:
    with pytest.raises(WireError) as caught:
        decode_line(raw)
    return str(caught.value)


def test_a_line_not_in_utf8_is_quoted_with_each_byte_escaped_once() -> None:
    line, detail = excerpt(GARBAGE), not_utf8_detail(GARBAGE)
    assert line_escaped(detail)
    assert quote(line, escaped=line_escaped(detail)) == r"'\xff\xfe not utf-8 \xc3('"
    assert quote(line) == r"'\\xff\\xfe not utf-8 \\xc3('"  # what it showed before


def test_other_details_are_quoted_as_repr_quotes() -> None:
    assert not line_escaped("not a card in the notation: 'x'")
    assert not line_escaped("line longer than 4096 bytes")
    assert quote(r"BID \x41") == repr(r"BID \x41")


def test_control_characters_and_quotes_are_still_escaped() -> None:
    assert quote("it's \x1b[2J\u2028é", escaped=True) == r"'it\'s \x1b[2J\u2028é'"
    assert quote("x" * 500, limit=10, escaped=True) == "'xxxxxxxxx..."


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escaped_quoting_shows_only_printable_text(text: str) -> None:
    shown = quote(text, escaped=True)
    assert shown.isprintable() and shown.startswith("'")


@settings(max_examples=300, deadline=None)
@given(st.text().filter(lambda t: not {"\\", "'", '"'} & set(t)))
def test_escaped_quoting_is_repr_where_there_is_no_backslash_nor_quote(text: str) -> None:
    assert quote(text, escaped=True) == quote(text)
