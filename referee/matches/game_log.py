"""The game log: settings, every line in and out per seat, moves, faults, result.

Complete enough to replay the game (`referee replay LOG`) and to show every line each
seat sent and received. It is JSON Lines, one record per exchange rather than per line
(docs/game-log.md):

- an exchange, a JSON array: the batch of lines sent to one seat at once (its held lines
  and the request), the lines heard back (LOG lines and the reply), and the move that
  reply became. Of the batch only its size is written: the lines out follow from the
  header and the lines heard, and the reader derives them again (log_rederive.py). What
  a seat is sent after its fault (its ERROR line) is written out;
- a JSON object each: the header, a fault, a move the fallback made for a faulted seat,
  the result.

Recording is a few operations per batch, line and move; exchanges are encoded in blocks
(log_lines.py) and gzip-compressed when the file name ends in ".gz" (as every
tournament log is). `read_records` gives a file's JSON values, and `expand` every log,
this format and the older ones (3: the lines out written; 2: an exchange as an object;
1: a record per line), as one record per line; `referee.matches.log_rederive.read_log`,
the one reader, joins them with the derived lines out.
"""

from __future__ import annotations

import enum
import json
import zlib
from functools import partial
from pathlib import Path
from time import monotonic_ns
from typing import Any, Callable, Mapping, Protocol, Sequence

from referee import __version__
from referee.errors import Fault
from referee.matches.log_file import LogFile
from referee.matches.log_lines import Record, encode_block, record_line

FORMAT = 4  # the header's "format"; logs without one are the older per-line format
ARRAY_FORMATS = (3, 4)  # those whose exchanges are arrays (3 writes every line out)
_BLOCK = 256  # records encoded and written together
_BLOCK_CHARS = 1 << 20  # or fewer, once the bots' lines in them pass this (LOG floods)
_LEVEL = 1  # gzip's fastest: the lines repeat so much that it costs little in size
_GZIP = 31  # zlib's window bits for a gzip stream (its header has no time: reproducible)
# Written with an 8 KB window: a game's log is 10-15 KB before gzip, its lines repeat
# within a few KB, and the smaller tables compressed one as small in 60% of the time.
_GZIP_WRITE = 16 + 13
_no_time: Callable[[], int] = int  # int() is 0: the clock of a log without timestamps


class ByteSink(Protocol):
    """Where a log's bytes go: a LogFile, or any binary stream (a BytesIO in tests)."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class DecidedBy(enum.StrEnum):
    """Who made a move applied to the game: the bot, or the fallback in a faulted seat."""

    BOT = "bot"
    FALLBACK = "fallback"


_BY_BOT = DecidedBy.BOT  # a module constant: an Enum class's attribute costs a lookup


class GameLog:
    """Records one game; `timestamps=False` makes the log byte-reproducible, and
    `derive=False` writes every line out (a log of lines that are no game's, in tests).

    The open exchange is held in attributes (_open_*, ns from monotonic_ns); closed, by
    a move or anything else, it becomes a Record, a tuple of strings, numbers and tuples
    of strings: the garbage collector soon stops tracking those, so a block's records cost
    it nothing however long they wait. Everything else is kept as its line. A seat's
    lines come through its SeatLog. Whatever runs per line or per move is kept to a few
    operations and allocations: the referee's own work has the CPU's caches then.
    """

    def __init__(self, stream: ByteSink, timestamps: bool = True, compress: bool = False,
                 owns: bool = False, derive: bool = True) -> None:
        self._stream = stream
        self._derive = derive
        self._owns = owns
        self._timestamps = timestamps
        self._clock = monotonic_ns if timestamps else _no_time
        self._zip = zlib.compressobj(_LEVEL, zlib.DEFLATED, _GZIP_WRITE) if compress else None
        self._start = self._clock()
        self._records: list[Record] = []
        self._open_seat: int | None = None  # the open exchange's, if one is open
        self._open_out: int | tuple[str, ...] = ()  # how many lines, or the lines
        self._open_in: tuple[str, ...] = ()
        self._open_began = self._open_ended = 0  # ns: the batch out, the last line in
        self._heard_chars = 0  # of the bots' lines not yet written: they bound the memory
        self._seats: dict[int, SeatLog] = {}

    @classmethod
    def open(cls, path: Path, timestamps: bool = True, derive: bool = True) -> GameLog:
        """A log written to `path` (its folder made if missing), gzip-compressed if its
        name ends in ".gz"."""
        return cls(LogFile(path), timestamps, compress=path.suffix == ".gz", owns=True,
                   derive=derive)

    def header(self, game: str, seed: int, settings: dict[str, Any],
               players: list[dict[str, Any]]) -> None:
        self._start = self._clock()
        self._add({"type": "game", "format": FORMAT, "referee": __version__, "game": game,
                   "seed": seed, "settings": settings, "players": players})

    def seat(self, seat: int) -> SeatLog:
        """The seat's lines into this log: its LineListener."""
        if seat not in self._seats:
            self._seats[seat] = SeatLog(self, seat, self._derive)
        return self._seats[seat]

    def sent(self, seat: int, lines: Sequence[str]) -> None:
        """Lines sent to a seat in one batch: they open an exchange."""
        self.seat(seat).sent(lines)

    def heard(self, seat: int, line: str) -> None:
        """A line from a seat: part of the seat's exchange if nothing came between."""
        self.seat(seat).heard(line)

    def move(self, seat: int, kind: str, move: str, by: DecidedBy) -> None:
        """A decision applied to the game: its kind (the game's own words, e.g. "bid"),
        the move as the protocol spells it, and who made it. A bot's move closes the
        exchange its reply came in; a fallback's is a record of its own."""
        if by is _BY_BOT and self._open_seat == seat:
            self._open_seat = None
            records = self._records
            records.append((seat, self._open_out, self._open_in, kind, move,
                            self._open_began, self._open_ended))
            if len(records) >= _BLOCK or self._heard_chars > _BLOCK_CHARS:
                self._flush()
        else:
            self._add({"type": "move", "seat": seat, "kind": kind, "move": move, "by": by})

    def fault(self, fault: Fault) -> None:
        """A bot's fault: what its seat is sent from now on (the ERROR line) is written
        out, as no replay of the game sends it."""
        self.seat(fault.seat).derived = False
        self._add({"type": "fault", **fault.to_json()})

    def result(self, result: dict[str, Any]) -> None:
        self._add({"type": "result", **result})

    def close(self) -> None:
        """Write what is left (and the end of the gzip stream); a file it owns is closed
        even if that fails (a full disk)."""
        try:
            self._close_exchange()
            self._flush()
            if self._zip is not None:
                self._stream.write(self._zip.flush())
            self._stream.flush()
        finally:
            if self._owns:
                self._stream.close()

    def _add(self, record: dict[str, Any]) -> None:
        if self._timestamps:
            record["us"] = (self._clock() - self._start) // 1000
        self._close_exchange()
        self._records.append(record_line(record))  # now: it is in the CPU's caches now
        if len(self._records) >= _BLOCK:
            self._flush()

    def _close_exchange(self) -> None:
        """The open exchange, if any, into the records (with no move)."""
        seat = self._open_seat
        if seat is not None:
            self._open_seat = None
            self._records.append((seat, self._open_out, self._open_in, None, None,
                                  self._open_began, self._open_ended))
            if len(self._records) >= _BLOCK or self._heard_chars > _BLOCK_CHARS:
                self._flush()

    def _flush(self) -> None:
        """Write every record (no exchange is open)."""
        if self._records:
            data = encode_block(self._records, self._start, self._timestamps)
            self._stream.write(data if self._zip is None else self._zip.compress(data))
            self._records = []
        self._heard_chars = 0


class SeatLog:
    """One seat's lines into a GameLog: the seat's LineListener. Its methods run for every
    batch and line of the game, so they do the recording themselves, in a few operations
    (a call less per line than going through the GameLog's). `derived`: a batch is kept as
    its size, the reader deriving its lines; else as its lines."""

    __slots__ = ("_log", "_seat", "derived")

    def __init__(self, log: GameLog, seat: int, derived: bool = True) -> None:
        self._log = log
        self._seat = seat
        self.derived = derived

    def sent(self, lines: Sequence[str]) -> None:
        """Lines sent to the seat in one batch: they open an exchange."""
        log = self._log
        if log._open_seat is not None:
            log._close_exchange()
        log._open_seat = self._seat
        log._open_out = len(lines) if self.derived else tuple(lines)
        log._open_in = ()
        log._open_began = log._open_ended = log._clock()

    def heard(self, line: str) -> None:
        """A line from the seat: part of its exchange if nothing came between."""
        log = self._log
        if log._open_seat != self._seat:
            self.sent(())
        log._open_in += (line,)  # a tuple: mostly one line, never more than a few hundred
        log._open_ended = log._clock()
        log._heard_chars += len(line)


def read_records(path: Path) -> list[Any]:
    """A log file's JSON values, in order, compressed or not. ValueError if the file is
    not JSON Lines (OSError if it cannot be read)."""
    data = path.read_bytes()
    try:
        if data[:2] == b"\x1f\x8b":
            data = zlib.decompress(data, _GZIP)
        return [json.loads(line) for line in data.decode().splitlines() if line.strip()]
    except (zlib.error, UnicodeDecodeError, RecursionError) as error:
        raise ValueError(f"not a game log: {error}") from None


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
