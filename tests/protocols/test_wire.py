"""The framing rules every game shares (protocols/README.md: requests, LOG lines)."""

from __future__ import annotations

import pytest

from protocols.wire import is_log, is_request


@pytest.mark.parametrize("line, wants_reply", [
    ("PLAY? r3 r9", True), ("BID?", True), ("TURN? min=2", True), ("?", True),
    ("PLAYED 1 r3", False), ("HINT 1 why?", False), ("X?Y z", False), ("", False),
    (" PLAY? r3", False), ("LOG why?", False)])
def test_a_request_is_a_line_whose_first_word_ends_in_a_question_mark(
        line: str, wants_reply: bool) -> None:
    assert is_request(line) is wants_reply


@pytest.mark.parametrize("line, log", [
    ("LOG", True), ("LOG thinking hard", True), ("LOGS", False), ("log x", False)])
def test_log_lines_are_the_word_log_alone_or_followed_by_text(line: str, log: bool) -> None:
    assert is_log(line) is log
