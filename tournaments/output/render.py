"""The one entry point: tables and metadata in a format, standard output's text apart
from what belongs on standard error."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import ConfigError
from tournaments.output.csv_table import csv_table
from tournaments.output.formats import OutputFormat
from tournaments.output.html_page import Linker, html_page
from tournaments.output.json_doc import json_document
from tournaments.output.metadata import Metadata
from tournaments.output.text import text_report
from tournaments.output.tables import ResultTable


@dataclass(frozen=True)
class Rendered:
    """`out` for standard output; `err`, if not empty, a line for standard error (a CSV
    stream holds one table and nothing else, so an incomplete one says so there)."""

    out: str
    err: str = ""


def select(tables: Sequence[ResultTable], name: str | None) -> list[ResultTable]:
    """The table called `name`, or all of them for None; ConfigError for another name,
    listing those there are."""
    if name is None:
        return list(tables)
    chosen = [table for table in tables if table.name == name]
    if not chosen:
        raise ConfigError(f"no table {name!r} here; --table takes "
                          f"{', '.join(table.name for table in tables)}")
    return chosen


def render(tables: Sequence[ResultTable], metadata: Metadata, fmt: OutputFormat,
           table: str | None = None, links: Linker | None = None) -> Rendered:
    """The tables (only the one called `table`, if given) in `fmt`. CSV writes one table:
    without `table` the first, which ranks the bots. HTML links cells as `links` says."""
    chosen = select(tables, table)
    notice = metadata.notice()
    if fmt is OutputFormat.CSV:
        return Rendered(csv_table(chosen[0]) if chosen else "",
                        f"referee: {notice}\n" if notice else "")
    if fmt is OutputFormat.JSON:
        return Rendered(json_document(chosen, metadata))
    if fmt is OutputFormat.HTML:
        return Rendered(html_page(chosen, metadata, links))
    return Rendered(text_report(chosen, fmt.value, notice))
