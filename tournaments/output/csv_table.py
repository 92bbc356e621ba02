"""One table as CSV: a header row of column keys, then the rows; nothing else, so that
any CSV reader takes it as it is."""

from __future__ import annotations

import csv
import io

from tournaments.output import cells
from tournaments.output.tables import ResultTable


def csv_table(table: ResultTable) -> str:
    """Floats to the column's decimals, "not available" as an empty field."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.keys)
    writer.writerows([cells.text(cell, column, missing="")
                      for cell, column in zip(row, table.columns)] for row in table.rows)
    return out.getvalue()
