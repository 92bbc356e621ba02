"""A game log's records as JSON Lines (docs/game-log.md), a block of records at a time.

An exchange is a JSON array, [seat, (us, us_taken,) out, [lines in](, kind(, move))],
`out` the number of lines out (derived again when read) or, after the seat's fault, the
lines; without the move when it is the last line in as the seat sent it (as it mostly
is): the fewer bytes, the less to write and to compress.

Escaping every line of every exchange for JSON was most of the log's CPU, yet almost no
line needs it: referee lines and well-behaved bots' lines are printable ASCII. So a block
is written first with every string as it is and checked once, as a whole; only a block
where some string needs an escape is written again, each string escaped. Where both ways
apply they give the same bytes, so the file does not tell which way it was written.
"""

from __future__ import annotations

import json
from typing import Any

# An exchange as GameLog keeps it, (seat, lines out or their number, lines in, kind, move
# (both None without a move), ns, ns of the last line in), or any other record's line
# (record_line).
Record = tuple[Any, ...] | str

# Records are trees the referee built: no cycle to look for (a tenth faster).
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
_string = json.encoder.encode_basestring_ascii  # a str as JSON, ASCII only, as the encoder
_LIST = '","'  # between the strings of a list written as they are
# The ASCII characters a JSON string escapes (past ASCII, all are): one search for each
# (memchr) is cheaper than one pass that looks at each character.
_ESCAPED = (*map(chr, range(0x20)), '"', "\\", "\x7f")


def record_line(record: dict[str, Any]) -> str:
    """A record other than an exchange, as its line (without the "\\n")."""
    return _ENCODER.encode(record)


def encode_block(block: list[Record], start: int, timestamps: bool) -> bytes:
    """The records as JSON Lines, one "\\n"-ended line each; `start` is the ns the
    exchanges' times count from."""
    plain = _plain_block(block, start, timestamps)
    if plain is not None:
        return plain
    return "".join([escaped_line(record, start, timestamps) + "\n"
                    for record in block]).encode()


def escaped_line(record: Record, start: int, timestamps: bool) -> str:
    """One record's line (without its "\\n"), every string escaped: record_line's for
    a record other than an exchange; by hand for an exchange, one escape per string
    instead of the encoder's walk of a list of lists."""
    if isinstance(record, str):
        return record
    seat, sent, heard, kind, move, began, ended = record
    line = f"[{seat}"
    if timestamps:
        line += f",{(began - start) // 1000},{(ended - began) // 1000}"
    out = sent if type(sent) is int else f'[{",".join(map(_string, sent))}]'
    line += f',{out},[{",".join(map(_string, heard))}]'
    if kind is not None:
        line += "," + _string(kind)
        if not heard or move != heard[-1]:
            line += "," + _string(move)
    return line + "]"


def _plain_block(block: list[Record], start: int, timestamps: bool) -> bytes | None:
    """encode_block's bytes with the exchanges' strings written as they are, or None
    if one of them needs an escape. Exchanges the plain form does not fit (lines out
    written rather than counted, nothing out, nothing in, no move, or a move other than
    the last line in) are escaped here. The block's pieces are joined once, not line by
    line: a join costs per piece."""
    pieces: list[str] = []
    add = pieces.extend
    strings: list[str] = []  # those written as they are
    for record in block:
        if isinstance(record, str) or type(record[1]) is not int or not record[1] \
                or not record[2] or record[3] is None or record[4] != record[2][-1]:
            pieces.append(escaped_line(record, start, timestamps) + "\n")
            continue
        seat, sent, heard, kind, _, began, ended = record
        strings += heard
        strings.append(kind)
        add((f'[{seat},{(began - start) // 1000},{(ended - began) // 1000},{sent},["'
             if timestamps else f'[{seat},{sent},["',
             _LIST.join(heard), '"],"', kind, '"]\n'))
    text = "".join(strings)
    if not text.isascii() or any(map(text.__contains__, _ESCAPED)):
        return None
    return "".join(pieces).encode()
