"""The JSON document: docs/results-json.md describes it, docs/results-schema.json is its
schema."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tournaments.output import cells
from tournaments.output.metadata import Metadata
from tournaments.output.tables import ResultTable


def json_document(tables: Sequence[ResultTable], metadata: Metadata) -> str:
    document = {"metadata": metadata.to_json(), "tables": tables_json(tables)}
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def tables_json(tables: Sequence[ResultTable]) -> dict[str, object]:
    """Each table by its name, in the order people are shown them."""
    names = [table.name for table in tables]
    if len(set(names)) != len(names):
        raise ValueError(f"two tables of one name among {names}")  # a referee bug
    return {table.name: {
        "title": table.title,
        "columns": [{"key": column.key, "name": column.name} for column in table.columns],
        "rows": [{column.key: cells.json_value(cell) for column, cell in zip(table.columns, row)}
                 for row in table.rows],
    } for table in tables}
