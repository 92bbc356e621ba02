"""One table as CSV: a header row of column keys, then the rows; nothing else, so that
any CSV reader takes it as it is."""

from __future__ import annotations

import csv
import io

from protocols.faults import FaultKind
from tournaments.output import cells
from tournaments.output.tables import Cell, Column, FaultCounts, ResultTable


def csv_table(table: ResultTable) -> str:
    """Floats to the column's decimals, "not available" as an empty field; a column of
    fault counts as its words (`crash 2`) and then a number per kind, `faults_crash`..."""
    counted = [isinstance(column_cells[0], FaultCounts) if column_cells else False
               for column_cells in zip(*table.rows)] or [False] * len(table.columns)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([key for column, by_kind in zip(table.columns, counted)
                     for key in _keys(column, by_kind)])
    writer.writerows([field for cell, column, by_kind in zip(row, table.columns, counted)
                      for field in _fields(cell, column, by_kind)] for row in table.rows)
    return out.getvalue()


def _keys(column: Column, by_kind: bool) -> list[str]:
    return [column.key] + ([f"{column.key}_{kind.value}" for kind in FaultKind]
                           if by_kind else [])


def _fields(cell: Cell, column: Column, by_kind: bool) -> list[str]:
    text = cells.csv_text(cell, column)
    if not by_kind:
        return [text]
    counts = cell.counts if isinstance(cell, FaultCounts) else (0,) * len(FaultKind)
    return [text] + [str(count) for count in counts]
