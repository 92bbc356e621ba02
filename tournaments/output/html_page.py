"""A complete, standalone HTML page of the results, to publish as it is: no script, no
outside resource, and every text from a bot escaped (bots are hostile: a name or an
offending line may hold markup)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Protocol

from tournaments.output import cells
from tournaments.output.metadata import Metadata
from tournaments.output.tables import Cell, Column, Lines, ResultTable

SHADED = "head_to_head"  # the crosstable: each cell a share from 0 to 100
# Cells shown as written, in monospace with their spaces: a traceback's lines, whose
# indentation tells its frames from their source lines.
_VERBATIM = {("failure_stderr", "stderr")}


class Linker(Protocol):
    """Where a cell links to, if anywhere: a bot's page, a game's replay (a results site,
    tournaments/site/). The href is the linker's own, never text from a bot."""

    def __call__(self, table: ResultTable, row: tuple[Cell, ...],
                 column: Column) -> str | None: ...

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; }
.notice { background: #fff3cd; border: 1px solid #e0c060; padding: .5em 1em; }
section { overflow-x: auto; margin: 1.5em 0; }
table { border-collapse: collapse; font-size: .9em; }
caption { text-align: left; font-weight: bold; padding: .4em 0; max-width: 60em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.line { font-family: monospace; white-space: pre-wrap; }
table.settings th { text-align: left; }
nav.site { margin-bottom: 1em; }
""".strip()


def html_page(tables: Sequence[ResultTable], metadata: Metadata,
              links: Linker | None = None, before: str = "") -> str:
    """The results page; with `links`, cells link where it says; `before`, markup the
    caller made (escaped), goes first in the body."""
    title = metadata.heading
    notice = metadata.notice()
    body = [before, f"<h1>{escape(title)}</h1>"]
    if notice:
        body.append(f'<p class="notice" id="notice">{escape(notice)}</p>')
    body.append(_settings(metadata))
    body.extend(section(table, links) for table in tables)
    return document(title, body)


def document(title: str, body: Sequence[str]) -> str:
    """A whole page of `body`'s markup, with the results' styles."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>", f"<style>\n{_STYLE}\n</style>", "</head>",
        "<body>", *[part for part in body if part], "</body>", "</html>"]) + "\n"


def _settings(metadata: Metadata) -> str:
    rows = "".join(f"<tr><th scope=\"row\">{escape(name)}</th><td>{escape(words)}</td></tr>"
                   for name, words in metadata.settings())
    return (f'<section><table class="settings" id="settings"><caption>Settings</caption>'
            f"<tbody>{rows}</tbody></table></section>")


def section(table: ResultTable, links: Linker | None = None) -> str:
    """One table, in a section of its own."""
    head = "".join(f'<th scope="col">{escape(column.name)}</th>' for column in table.columns)
    rows = [_row(table, row, links) for row in table.rows] or [
        f'<tr><td colspan="{len(table.columns)}">none</td></tr>']
    return (f'<section><table id="{escape(table.name)}"><caption>{escape(table.title)}'
            f"</caption><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
            "</table></section>")


def _row(table: ResultTable, row: tuple[Cell, ...], links: Linker | None) -> str:
    return "<tr>" + "".join(_cell(table, column, cell, row, links)
                            for column, cell in zip(table.columns, row)) + "</tr>"


def _cell(table: ResultTable, column: Column, cell: Cell, row: tuple[Cell, ...],
          links: Linker | None) -> str:
    attributes = ""
    if cells.numeric(cell):
        attributes = ' class="num"'
        if table.name == SHADED and isinstance(cell, (int, float)):
            attributes += f' style="background-color: {shade(float(cell))}"'
    elif column.key == "line" or (table.name, column.key) in _VERBATIM:
        attributes = ' class="line"'
    elif isinstance(cell, Lines) and cell.lines:  # the last line; all of them unfolded
        return (f'<td class="line"><details><summary>{escape(str(cell))}</summary>'
                f'<pre>{escape(chr(10).join(cell.lines))}</pre></details></td>')
    shown = escape(cells.text(cell, column))
    href = None if links is None or cell is None else links(table, row, column)
    if href is not None:
        shown = f'<a href="{escape(href)}">{shown}</a>'
    return f"<td{attributes}>{shown}</td>"


def shade(percent: float) -> str:
    """Green as the row bot is ahead more often, red as less, white at even (50)."""
    strength = min(abs(percent - 50.0) / 50.0, 1.0)
    red, green, blue = (46, 160, 67) if percent >= 50 else (215, 58, 73)
    return f"rgba({red}, {green}, {blue}, {0.6 * strength:.2f})"
