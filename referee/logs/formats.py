"""Reading the game log's older formats (1 to 4, docs/game-log.md), which this referee
no longer writes: each as one record per line.

Format 4 and 3 write an exchange as an array, [seat, (us, us_taken,) out, in(, kind(,
move))], format 4 with `out` only counting the lines out (derive.py derives them),
format 3 with the lines; format 2 as an object; format 1 (no `format`) a record per line.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Mapping, Sequence

from referee.logs.writer import DecidedBy

ARRAY_FORMATS = (3, 4)  # those whose exchanges are arrays (3 writes every line out)


def exchange_fields(exchange: list[Any]) -> tuple[Any, list[Any], Any, Any, list[Any]]:
    """An exchange array's seat, times ([] or [us, us_taken]), out, in and [kind(, move)],
    unchecked; ValueError if it is too short. Timed, [seat, us, us_taken, out, in, ...];
    untimed, [seat, out, in, ...], its third value is the list of lines in."""
    timed = len(exchange) > 2 and type(exchange[2]) is int
    seat, *times = exchange[:3] if timed else exchange[:1]
    out, heard, *decided = exchange[3:] if timed else exchange[1:]
    return seat, times, out, heard, decided


def counted_out(record: Any) -> int | None:
    """How many lines out a format 4 exchange counts, if it only counts them; else None."""
    if not isinstance(record, list):
        return None
    try:
        out = exchange_fields(record)[2]
    except ValueError:
        return None
    return out if type(out) is int else None


def expand(records: list[Any], derived: Mapping[int, Sequence[str]] | None = None
           ) -> list[dict[str, Any]]:
    """The records, a log's JSON values in order, with each exchange unfolded into its
    lines and its move: those of formats 3 and 4 (arrays) and of format 2 (objects). A
    format 4 exchange's lines out, only counted in the file, are `derived[its index]`.
    ValueError if they are not a game log's."""
    header = records[0] if records and isinstance(records[0], dict) else {}
    # arrays are exchanges: in any log but one whose header says it is older
    arrays = header.get("type") != "game" or header.get("format") in ARRAY_FORMATS
    derived = derived or {}
    expanded: list[dict[str, Any]] = []
    for index, record in enumerate(records):
        expanded += _expanded(record, arrays, derived.get(index))
    return expanded


def _expanded(record: Any, arrays: bool, sent: Sequence[str] | None
              ) -> list[dict[str, Any]]:
    if isinstance(record, list) and arrays:
        exchange: Callable[[Any], list[dict[str, Any]]] = partial(_unfold_array, sent=sent)
    elif not isinstance(record, dict):
        raise ValueError("not a game log: a line that is not a JSON object")
    elif record.get("type") == "exchange":
        exchange = _unfold
    else:
        if isinstance(record.get("us"), int):  # formats 2 and 3: µs, as an int
            record["t"] = _seconds(record.pop("us"))
        return [record]
    try:
        return exchange(record)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"not a game log: a broken exchange ({error!r})") from None


def _seconds(us: int) -> float:
    try:
        return us / 1e6
    except OverflowError:  # a number no clock gives
        raise ValueError(f"not a game log: a time of {len(str(us))} digits") from None


def _unfold_array(exchange: list[Any], sent: Sequence[str] | None) -> list[dict[str, Any]]:
    """An exchange of format 3 or 4: [seat, (us, us_taken,) out, in(, kind(, move))], the
    move the last line in if not given; `out` the lines, or in format 4 their number
    (`sent` then holds them, derived)."""
    seat, times, out, heard, decided = exchange_fields(exchange)
    timed = bool(times)
    if type(out) is int:
        if out and (sent is None or len(sent) != out):
            raise ValueError("lines out that were not derived")
        out = list(sent or ())
    if type(seat) is not int or not all(type(us) is int for us in times):
        raise TypeError("seat and times must be integers")
    if len(decided) == 1:
        decided.append(heard[-1] if isinstance(heard, list) and heard else None)
    if not isinstance(out, list) or not isinstance(heard, list) or len(decided) > 2 \
            or not all(isinstance(word, str) for word in decided):
        raise TypeError("out and in must be lists, then a kind and a move")
    return _records(seat, out, heard, decided,
                    {"t": _seconds(times[0])} if timed else {},
                    {"t": _seconds(times[0] + times[1])} if timed else {})


def _unfold(exchange: dict[str, Any]) -> list[dict[str, Any]]:
    """A format 2 exchange: {"type": "exchange", "seat", "out", "in"(, "move")
    (, "us" (read as "t"), "us_in")}."""
    seat, sent, heard = exchange["seat"], exchange["out"], exchange["in"]
    if not isinstance(sent, list) or not isinstance(heard, list):
        raise TypeError("out and in must be lists")
    decided = list(exchange["move"]) if "move" in exchange else []
    if len(decided) not in (0, 2):
        raise TypeError("a move is [kind, move]")
    timed = isinstance(exchange.get("us"), int)
    return _records(seat, sent, heard, decided,
                    {"t": _seconds(exchange["us"])} if timed else {},
                    {"t": _seconds(exchange["us_in"])} if timed else {})


def _records(seat: int, sent: list[Any], heard: list[Any], decided: list[Any],
             when: dict[str, float], later: dict[str, float]) -> list[dict[str, Any]]:
    """An exchange's records: each line out (at `when`), each line in and the move (at
    `later`)."""
    records = [{"type": "line", "seat": seat, "dir": "out", "line": line, **when}
               for line in sent]
    records += [{"type": "line", "seat": seat, "dir": "in", "line": line, **later}
                for line in heard]
    if decided:
        kind, move = decided
        records.append({"type": "move", "seat": seat, "kind": kind, "move": move,
                        "by": DecidedBy.BOT.value, **later})
    return records
