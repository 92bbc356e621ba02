"""The game log: settings, every line in and out per seat, moves, faults, result.

Complete enough to replay the game (`referee replay LOG`) and to show every line each
seat sent and received, yet written for little more than the lines the bots sent
(docs/game-log.md, format 5). The referee is deterministic: what it sends each seat, who
it asks next and what a reply becomes follow from the header (game, seed, settings) and
from what the seats sent. So the log is a stream, in order, of

- when each batch of lines went out (its lines, its seat and its size are derived again
  by the reader, log_stream.py, which plays the game again);
- each line heard while a seat's reply was awaited (its LOG lines, then the reply), and
  when the reply came;
- each line found while none was (sent late, or unasked), with its seat and time;

and, between them, one JSON object per record the game does not derive: a fault, a
move the fallback made for a faulted seat, a batch written out (what a seat is sent
after its fault, its ERROR line), the lines a seat sent past its budget, dropped
(log_budget.py), the result, or instead of it the game's interruption.

A player tells each seat's SeatLog (its LineListener) what it sent and heard, and when:
two calls per decision, each an append or two. The stream is encoded by the json
module's C encoder, in one call per stretch between two records, and gzip-compressed
when the file name ends in ".gz" (as every tournament log is).
"""

from __future__ import annotations

import enum
import hashlib
import json
import signal
import zlib
from pathlib import Path
from time import monotonic
from typing import Any, Mapping, Protocol, Sequence

from protocols.wire import is_log
from referee import __version__
from referee.errors import Fault
from referee.logs.budget import LOG_BUDGET, SeatBudget, stderr_kept
from referee.logs.file import LogFile

FORMAT = 5  # the header's "format"
SENT_DIGEST = "sent_sha256"  # the result record's digest of the lines sent (sent_digest)
FAULT_STDERR = "stderr"  # a fault record's last lines of the bot's stderr, where it wrote any
_FLOOD_CHARS = 1 << 20  # lines heard held before they are written (a LOG flood)
_ITEM_CHARS = 64  # what an item held costs beyond its characters, as counted against it
_LEVEL = 1  # gzip's fastest: the lines repeat so much that it costs little in size
# A gzip stream (16 +; its header has no time: reproducible), with an 8 KB window: a
# game's lines repeat within a few KB, so a larger window finds nothing more to save
# and costs more work (docs/game-log.md, "How the log came to cost little").
_GZIP_WRITE = 16 + 13
# Records are trees the referee built: no cycle to look for, so none is. ASCII only:
# every other character, and a bot's bytes that were not UTF-8, become \\u escapes.
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
_STOPPING = {signal.SIGINT, signal.SIGTERM}  # the signals that raise in the referee


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
    """Records one game. `timestamps=False` makes the log byte-reproducible (its times
    are null); `derive=False` writes every batch out and every bot's move, for a log
    that reads without playing the game again (of lines that are no game's, in tests).
    `budget`: the bytes of LOG lines and lines found kept per seat (log_budget.py).

    `bot_moves`: whether the bots' moves are wanted (a game's match may leave its call
    out when not: the reader derives them).
    """

    def __init__(self, sink: ByteSink, timestamps: bool = True, compress: bool = False,
                 owns: bool = False, derive: bool = True, budget: int = LOG_BUDGET) -> None:
        self._sink = sink
        self._budget = budget
        self._owns = owns
        self._timestamps = timestamps
        self._derive = derive
        self.bot_moves = not derive
        self._zip = zlib.compressobj(_LEVEL, zlib.DEFLATED, _GZIP_WRITE) if compress else None
        self._start = monotonic()
        # The stream not yet encoded, appended to by the seats' players in place (never
        # rebound): marks (floats from monotonic()), lines heard (str), lines found
        # ((seat, line, time) tuples).
        self._stream: list[object] = []
        self._lines: list[str] = []  # encoded, not yet written
        self._held_chars = 0  # of the lines heard by call, not yet written (LOG floods)
        self._seats: dict[int, SeatLog] = {}
        # Every line the game's table sends a seat before its fault, in order (Table
        # appends): the result record holds their digest (sent_digest).
        self.lines_sent: list[str] = []
        self._ended = False  # by its result or its interruption: nothing more is the game's
        # Per faulted seat, its fault record not yet written and where it is in _lines:
        # its stderr is known only once the bot is closed, after the record (fault_stderr).
        self._unwritten_faults: dict[int, tuple[int, dict[str, Any]]] = {}

    @classmethod
    def open(cls, path: Path, timestamps: bool = True, derive: bool = True,
             budget: int = LOG_BUDGET) -> GameLog:
        """A log written to `path` (its folder made if missing), gzip-compressed if its
        name ends in ".gz"."""
        return cls(LogFile(path), timestamps, compress=path.suffix == ".gz", owns=True,
                   derive=derive, budget=budget)

    def header(self, game: str, seed: int, settings: dict[str, Any],
               players: list[dict[str, Any]]) -> None:
        self._start = monotonic()
        header = {"type": "game", "format": FORMAT, "referee": __version__, "game": game,
                  "seed": seed, "settings": settings, "players": players}
        if not self._derive:
            header["derived"] = False
        self._add(header)

    def seat(self, seat: int) -> SeatLog:
        """The seat's lines into this log: its LineListener."""
        return self._seat_log(seat)

    def _seat_log(self, seat: int) -> SeatLog:
        if seat not in self._seats:
            self._seats[seat] = SeatLog(self, seat, self._stream if self._derive else None,
                                        SeatBudget(self._budget))
        return self._seats[seat]

    def sent(self, seat: int, lines: Sequence[str]) -> None:
        """Lines sent to a seat in one batch, now."""
        self._seat_log(seat).sent(lines, monotonic())

    def heard(self, seat: int, line: str) -> None:
        """A line from a seat while its reply was awaited: a LOG line, or the reply."""
        if is_log(line):
            self._seat_log(seat).heard(line)
        else:
            self._seat_log(seat).replied(line, monotonic())

    def found(self, seat: int, line: str) -> None:
        """A line from a seat while no reply was awaited."""
        self._seat_log(seat).found(line)

    def move(self, seat: int, kind: str, move: str, by: DecidedBy) -> None:
        """A decision applied to the game: its kind (the game's own words, e.g. "bid"),
        the move as the protocol spells it, and who made it. A bot's move is written only
        in a log that derives nothing (the reader derives it from the reply)."""
        if by is not _BY_BOT or self.bot_moves:
            self._add({"type": "move", "seat": seat, "kind": kind, "move": move, "by": by})

    def fault(self, fault: Fault) -> None:
        """A bot's fault: what its seat is sent from now on (the ERROR line) is written
        out, as no replay of the game sends it."""
        self._seat_log(fault.seat).stream = None
        record = {"type": "fault", **fault.to_json()}
        written = len(self._lines)
        self._add(record)
        if len(self._lines) > written:
            self._unwritten_faults[fault.seat] = (len(self._lines) - 1, record)

    def fault_stderr(self, seat: int, lines: Sequence[str]) -> list[str]:
        """The last lines of the faulted seat's stderr (escaped, bounded: stderr_tail),
        added to its fault's record: they are known only once the bot is closed, after
        the record and its ERROR line. Left out if the record is written already (a LOG
        flood in between wrote the log so far; a live view's file gets them in a record
        of their own: live.py) or there are none. The last of them that fit in
        STDERR_BUDGET as written, returned: a hostile bot's stderr adds at most that."""
        held = self._unwritten_faults.pop(seat, None)
        kept = stderr_kept(lines)
        if held is not None and kept:
            index, record = held
            record[FAULT_STDERR] = kept
            self._lines[index] = _ENCODER.encode(record)
        return kept

    def result(self, result: dict[str, Any]) -> None:
        """The result; a log that derives the lines out holds their digest too, which
        its reader checks against the lines of the game it plays again (a header whose
        settings were not those played does not derive)."""
        self._add_dropped()
        record = {"type": "result", **result}
        if self._derive:
            record[SENT_DIGEST] = sent_digest(self.lines_sent)
        self._add(record)
        self._ended = True

    def interrupted(self, why: str) -> None:
        """The game stopped before its end (`why`: "SIGINT", "standard output closed"...):
        the log ends here, so that it reads up to this point. Nothing if it has ended."""
        if self._ended:
            return
        self._add_dropped()
        self._add({"type": "interrupted", "why": why})
        self._ended = True  # what the seats' players still do, closing, is no game's

    def close(self) -> None:
        """Write what is left (and the end of the gzip stream); a file it owns is closed
        even if that fails (a full disk). SIGINT and SIGTERM wait: a write cut short would
        leave half a line, or a gzip stream that does not inflate."""
        held = _hold_signals()
        try:
            self._add_dropped()
            self._write()
            if self._zip is not None:
                self._sink.write(self._zip.flush())
            self._sink.flush()
        finally:
            _release_signals(held)
            if self._owns:
                self._sink.close()

    def _add_dropped(self) -> None:
        """For each seat that sent lines past its budget, how many were dropped."""
        if not any(seat_log.budget.lines for seat_log in self._seats.values()):
            return
        for seat, seat_log in sorted(self._seats.items()):
            record = seat_log.budget.record(seat)
            if record is not None:
                self._add(record)

    def _add(self, record: dict[str, Any]) -> None:
        """A record: after the stream so far, in its own line. Cut short by a signal, it
        loses the stretch or the record, never more: the log's last items, so that what
        is written is still what the game came to, up to a point."""
        if self._ended:
            return
        if self._timestamps:
            record["us"] = int((monotonic() - self._start) * 1e6)
        self._end_stretch()
        self._lines.append(_ENCODER.encode(record))

    def _end_stretch(self) -> None:
        """The stream so far as one line: a JSON array of its items, the times in µs
        since the header (null without timestamps)."""
        stream = self._stream
        if not stream:
            return
        start = self._start
        items: list[Any]
        if self._timestamps:
            items = [item if type(item) is str else
                     int((item - start) * 1e6) if type(item) is float else
                     _found(item, start) for item in stream]
        else:
            items = [item if type(item) is str else
                     None if type(item) is float else _found(item, None) for item in stream]
        stream.clear()  # before the stretch is kept: a signal between loses it, never
        self._lines.append(_ENCODER.encode(items))  # writes it twice

    def _write(self) -> None:
        """Write everything recorded so far (with SIGINT and SIGTERM held: close())."""
        if not self._ended:
            self._end_stretch()
        if self._lines:
            data = ("\n".join(self._lines) + "\n").encode()
            self._lines.clear()
            self._sink.write(data if self._zip is None else self._zip.compress(data))
            self._unwritten_faults.clear()
        self._held_chars = 0

    def _held(self, chars: int) -> None:
        """Lines heard by call: past _FLOOD_CHARS held, write them, through to the file
        (SIGINT and SIGTERM held meanwhile, as in close())."""
        self._held_chars += chars
        if self._held_chars > _FLOOD_CHARS:
            held = _hold_signals()
            try:
                self._write()
                self._sink.flush()
            finally:
                _release_signals(held)


def _hold_signals() -> set[int | signal.Signals]:
    """Hold SIGINT and SIGTERM (delivered at _release_signals) while the log writes:
    two system calls a game, no context manager's generator."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)


def _release_signals(held: set[int | signal.Signals]) -> None:
    signal.pthread_sigmask(signal.SIG_SETMASK, held)


def logged_stderr(record: Mapping[str, Any]) -> list[str]:
    """A fault record's last lines of the bot's stderr (FAULT_STDERR): [] in a log older
    than them, or where the bot wrote none. A log may come from anyone, so anything but
    a list of strings is not taken as one."""
    lines = record.get(FAULT_STDERR)
    if isinstance(lines, list) and all(isinstance(line, str) for line in lines):
        return lines
    return []


def sent_digest(lines: Sequence[str]) -> str:
    """The digest of the lines sent (SENT_DIGEST): the first 16 hex digits of the SHA-256
    of the lines, each ended by a newline, in UTF-8. A check that the game played again
    sends what was sent, not a signature: whoever edits a log can write it anew."""
    text = "\n".join(lines) + "\n" if lines else ""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _found(item: Any, start: float | None) -> list[Any]:
    """A line found, [seat, line(, us)]."""
    seat, line, when = item
    return [seat, line] if start is None else [seat, line, int((when - start) * 1e6)]


class SeatLog:
    """One seat's lines into a GameLog: the seat's LineListener, which turns what the
    player says happened into the log's stream. `stream` is the log's while the seat's
    batches are derived, None once they are written out (after its fault, or in a log
    that derives nothing)."""

    __slots__ = ("_log", "_seat", "stream", "budget")

    def __init__(self, log: GameLog, seat: int, stream: list[object] | None,
                 budget: SeatBudget) -> None:
        self._log = log
        self._seat = seat
        self.stream = stream
        self.budget = budget  # for its LOG lines and lines found, not its replies

    def sent(self, lines: Sequence[str], at: float) -> None:
        """Lines sent to the seat in one batch: when, or the lines themselves."""
        if not lines:
            return
        if self.stream is not None:
            self.stream.append(at)
        else:
            self._log._add({"type": "sent", "seat": self._seat, "lines": list(lines)})

    def heard(self, line: str) -> None:
        """A LOG line heard while the seat's reply was awaited, kept within the budget."""
        if self.budget.keeps(line):
            self._log._stream.append(line)
            self._log._held(len(line) + _ITEM_CHARS)

    def replied(self, line: str, at: float) -> None:
        """The reply (the reader derives the game from it) and when it came."""
        stream = self._log._stream
        stream.append(line)
        stream.append(at)

    def found(self, line: str) -> None:
        """A line heard while no reply was awaited."""
        if self.budget.keeps(line):
            self._log._stream.append((self._seat, line, monotonic()))
            self._log._held(len(line) + _ITEM_CHARS)
