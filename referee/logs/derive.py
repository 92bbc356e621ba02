"""The one reader of game logs, every format: format 5 through stream.py, and here
what format 4 leaves out, derived again: the lines out, which it only counts, and the
parts of the result that follow from the moves (Rage's scores per round).

The referee is deterministic: what a seat is sent follows from the log's header (game,
seed, settings) and from what the seats sent back. So a format 4 log writes, for each
batch sent, only its size (docs/game-log.md), and reading it plays the game again from
the header with scripted players: each answers what the log says its seat answered and
faults where the log says it faulted, and each batch the game sends is handed to the
exchange that counted it. Every count is checked against its batch, and every answer
and fault must be used, so a log that does not derive (altered, cut short, or written
by a referee that played differently) is a ValueError, never wrong lines. The game
played again ends with its result: the fields the log's result record leaves out are
taken from it (those it holds are kept as logged, for `referee replay` to check).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocols.wire import is_log
from referee import __version__
from referee.errors import BotFault, ConfigError
from protocols.faults import FaultKind
from referee.matches.game import GameDefinition
from referee.logs.writer import FORMAT
from referee.logs.lines import read_records
from referee.logs.formats import counted_out, exchange_fields, expand
from referee.logs.stream import BatchedPlayer, LoggedGame, Underivable, read_stream

Lookup = Callable[[str], GameDefinition[Any, Any]]
COUNTED = 4  # the format whose exchanges count their lines out
# What a log that does not derive may raise on the way, from its header to the game's end
_BROKEN = (ValueError, KeyError, TypeError, AttributeError, IndexError, OverflowError)


def read_log(path: Path, lookup: Lookup) -> list[dict[str, Any]]:
    """Every record of a log file, in order, with each line as a record of its own
    ({"type": "line", "seat", "dir", "line"}), whichever format wrote it; `lookup` finds
    the game that derives a format 4 log's lines out (the registry's). ValueError if the
    file is not a game log (OSError if it cannot be read)."""
    records = read_records(path)
    _check_header(records)
    if records[0].get("format") == FORMAT:
        try:
            expanded, result = read_stream(records, lookup)
        except _BROKEN as error:
            raise ValueError(f"not a game log: it does not derive ({error})"
                             f"{_writer(records[0])}") from None
    else:
        derived = derive(records, lookup)
        expanded, result = expand(records, derived.lines), derived.result
    for record in expanded:
        if record.get("type") == "result":
            record |= {key: value for key, value in result.items() if key not in record}
    return expanded


def _check_header(records: Sequence[Any]) -> None:
    """ValueError unless the log starts with its game's header, as every format does: an
    empty file is no game log, nor one whose first line is something else."""
    if not records:
        raise ValueError("not a game log: it is empty")
    if not isinstance(records[0], dict) or records[0].get("type") != "game":
        raise ValueError("not a game log: its first line is no game header")


def load_log(path: Path, lookup: Lookup) -> list[dict[str, Any]]:
    """read_log for a command: a file that cannot be read, or is no game log, is a
    ConfigError naming it (one error line)."""
    try:
        return read_log(path, lookup)
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read log {path}: {error}") from None


@dataclass(frozen=True)
class Derived:
    """What a log leaves out: the lines out of each exchange that counts them, by its
    index in the log's JSON values, and the result of the game played again (as its
    to_json()); both empty for a log that counts no lines."""

    lines: dict[int, tuple[str, ...]]
    result: dict[str, Any]


def derive(records: Sequence[Any], lookup: Lookup) -> Derived:
    """What the log of `records` (its JSON values) leaves out; ValueError if the game
    does not send the lines it counts."""
    header = records[0] if records and isinstance(records[0], dict) else {}
    if header.get("format") != COUNTED or all(counted_out(r) is None for r in records):
        return Derived({}, {})
    try:
        return _play_again(header, _scripts(records), lookup)
    except _BROKEN as error:
        raise ValueError(f"not a game log: its lines out do not derive ({error})"
                         f"{_writer(header)}") from None


def _writer(header: Mapping[str, Any]) -> str:
    """Which other referee wrote the log, if another did: the likely reason it does not
    derive here (a format 4 log is read by the version that wrote it)."""
    writer = header.get("referee")
    if writer is None or writer == __version__:
        return ""
    return f"; it was written by referee {str(writer)[:40]!r}, this is {__version__}"


@dataclass(frozen=True)
class _Exchange:
    """A counted batch to a seat: where it is in the records, its size, and the lines
    heard back in it."""

    index: int
    out: int
    heard: tuple[str, ...]


@dataclass(frozen=True)
class _Between:
    """Lines a seat sent heard before a batch of its own went out (a batch of no lines
    in the log): a fault right after it was found before that batch, not in the seat's
    last exchange (RemotePlayer._check_unsolicited)."""

    index: int


@dataclass(frozen=True)
class _Fault:
    """A logged fault, raised again where it was: its kind, detail and offending line."""

    kind: str
    detail: str
    line: str | None

    def error(self) -> BotFault:
        error = BotFault(self.detail, self.line)
        error.kind = FaultKind(self.kind)
        return error


_Item = _Exchange | _Between | _Fault


def _scripts(records: Sequence[Any]) -> dict[int, deque[_Item]]:
    """Per seat, its counted batches and its fault, in the order they happened. A batch
    counted as none is lines heard with no batch open (_Between): not something the game
    sent; one written out is what the seat was sent after its fault (its ERROR line,
    BYE)."""
    scripts: dict[int, deque[_Item]] = {}
    for index, record in enumerate(records):
        if isinstance(record, list):
            exchange = _exchange(index, record)
            if exchange is not None:
                scripts.setdefault(record[0], deque()).append(exchange)
        elif isinstance(record, dict) and record.get("type") == "fault":
            line = record.get("line")
            scripts.setdefault(record["seat"], deque()).append(_Fault(
                str(record["kind"]), str(record["detail"]),
                line if isinstance(line, str) else None))
    return scripts


def _exchange(index: int, record: list[Any]) -> _Exchange | _Between | None:
    seat, _, out, heard, _ = exchange_fields(record)
    if type(seat) is not int or not isinstance(heard, list) \
            or not all(isinstance(line, str) for line in heard):
        raise TypeError(f"a broken exchange at record {index}")
    if type(out) is int:
        return _Exchange(index, out, tuple(heard)) if out else _Between(index)
    if not isinstance(out, list):
        raise TypeError(f"a broken exchange at record {index}")
    return None


def _play_again(header: Mapping[str, Any], scripts: dict[int, deque[_Item]],
                lookup: Lookup) -> Derived:
    """The game of `header` played by scripted players: each batch it sends, by the
    index of the exchange that logged it, and its result."""
    logged = LoggedGame.of(header, lookup)
    lines: dict[int, tuple[str, ...]] = {}
    players = [ScriptedPlayer(seat, scripts.pop(seat, deque()), lines)
               for seat in range(logged.seats)]
    if scripts:
        raise Underivable(f"seat {min(scripts)} of {len(players)} in the records")
    result = logged.run(players, None)
    for player in players:
        player.check_done()
    return Derived(lines, result.to_json())


class ScriptedPlayer(BatchedPlayer):
    """A seat that answers as its log says, and records each batch it is sent."""

    def __init__(self, seat: int, script: deque[_Item],
                 lines: dict[int, tuple[str, ...]]) -> None:
        self.name = f"seat {seat}"
        self._seat = seat
        self._script = script
        self._lines = lines
        self._faulted = False

    def check_done(self) -> None:
        """Underivable if the log holds more for this seat than the game sent it."""
        if self._script:
            raise Underivable(f"{self.name} has {len(self._script)} logged exchange(s) or "
                              "fault(s) the game does not come to")

    def _batch(self, batch: tuple[str, ...], asking: bool) -> str:
        """Hand `batch` to the seat's next logged exchange; raise the seat's fault where
        the log has it; an asked seat's reply: its first line heard that is no LOG."""
        script = self._script
        while script and isinstance(script[0], _Between):
            script.popleft()  # lines heard before this batch went out
        if script and isinstance(script[0], _Fault):
            raise self._fault()  # found before the batch: e.g. an unsolicited line
        if not script:
            if self._faulted and not asking:
                return ""  # its ERROR line: written out in the log, if it was sent
            raise Underivable(f"{self.name} is sent more than its log shows")
        exchange = script.popleft()
        assert isinstance(exchange, _Exchange)
        if exchange.out != len(batch):
            raise Underivable(f"record {exchange.index} does not count the "
                              f"{len(batch)} line(s) the game sends {self.name}")
        self._lines[exchange.index] = batch
        if script and isinstance(script[0], _Fault):
            raise self._fault()  # in this exchange: a timeout, a crash, a bad reply
        if not asking:
            return ""
        for line in exchange.heard:
            if not is_log(line):
                return line
        raise Underivable(f"record {exchange.index}: {self.name} is asked, and neither "
                          "answers nor faults")

    def _fault(self) -> BotFault:
        fault = self._script.popleft()
        assert isinstance(fault, _Fault)
        self._faulted = True
        return fault.error()
