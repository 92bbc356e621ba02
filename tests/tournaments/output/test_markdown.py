"""Markdown and text tables escape what bots wrote: a `|` in a bot's name or fault adds
no column, raw HTML does not pass, and no control character, C1 code (an 8-bit CSI) or
bidirectional override reaches the terminal (tournaments/output/text.py)."""

from __future__ import annotations

import re
import pytest

from tests.tournaments.output.stored import HOSTILE_LINE
from tournaments.output.text import text_report
from tournaments.output.tables import Column, ResultTable

HOSTILE = ["a|b", "x | y | z", "<b>bold</b>", "<!-- c -->", "&amp;", "`code`", "a\\|b",
           "two\nlines", "csi\x9b31m", "esc\x1b[31m", "rlo\u202eoll", "iso\u2066x\u2069",
           "mark\u200f\u061c", HOSTILE_LINE]
# What may not reach a terminal: C0 and C1 controls, bidirectional marks and overrides
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                       "\u2066-\u2069]")


def hostile_table() -> ResultTable:
    columns: tuple[Column, ...] = (Column("bot", "bot"), Column("fault", "fault"))
    columns += tuple(Column(name, f"c{index}") for index, name in enumerate(HOSTILE))
    return ResultTable("faults", "faults", columns,
                 tuple((name, name, *([1] * len(HOSTILE))) for name in HOSTILE))


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def test_a_markdown_row_has_the_columns_of_its_header_and_no_raw_html() -> None:
    lines = text_report([hostile_table()], "markdown", None).splitlines()
    rows = [line for line in lines if line.startswith("|")]
    assert len(rows) == 2 + len(HOSTILE)
    assert {unescaped_pipes(row) for row in rows} == {3 + len(HOSTILE)}
    body = "\n".join(rows)
    assert not re.search(r"<[a-zA-Z!/]", body) and "&amp;amp;" in body
    assert "`" not in body.replace("\\`", "")
    assert not FORBIDDEN.search(body)


@pytest.mark.parametrize("style", ["text", "markdown"])
def test_no_control_or_bidirectional_character_reaches_the_terminal(style: str) -> None:
    report = text_report([hostile_table()], style, None)
    assert not FORBIDDEN.search(report)
    assert len(report.splitlines()) == len(HOSTILE) + (4 if style == "markdown" else 3)
