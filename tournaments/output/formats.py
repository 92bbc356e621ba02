"""The output formats."""

from __future__ import annotations

import enum


class OutputFormat(enum.StrEnum):
    """The formats `render` writes."""

    TEXT = "text"
    MARKDOWN = "markdown"
    CSV = "csv"
    JSON = "json"
    HTML = "html"

    @property
    def for_people(self) -> bool:
        """Read by people, not parsed: a table may leave out what would read the same
        on every row, where machines keep every column the docs promise them."""
        return self not in (OutputFormat.CSV, OutputFormat.JSON)
