"""Tables for people in a terminal (text) or a markdown document."""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate  # type: ignore[import-untyped, unused-ignore]

from tournaments.output import cells
from tournaments.report import Table

_STYLES = {"text": ("simple", "{}\n"), "markdown": ("github", "### {}\n\n")}


def text_report(tables: Sequence[Table], style: str, notice: str | None) -> str:
    """The tables in `style` ("text" or "markdown"), blank lines between them, and first
    the notice of an incomplete tournament, if any."""
    parts = ([notice] if notice else []) + [_table(table, style) for table in tables]
    return "\n\n".join(parts) + "\n"


def _table(table: Table, style: str) -> str:
    tablefmt, heading = _STYLES[style]
    # Cells go in as text so tabulate never reads a bot named e.g. "1e5" as a number.
    body = tabulate([[cells.text(cell, column) for cell, column in zip(row, table.columns)]
                     for row in table.rows], table.headers, tablefmt=tablefmt,
                    disable_numparse=True, colalign=_alignment(table))
    return heading.format(table.title) + str(body)


def _alignment(table: Table) -> list[str]:
    def numeric(index: int) -> bool:
        column = [row[index] for row in table.rows if row[index] is not None]
        return bool(column) and all(cells.numeric(cell) for cell in column)
    return ["right" if numeric(index) else "left" for index in range(len(table.columns))]
