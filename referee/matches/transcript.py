"""A game log as people read it: one line per line sent or heard, move and fault.

`referee show LOG` prints it; what a bot sent is shown with its control characters
escaped (referee.printable), so a log cannot drive the reader's terminal.
"""

from __future__ import annotations

from typing import Any, Iterator

from referee.logs.writer import logged_stderr
from referee.printable import printable

ARROWS = {"out": "<", "in": ">"}  # < to the bot, > from it


def transcript(records: list[dict[str, Any]], seat: int | None = None) -> Iterator[str]:
    """The lines of a log's records (read_log's), only those of `seat` if given."""
    for record in records:
        if seat is not None and record.get("seat", seat) != seat:
            continue
        text = _describe(record)
        if text is not None:
            when = record.get("t")
            stamp = f"{when:10.6f} " if isinstance(when, (int, float)) else ""
            yield stamp + printable(text)
            if record.get("type") == "fault":
                yield from _stderr(record, " " * len(stamp))


def _stderr(record: dict[str, Any], indent: str) -> Iterator[str]:
    """A fault's last lines of the bot's stderr, as the log has them (none in a log older
    than they are, or where they are no list of strings), under the fault and each
    escaped: a log may come from anyone."""
    lines = logged_stderr(record)
    if not lines:
        return
    yield f"{indent}  its stderr ended with:"
    for line in lines:
        yield f"{indent}    {printable(line)}"


def _describe(record: dict[str, Any]) -> str | None:
    kind = record.get("type")
    if kind == "game":
        names = ", ".join(f"{p.get('seat')} {p.get('name')}" for p in record.get("players", []))
        return f"{record.get('game')} seed {record.get('seed')}: {names}"
    if kind == "line":
        return f"seat {record.get('seat')} {ARROWS.get(str(record.get('dir')), '?')} " \
               f"{record.get('line')}"
    if kind == "move":
        return f"seat {record.get('seat')} {record.get('kind')} {record.get('move')}" \
               f" ({record.get('by')})"
    if kind == "fault":
        return f"seat {record.get('seat')} FAULT {record.get('kind')}: {record.get('detail')}"
    if kind == "dropped":
        return f"seat {record.get('seat')}: {record.get('lines')} LOG lines " \
               f"({record.get('bytes')} bytes) dropped past the budget"
    if kind == "interrupted":
        return f"INTERRUPTED ({record.get('why')}): the game stopped here, with no result"
    if kind == "result":
        return "result " + ", ".join(f"{k} {v}" for k, v in record.items()
                                     if k not in ("type", "t"))
    return None
