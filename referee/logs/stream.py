"""Reading a format 5 log (writer.py): the stream it holds, played again.

The log holds, in order, when each batch of lines went out, each line heard while a
seat's reply was awaited and when the reply came, each line found while none was, and
a record for what the game does not derive (a fault, a fallback's move, a batch written
out, the result). Reading plays the game again from the header with scripted players
that share one cursor over it: each batch the game sends takes the next time, each ask
takes the lines heard up to the first that is no LOG line (the reply, which the seat
answers) and the time it came, and each fault is raised where the log has it (a reply
the game refuses, the game finds: the log must have the fault next). Whose lines and
which moves they were, and the lines out, come from the game played again. Every item
and record must be taken, in order, where the game comes to it (a fallback's move, the
result), and the game must end where the log does: a log
that does not (altered, cut short, or written by a referee that plays differently) is a
ValueError, never shown with wrong lines. A game that was interrupted (Ctrl-C, SIGTERM,
its output closed) ends with an `interrupted` record instead of its result: the game
played again stops where it comes to it, wherever that is, and the log reads up to
there. A seat's `dropped` record (its lines past its budget) is passed, wherever it is.

A log written with `derive=False` (its header says "derived": false) holds every batch
and move as a record, and is read as it is, without its game.
"""

from __future__ import annotations

import io
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocols.wire import is_log
from referee.errors import BotFault, Fault
from protocols.faults import FaultKind
from referee.matches.game import GameDefinition
from referee.logs.writer import SENT_DIGEST, DecidedBy, GameLog, sent_digest
from referee.players.player import Player
from referee.settings import TimeLimits

Lookup = Callable[[str], GameDefinition[Any, Any]]
Record = dict[str, Any]
_END = object()  # what the cursor finds past the last item
_ITEMS = (str, int, list)  # a stream's items: a line heard, a time, a line found (or null)


class Underivable(ValueError):
    """The game, played again, does not come to what the log holds (or, in an older
    format, does not send what the log counted)."""


class _Interrupted(BaseException):
    """The game played again came to the log's `interrupted` record: a BaseException, so
    that no game's handler of its own errors takes it."""


def read_stream(records: Sequence[Any], lookup: Lookup) -> tuple[list[Record], Record]:
    """A format 5 log's records (its JSON values), one record per line, and the result
    of its game played again (as its to_json(); empty for a log read without it)."""
    header = records[0]
    items = _items(records)
    if header.get("derived") is False:
        return [_record(header), *_as_written(items)], {}
    cursor = _Cursor(items)
    try:
        result = _play_again(header, cursor, lookup)
        cursor.finish()
    except _Interrupted:
        cursor.interrupted()
        return [_record(header), *cursor.out], {}
    return [_record(header), *cursor.out], result


def _items(records: Sequence[Any]) -> list[Any]:
    """The stream's items and the records between them, in order."""
    items: list[Any] = []
    for record in records[1:]:
        if isinstance(record, list):
            if not all(item is None or type(item) in _ITEMS for item in record):
                raise ValueError("not a game log: a stream with an item of no kind it has")
            items += record
        elif isinstance(record, dict):
            items.append(record)
        else:
            raise ValueError("not a game log: a line that is neither an array nor an object")
    return items


@dataclass(frozen=True)
class LoggedGame:
    """The game a log's header names, set up as it was played: to play it again."""

    game: GameDefinition[Any, Any]
    config: Any
    seed: Any
    times: TimeLimits
    seats: int

    @classmethod
    def of(cls, header: Mapping[str, Any], lookup: Lookup) -> LoggedGame:
        game = lookup(str(header["game"]))
        settings = header["settings"]
        game.check_players(settings["players"])
        if len(header["players"]) != settings["players"]:
            raise Underivable(f"the header names {len(header['players'])} seats, its "
                              f"settings {settings['players']}")
        return cls(game, game.logged_config(settings), header["seed"],
                   TimeLimits.from_json(settings["times"]), settings["players"])

    def run(self, players: Sequence[Player], log: GameLog | None) -> Any:
        """The game played by `players`, one per seat: its result."""
        return self.game.run(players, self.config, self.seed, self.times, log)


def _seconds(us: Any) -> dict[str, float]:
    """A time in the log (µs since the header, or null) as a record's "t"."""
    if us is None:
        return {}
    if type(us) is not int:
        raise Underivable(f"a time that is not a whole number: {us!r}"[:80])
    return {"t": us / 1e6}


def _record(record: Record) -> Record:
    """A record of the file as read: its time in seconds ("t")."""
    if "us" in record:
        record = dict(record)
        record |= _seconds(record.pop("us"))
    return record


def _when(record: Record) -> dict[str, float]:
    """A record's time as read ("t"), for the lines it dates."""
    return {"t": record["t"]} if "t" in record else {}


def _passed(record: Record) -> list[Record]:
    """A record the game does not derive, as read: a batch written out as its lines."""
    record = _record(record)
    if record.get("type") != "sent":
        return [record]
    seat, lines = record.get("seat"), record.get("lines")
    if type(seat) is not int or not isinstance(lines, list) \
            or not all(type(line) is str for line in lines):
        raise ValueError("not a game log: a broken batch written out")
    return _lines(seat, "out", lines, _when(record))


def _lines(seat: int, direction: str, lines: Sequence[str], when: dict[str, float]
           ) -> list[Record]:
    return [{"type": "line", "seat": seat, "dir": direction, "line": line, **when}
            for line in lines]


def _seat_of(record: Record) -> int | None:
    seat = record.get("seat")
    return seat if type(seat) is int else None


def _found(item: list[Any]) -> tuple[int, str, dict[str, float]]:
    """A line found, [seat, line(, us)]."""
    if len(item) not in (2, 3) or type(item[0]) is not int or type(item[1]) is not str:
        raise Underivable(f"a broken line found: {item!r}"[:80])
    return item[0], item[1], _seconds(item[2] if len(item) == 3 else None)


class _Cursor:
    """The items in order, taken one by one. What a faulted seat was sent (`sent`
    records) goes to the output as the cursor passes it; every other record must be
    taken where the game comes to it: a fault, a fallback's move, the result."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.at = 0
        self.out: list[Record] = []
        self.replied: dict[str, float] = {}  # when the last reply came: its move's time
        self.faulted: set[int] = set()  # seats whose fault was taken

    def peek(self) -> Any:
        """The next item the game takes; records it does not take are passed: what a
        faulted seat was sent, the lines a seat had dropped. _Interrupted at the log's
        `interrupted` record."""
        items = self.items
        while self.at < len(items):
            item = items[self.at]
            if not isinstance(item, dict):
                return item
            kind = item.get("type")
            if kind == "interrupted":
                raise _Interrupted()
            if kind != "dropped" and not (kind == "sent" and _seat_of(item) in self.faulted):
                return item
            self.out += _passed(item)
            self.at += 1
        return _END

    def take(self, wanted: str) -> Any:
        item = self.peek()
        if item is not None and type(item) not in _ITEMS:
            found = f"a record ({str(item.get('type'))[:20]})" if isinstance(item, dict) \
                else "its end"
            raise Underivable(f"item {self.at}: the game comes to {wanted}, the log to {found}")
        self.at += 1
        return item

    def record(self, kind: str, wanted: str) -> Record:
        """The next item, which must be a record of type `kind`."""
        item = self.peek()
        if not isinstance(item, dict) or item.get("type") != kind:
            raise Underivable(f"item {self.at}: the game comes to {wanted}, the log to "
                              f"{'its end' if item is _END else repr(item)}"[:160])
        self.at += 1
        return item

    def time(self, wanted: str) -> dict[str, float]:
        item = self.take(wanted)
        if item is not None and type(item) is not int:
            raise Underivable(f"item {self.at - 1}: the game comes to {wanted}, the log to "
                              f"{item!r}"[:120])
        return _seconds(item)

    def line(self, wanted: str) -> str:
        item = self.take(wanted)
        if type(item) is not str:
            raise Underivable(f"item {self.at - 1}: the game comes to {wanted}, the log to "
                              f"{item!r}"[:120])
        return item

    def take_found(self, seat: int) -> None:
        """The lines found from `seat` before its next batch went out."""
        while isinstance(item := self.peek(), list):
            found_seat, line, when = _found(item)
            if found_seat != seat:
                raise Underivable(f"item {self.at}: a line found from seat {found_seat} "
                                  f"where the game comes to seat {seat}")
            self.at += 1
            self.out += _lines(seat, "in", (line,), when)

    def fault(self, seat: int) -> Record | None:
        """The seat's fault, if it is the very next item: a fault is logged as it is
        found, and every caller comes right after what it took, so a record passed over
        (a faulted seat's batch) never stands between."""
        item = self.items[self.at] if self.at < len(self.items) else None
        if isinstance(item, dict) and item.get("type") == "fault" and _seat_of(item) == seat:
            self.at += 1
            self.faulted.add(seat)
            return item
        return None

    def finish(self) -> None:
        if self.peek() is not _END:
            raise Underivable(f"item {self.at}: the log holds more than the game comes to")

    def interrupted(self) -> None:
        """At the `interrupted` record, which must end the log (the writer writes the
        seats' `dropped` records before it)."""
        record = self.items[self.at]
        if self.at != len(self.items) - 1:
            raise Underivable(f"item {self.at}: an interrupted game's log goes on")
        self.out.append(_record(record))
        self.at += 1


class BatchedPlayer(Player):
    """A seat played again from its log: every call is one batch sent to it (_batch)."""

    def new_game(self, line: str) -> None:
        self._batch((line,), asking=False)

    def tell(self, line: str) -> None:
        self._batch((line,), asking=False)

    def tell_many(self, lines: Sequence[str]) -> None:
        if lines:
            self._batch(tuple(lines), asking=False)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        return self._batch((*preamble, line), asking=True)

    @abstractmethod
    def _batch(self, batch: tuple[str, ...], asking: bool) -> str:
        """Take the batch as the log has it; asked, return the seat's reply."""


class _StreamPlayer(BatchedPlayer):
    """A seat that answers as its log says, and tells the cursor what it was sent."""

    def __init__(self, seat: int, cursor: _Cursor) -> None:
        self.name = f"seat {seat}"
        self._seat = seat
        self._cursor = cursor
        self._faulted = False

    def _batch(self, batch: tuple[str, ...], asking: bool) -> str:
        """Take the batch's time and, asked, the lines heard up to the reply and its
        time; raise the seat's fault where the log has it."""
        if self._faulted:
            return ""  # what it is sent now (its ERROR line) is written out in the log
        cursor, seat = self._cursor, self._seat
        cursor.take_found(seat)
        self._raise_fault(())  # found before the batch went out (an unasked line)
        cursor.out += _lines(seat, "out", batch, cursor.time(f"a batch to {self.name}"))
        if not asking:
            self._raise_fault(())  # as it went out
            return ""
        heard: list[str] = []
        try:
            while True:
                self._raise_fault(heard)  # in the wait: a timeout, a crash, a flood
                heard.append(cursor.line(f"a line from {self.name}"))
                if not is_log(heard[-1]):
                    break
            cursor.replied = cursor.time(f"the time of {self.name}'s reply")
        except _Interrupted:  # in the wait: what came before it was heard
            cursor.out += _lines(seat, "in", heard, {})
            raise
        cursor.out += _lines(seat, "in", heard, cursor.replied)
        # A fault logged next is not raised here: it is the game's to find, if the reply
        # is no move (refused()); else it was found before the seat's next batch.
        return heard[-1]

    @property
    def faulted(self) -> bool:
        return self._faulted

    def refused(self, kind: str) -> None:
        """The game played again refuses the seat's reply (a fault of `kind`): the log
        must have that fault next."""
        fault = self._cursor.fault(self._seat)
        if fault is None or fault.get("kind") != kind:
            raise Underivable(f"item {self._cursor.at}: the game refuses {self.name}'s "
                              f"reply ({kind}), the log has no such fault for it")
        self._cursor.out.append(_record(fault))
        self._faulted = True

    def _raise_fault(self, heard: Sequence[str]) -> None:
        """The seat's fault, if the log has it next, after the lines heard before it."""
        cursor = self._cursor
        fault = cursor.fault(self._seat)
        if fault is None:
            return
        record = _record(fault)
        cursor.out += _lines(self._seat, "in", heard, _when(record))
        cursor.out.append(record)
        self._faulted = True
        error = BotFault(str(fault["detail"]),
                         fault["line"] if isinstance(fault.get("line"), str) else None)
        error.kind = FaultKind(fault["kind"])
        raise error


class _MovesHeard(GameLog):
    """The log the game played again writes to: each bot's move is derived (the reply
    just taken); each fallback's move, a fault the game finds in a reply, and the result
    must be the log's next record."""

    def __init__(self, cursor: _Cursor, players: Sequence[_StreamPlayer]) -> None:
        super().__init__(io.BytesIO(), timestamps=False)
        self.bot_moves = True
        self._cursor = cursor
        self._players = players

    def move(self, seat: int, kind: str, move: str, by: DecidedBy) -> None:
        cursor = self._cursor
        if by is DecidedBy.BOT:
            cursor.out.append({"type": "move", "seat": seat, "kind": kind, "move": move,
                               "by": DecidedBy.BOT.value, **cursor.replied})
            return
        wanted = {"type": "move", "seat": seat, "kind": kind, "move": move, "by": by.value}
        logged = cursor.record("move", f"the fallback's move {move} for seat {seat}")
        if {key: value for key, value in logged.items() if key != "us"} != wanted:
            raise Underivable(f"item {cursor.at - 1}: the fallback's move for seat {seat} "
                              f"is {kind} {move}, the log's {logged!r}"[:160])
        cursor.out.append(_record(logged))

    def fault(self, fault: Fault) -> None:
        player = self._players[fault.seat]
        if not player.faulted:  # not one the log raised: the game refused a reply
            player.refused(fault.kind.value)

    def result(self, result: Record) -> None:
        """The log's result, whose digest of the lines sent must be that of the lines the
        game played again sent: else the header's settings (variants, seats, command
        cards) or the referee are not those the game was played with."""
        logged = dict(self._cursor.record("result", "the result"))
        digest = logged.pop(SENT_DIGEST, None)
        # A log of an earlier version has no digest: it reads as it did then, unchecked.
        if digest is not None and digest != sent_digest(self.lines_sent):
            raise Underivable(
                "the game played again sends other lines than were sent: the header's "
                "settings are not those played, or this referee plays otherwise")
        self._cursor.out.append(_record(logged))


def _play_again(header: Record, cursor: _Cursor, lookup: Lookup) -> Record:
    """The game of `header` played by scripted players over the cursor: its result."""
    logged = LoggedGame.of(header, lookup)
    players = [_StreamPlayer(seat, cursor) for seat in range(logged.seats)]
    return dict(logged.run(players, _MovesHeard(cursor, players)).to_json())


def _as_written(items: list[Any]) -> list[Record]:
    """A log that derives nothing: each batch a record, the lines heard after it that
    seat's, each up to a time (the reply's) or a record (a fault's) taking its time."""
    out: list[Record] = []
    seat: int | None = None
    heard: list[str] = []
    for item in items:
        if isinstance(item, dict):
            record = _record(item)
            out += _lines(seat or 0, "in", heard, _when(record))
            heard = []
            if record.get("type") == "sent":
                seat = record.get("seat")
            out += _passed(item)
        elif type(item) is str:
            if seat is None:
                raise ValueError("not a game log: a line heard before any batch went out")
            heard.append(item)
        elif item is None or type(item) is int:
            out += _lines(seat or 0, "in", heard, _seconds(item))
            heard = []
        elif isinstance(item, list):
            found_seat, line, when = _found(item)
            out += _lines(seat or 0, "in", heard, when)
            heard = []
            out += _lines(found_seat, "in", (line,), when)
        else:
            raise ValueError(f"not a game log: an item {item!r}"[:80])
    return out + _lines(seat or 0, "in", heard, {})
