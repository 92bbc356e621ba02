"""A game log's decisions, one step each: whose, what it was asked and answered, its LOG
lines, its think time and time bank, its fault; in the order they happened.

Built from read_log's records, knowing no game: a request is a line out whose first word
ends in `?` (protocols.wire.is_request), the reply is the first line heard from that seat
after it that is no LOG line, and a move record after the reply is the move it became.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocols.wire import is_log, is_request
from referee.logs.writer import logged_stderr

Record = Mapping[str, Any]


@dataclass
class Step:
    """One decision (seat set), or the game's start or end (seat None).

    `moves`: how many moves had been made once this step was over (so which board state
    shows it); `asked`: the lines the seat was sent since its last decision, the request
    last; `said`: the lines it sent that were no reply (LOG lines, lines sent unasked);
    `think`: seconds from request to reply (None untimed); `bank`: seconds of time bank
    left after it (None where the log cannot tell); `told`: at the end, (seat, "<" or ">",
    line) of what each seat was sent after its last decision, and sent unasked."""

    seat: int | None
    moves: int
    kind: str | None = None
    asked: list[str] = field(default_factory=list)
    answer: str | None = None
    said: list[str] = field(default_factory=list)
    think: float | None = None
    bank: float | None = None
    by: str | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    told: list[tuple[int, str, str]] = field(default_factory=list)
    end: str | None = None  # at the end: how the game ended


class _Seat:
    """What a seat has been sent and has sent since its last decision."""

    def __init__(self, bank: float | None) -> None:
        self.out: list[str] = []
        self.said: list[str] = []
        self.request: str | None = None
        self.asked_at: float | None = None
        self.bank = bank

    def take(self) -> tuple[list[str], list[str]]:
        out, said = self.out, self.said
        self.out, self.said, self.request, self.asked_at = [], [], None, None
        return out, said


def decisions(records: Sequence[Record]) -> tuple[list[Step], list[Record], list[Record]]:
    """The steps of a log (read_log's records): the start, every decision, the end; with
    the moves and the faults, in order."""
    header = records[0]
    times = header.get("settings", {}).get("times", {})
    timed = any(isinstance(r.get("t"), (int, float)) for r in records[1:])
    wall = times.get("clock", "wall") == "wall"
    bank = float(times["bank"]) if timed and wall and "bank" in times else None
    seats = [_Seat(bank) for _ in header.get("players", [])]
    steps: list[Step] = [Step(None, 0)]
    moves: list[Record] = []
    faults: list[Record] = []
    move_limit = float(times.get("move", 0.0))
    for record in records[1:]:
        kind = record.get("type")
        if kind == "line":
            _line(record, seats, steps, len(moves), move_limit)
        elif kind == "move":
            moves.append(record)
            _move(record, seats, steps, len(moves))
        elif kind == "fault":
            faults.append(dict(record))
            _fault(record, seats, steps, len(moves))
        elif kind in ("result", "interrupted"):
            steps.append(_end(record, seats, len(moves)))
    if steps[-1].end is None:
        steps.append(_end({}, seats, len(moves)))
    return steps, moves, faults


def fault_steps(records: Sequence[Record]) -> dict[int, int]:
    """Each faulted seat's step: the index in decisions()'s steps of the step its fault
    belongs to, as `referee view` numbers them (#step=N)."""
    steps, _, _ = decisions(records)
    return {int(fault["seat"]): index for index, step in enumerate(steps)
            for fault in step.faults}


def _line(record: Record, seats: list[_Seat], steps: list[Step], moves: int,
          move_limit: float) -> None:
    seat, line, when = record["seat"], str(record["line"]), record.get("t")
    state = seats[seat]
    if record.get("dir") == "out":
        state.out.append(line)
        if is_request(line):
            state.request, state.asked_at = line, when
        return
    if is_log(line) or state.request is None:
        state.said.append(line)  # a LOG line, or a line sent unasked
        return
    think = _elapsed(state.asked_at, when)
    request = state.request
    asked, said = state.take()
    if think is not None and state.bank is not None:
        state.bank = max(0.0, state.bank - max(0.0, think - move_limit))
    steps.append(Step(seat, moves, request.split(" ", 1)[0], asked, line, said, think,
                      state.bank, "bot"))


def _elapsed(start: Any, end: Any) -> float | None:
    if isinstance(start, (int, float)) and isinstance(end, (int, float)):
        return round(end - start, 6)
    return None


def _move(record: Record, seats: list[_Seat], steps: list[Step], moves: int) -> None:
    seat, last = record["seat"], steps[-1]
    if last.seat == seat and last.moves == moves - 1 and (
            record.get("by") == "bot" or last.faults) and last.by != "fallback":
        last.moves, last.kind = moves, str(record["kind"])  # the move its reply became
        if record.get("by") != "bot":
            last.by = str(record.get("by"))
        return
    asked, said = seats[seat].take()
    steps.append(Step(seat, moves, str(record["kind"]), asked, None, said,
                      by=str(record.get("by"))))


def _fault(record: Record, seats: list[_Seat], steps: list[Step], moves: int) -> None:
    seat, state, last = record["seat"], seats[record["seat"]], steps[-1]
    fault = {key: record.get(key) for key in ("kind", "detail", "line")}
    fault["seat"] = seat
    stderr = logged_stderr(record)
    if stderr:
        fault["stderr"] = stderr
    if state.request is not None:  # asked, and no reply taken: a timeout, a crash...
        think = _elapsed(state.asked_at, record.get("t"))
        request = state.request
        asked, said = state.take()
        state.bank = None if state.bank is None else 0.0 if fault["kind"] == "timeout" \
            else state.bank
        steps.append(Step(seat, moves, request.split(" ", 1)[0], asked, None, said, think,
                          state.bank, faults=[fault]))
    elif last.seat == seat and last.moves == moves:  # its reply, refused
        last.faults.append(fault)
    else:  # found between its decisions: a line sent unasked, a crash
        asked, said = state.take()
        steps.append(Step(seat, moves, None, asked, None, said, faults=[fault]))


def _end(record: Record, seats: list[_Seat], moves: int) -> Step:
    told = [(seat, arrow, line) for seat, state in enumerate(seats)
            for arrow, lines in (("<", state.out), (">", state.said)) for line in lines]
    if record.get("type") == "interrupted":
        end = f"interrupted ({record.get('why')}): the game stopped here, with no result"
    elif record.get("type") == "result":
        end = "the game is over"
    else:
        end = "the log ends here"
    return Step(None, moves, told=told, end=end)
