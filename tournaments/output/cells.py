"""One cell as people read it and as machines do."""

from __future__ import annotations

import math

from tournaments.output.tables import Cell, Column, FaultCounts, Interval, Lines, NoScore

JsonValue = str | int | float | None | dict[str, int] | dict[str, float | None] | list[str]
JSON_DECIMALS = 6  # enough for any statistic here; hides float noise between runs


def text(cell: Cell, column: Column, missing: str = "n/a") -> str:
    """The cell for people: floats to the column's decimals, None as `missing`."""
    if cell is None:
        return missing
    if isinstance(cell, float):
        return f"{cell:.{column.decimals}f}"
    if isinstance(cell, Interval):
        low, high = f"{cell.low:.{column.decimals}f}", f"{cell.high:.{column.decimals}f}"
        # "-150 to -20", not "-150--20": a dash reads as a minus beside a negative bound,
        # and "inf to inf", not "inf-inf"
        spelled = cell.low < 0 or cell.high < 0 or math.isinf(cell.low) or math.isinf(cell.high)
        return f"{low} to {high}" if spelled else f"{low}-{high}"
    return str(cell)


def json_value(cell: Cell) -> JsonValue:
    """The cell for machines: numbers as numbers, faults as counts per kind, an interval
    as its bounds, a bot's lines as a list, "not available" (and a non-finite number) as null."""
    if isinstance(cell, FaultCounts):
        return cell.by_kind()
    if isinstance(cell, Lines):
        return list(cell.lines)
    if isinstance(cell, NoScore):
        return None
    if isinstance(cell, Interval):
        return {"low": _number(cell.low), "high": _number(cell.high)}
    if isinstance(cell, float):
        return _number(cell)
    return cell


def _number(value: float) -> float | None:
    return round(value, JSON_DECIMALS) if math.isfinite(value) else None


def csv_text(cell: Cell, column: Column) -> str:
    """The cell for a CSV field: text, with a faulted seat's missing score empty, as any
    other value that is not available."""
    return "" if isinstance(cell, NoScore) else text(cell, column, missing="")


def numeric(cell: Cell) -> bool:
    return isinstance(cell, (int, float)) and not isinstance(cell, bool)
