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
