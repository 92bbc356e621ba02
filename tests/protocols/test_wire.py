"""The framing rules every game shares (protocols/README.md: requests, LOG lines)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols.wire import find_request, is_log, is_request

LINES = [("PLAY? r3 r9", True), ("BID?", True), ("TURN? min=2", True), ("?", True),
         ("PLAYED 1 r3", False), ("HINT 1 why?", False), ("X?Y z", False), ("", False),
         (" PLAY? r3", False), ("LOG why?", False)]


@pytest.mark.parametrize("line, wants_reply", LINES)
def test_a_request_is_a_line_whose_first_word_ends_in_a_question_mark(
        line: str, wants_reply: bool) -> None:
    assert is_request(line) is wants_reply


@pytest.mark.parametrize("line, log", [
    ("LOG", True), ("LOG thinking hard", True), ("LOGS", False), ("log x", False)])
def test_log_lines_are_the_word_log_alone_or_followed_by_text(line: str, log: bool) -> None:
    assert is_log(line) is log


@given(st.lists(st.one_of(st.sampled_from([line for line, _ in LINES]),
                          st.text(alphabet="AB? =\n", max_size=8))))
def test_find_request_names_the_first_line_that_is_a_request(lines: list[str]) -> None:
    """The batch-wide shortcut must agree with is_request line by line."""
    assert find_request(lines) == next((line for line in lines if is_request(line)), None)
