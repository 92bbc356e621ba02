"""Tables for people in a terminal (text) or a markdown document.

Cells hold bots' text (names, fault details, offending lines): each is made safe to print
(referee.printable: no control character, C1 code or bidirectional override reaches a
terminal), and in markdown also inert, so that no cell adds a column or passes HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate  # type: ignore[import-untyped, unused-ignore]

from referee.printable import printable
from tournaments.output import cells
from tournaments.output.tables import ResultTable

_STYLES = {"text": ("simple", "{}\n"), "markdown": ("github", "### {}\n\n")}
# In markdown: a backslash (so that no text of a bot undoes the escapes below), a
# pipe (a new column in a table row), a backtick (code spans), and HTML's characters as
# entities (no tag, comment or entity of the bot's).
_MARKDOWN = str.maketrans({"\\": "\\\\", "|": "\\|", "`": "\\`", "<": "&lt;", ">": "&gt;",
                           "&": "&amp;"})


def text_report(tables: Sequence[ResultTable], style: str, notice: str | None,
                title: str | None = None) -> str:
    """The tables in `style` ("text" or "markdown"), blank lines between them, and first
    the tournament's name, if it has one, and the notice of an incomplete tournament."""
    heading = [("## " if style == "markdown" else "") + _cell(title, style)] if title else []
    parts = heading + ([notice] if notice else []) + [_table(table, style) for table in tables]
    return "\n\n".join(parts) + "\n"


def _table(table: ResultTable, style: str) -> str:
    tablefmt, heading = _STYLES[style]
    # Cells go in as text so tabulate never reads a bot named e.g. "1e5" as a number; the
    # headers are bots' names too (head to head). Whitespace is kept: a traceback's
    # indentation is what tells its frames from their source lines.
    body = tabulate([[_cell(cells.text(cell, column), style)
                      for cell, column in zip(row, table.columns)]
                     for row in table.rows], [_cell(name, style) for name in table.headers],
                    tablefmt=tablefmt, preserve_whitespace=True,
                    disable_numparse=True, colalign=_alignment(table))
    return heading.format(_cell(table.title, style)) + str(body)  # a title names bots


def _cell(text: str, style: str) -> str:
    """A cell's text as `style` prints it: printable (one line: a newline is shown as
    \\n), and in markdown with its markup escaped."""
    text = printable(text)
    return text.translate(_MARKDOWN) if style == "markdown" else text


def _alignment(table: ResultTable) -> list[str]:
    def numeric(index: int) -> bool:
        column = [row[index] for row in table.rows if row[index] is not None]
        return bool(column) and all(cells.numeric(cell) for cell in column)
    return ["right" if numeric(index) else "left" for index in range(len(table.columns))]
