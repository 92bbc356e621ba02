"""A game log file's JSON values, read as a stream within bounds (docs/game-log.md,
Reading): a log may come from anyone, and a 1 MB gzip file can inflate to a gigabyte.

The file is read and inflated in chunks, never whole, and refused (ValueError) as soon as
it passes one of the bounds below, so reading it takes bounded memory and time whatever
it holds. Each bound is far above what the referee writes: the writer cuts a stretch of
the stream at about 1 MiB of lines held (game_log._FLOOD_CHARS), which its JSON escapes
make at most about 12 MiB; a game of the largest table (Rage for 8) with every request
answered with the 16 LOG lines of 4 KB the protocol allows is 30 MB and 10,037 values
(measured; about 180 MB were every character a \\u escape).
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Iterator

MAX_LINE_BYTES = 16 << 20  # one JSON value's line
MAX_BYTES = 256 << 20  # the whole file, inflated
MAX_VALUES = 1_000_000  # JSON values, counting each one inside an array or object
_CHUNK = 1 << 16  # bytes read, and inflated, at a time
_GZIP = 31  # zlib's window bits for a gzip stream
_BLANK = re.compile(rb"\s*")  # blank lines and a line's leading blanks, skipped in C


def read_records(path: Path) -> list[Any]:
    """A log file's JSON values, in order, compressed or not. ValueError if the file is
    not JSON Lines of UTF-8, or passes a bound (OSError if it cannot be read)."""
    with open(path, "rb") as file:
        gzipped = file.read(2) == b"\x1f\x8b"
        file.seek(0)
        chunks = _inflated(file) if gzipped else iter(lambda: file.read(_CHUNK), b"")
        values: list[Any] = []
        count = 0
        for number, line, whole in _lines(_bounded(chunks)):
            value = _parsed(number, line, whole)
            try:
                count += _size(value)
            except RecursionError:  # nested as deep as the parser allows
                raise ValueError("not a game log: values nested too deep") from None
            if count > MAX_VALUES:
                raise ValueError(f"not a game log: more than {MAX_VALUES:,} JSON values")
            values.append(value)
        return values


def _inflated(file: BinaryIO) -> Iterator[bytes]:
    """The gzip stream's bytes, inflated a chunk at a time (a bomb never whole)."""
    inflater = zlib.decompressobj(_GZIP)
    try:
        while compressed := file.read(_CHUNK):
            while compressed and not inflater.eof:
                yield inflater.decompress(compressed, _CHUNK)
                compressed = inflater.unconsumed_tail
            if inflater.eof and (compressed or inflater.unused_data or file.read(1)):
                raise ValueError("not a game log: data after the end of its gzip stream")
        if not inflater.eof:
            raise ValueError("not a game log: its gzip stream is cut short")
    except zlib.error as error:
        raise ValueError(f"not a game log: {error}") from None


def _bounded(chunks: Iterator[bytes]) -> Iterator[bytes]:
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_BYTES:
            raise ValueError(f"not a game log: more than {MAX_BYTES >> 20} MiB "
                             "(inflated)")
        yield chunk


def _lines(chunks: Iterator[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """The lines that are not blank, each at most MAX_LINE_BYTES long: its number in
    the file (from 1, so that an error can point at it), the line, and whether a
    newline ended it (the last may lack one: a file cut short, or a writer's choice)."""
    pending = bytearray()  # appended to and cut from the front in place: no copies
    number = 1  # the number of the line that pending[start] is in
    for chunk in chunks:
        pending += chunk
        start = 0
        while True:
            blanks_end = _BLANK.match(pending, start).end()  # type: ignore[union-attr]
            number += pending.count(b"\n", start, blanks_end)
            start = blanks_end
            end = pending.find(b"\n", start)
            if end < 0:
                break
            yield number, _checked(bytes(pending[start:end])), True
            number += 1
            start = end + 1
        del pending[:start]
        _check_length(pending)  # a line without end is refused before it is whole
    if pending:
        yield number, bytes(pending), False


def _checked(line: bytes) -> bytes:
    _check_length(line)
    return line


def _check_length(line: bytes | bytearray) -> None:
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"not a game log: a line longer than {MAX_LINE_BYTES >> 20} MiB")


def _parsed(number: int, line: bytes, whole: bool) -> Any:
    """The line's JSON value; ValueError that says which line, and whether the file
    ends inside it (a copy or a disk that stopped halfway), rather than json's own
    words, which count lines and columns within this one line."""
    try:
        return json.loads(line.decode())
    except json.JSONDecodeError as error:
        what = "is not JSON" if whole else "is cut short: the file ends inside it"
        raise ValueError(f"not a game log: line {number} {what} ({error.msg} at "
                         f"column {error.colno})"[:200]) from None
    except (UnicodeDecodeError, RecursionError) as error:
        raise ValueError(f"not a game log: {error}"[:200]) from None


def _size(value: Any) -> int:
    """How many JSON values `value` is, itself and all it holds."""
    if isinstance(value, list):
        return 1 + sum(_size(item) if isinstance(item, (list, dict)) else 1 for item in value)
    if isinstance(value, dict):
        return 1 + sum(_size(item) if isinstance(item, (list, dict)) else 1
                       for item in value.values())
    return 1
