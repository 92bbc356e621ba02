"""A human seat's screen made to fit the terminal it is drawn on (docs/human.md, "A small
terminal"): no line wider than the terminal, for a terminal wraps a long line and pushes
the top of the board off the screen, and no more rows than it has, less the prompt's.

A desk gives its screen as blocks, each ranked by how readily it may be given up: 0 is
what the decision needs (the hand, the trump, every seat's bid, tricks and score, the
offer); blank lines go first, then the oldest news. What is given up is said in a note
where the first of it stood."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.ansi import clip, width as columns_of

NEEDED = 0.0  # kept whatever it takes
SEAT_ROW = 1.0  # another seat's row: given up only when the terminal is very small
OFFERED = 1.2  # a convenience that may be typed instead (The Game's numbered turns)
HEADER = 1.5  # a table's column headings
HELP = 2.0  # "Type ? for help."
DETAIL = 3.0  # said elsewhere too (the order tricks were won in, a note)
NEWS = 4.0  # what happened since the last move: the oldest goes first
BLANK = 9.0  # a blank line between parts


@dataclass(frozen=True, eq=False)
class Block:
    """Lines kept or given up together; `what` names them where they are given up, and
    blocks of one `what` given up together are named once, their `seat`s listed ("seats
    4-7"). Blocks are told apart by identity: two blank lines are two blocks."""

    lines: tuple[str, ...]
    rank: float = NEEDED
    what: str = ""
    seat: int | None = None


def block(lines: Sequence[str], rank: float = NEEDED, what: str = "",
          seat: int | None = None) -> Block:
    return Block(tuple(lines), rank, what, seat)


def blank() -> Block:
    return Block(("",), BLANK)


def lines_of(blocks: Sequence[Block]) -> list[str]:
    return [line for part in blocks for line in part.lines]


def wrap(segments: Sequence[str], width: int | None, indent: int = 0,
         sep: str = "  ") -> list[str]:
    """Segments (painted text, kept whole) joined by `sep` on lines of at most `width`
    columns, each line after the first indented; one line if `width` is None. A segment
    wider than a line is cut (referee.ansi.clip)."""
    if width is None:
        return [sep.join(segments)]
    lines: list[str] = []
    line = ""
    for segment in segments:
        if not line:
            line = segment
        elif columns_of(line + sep + segment) <= width:
            line += sep + segment
        else:
            lines.append(line)
            line = " " * indent + segment
    lines.append(line)
    return [clip(text, width) for text in lines]


def prose(text: str, width: int | None, indent: int = 0) -> list[str]:
    """Plain text (no colour codes) wrapped at its spaces."""
    return wrap(text.split(" "), width, indent, sep=" ")


def fit(blocks: Sequence[Block], columns: int, rows: int) -> list[str]:
    """The blocks' lines in at most `rows` rows of `columns`: the highest-ranked blocks are
    given up first (of equal rank, the lowest on screen), and a note says what, where the
    first of them stood. If what is needed is taller still, its top rows go, said at the
    top: the offer, at the bottom, stays."""
    kept = list(blocks)
    hidden: list[Block] = []

    def height() -> int:
        return len(lines_of(kept)) + len(_note(blocks, hidden, columns))

    while height() > rows:
        given_up = [part for part in kept if part.rank > NEEDED]
        if not given_up:
            break
        rank = max(part.rank for part in given_up)
        victim = [part for part in given_up if part.rank == rank][-1]
        kept.remove(victim)
        hidden.append(victim)
    lines = _with_note(blocks, kept, hidden, columns)
    if len(lines) > rows:  # what is needed is too tall: one line says what is not shown
        lines = _with_note(blocks, kept, [], columns)
        if len(lines) < rows:
            said = " ".join(line.strip() for line in _note(blocks, hidden, columns))
        else:
            said = f"({len(lines) - rows + 1} rows hidden above)"
            lines = lines[len(lines) - rows + 1:]
        lines = [said] + lines
    return [clip(line, columns) for line in lines[:rows]]


def _note(blocks: Sequence[Block], hidden: list[Block], columns: int) -> list[str]:
    """What was given up, by name, in the order it stood (blank lines are not named)."""
    seats: dict[str, list[int]] = {}
    for part in blocks:
        if part in hidden and part.what:
            seats.setdefault(part.what, [])
            if part.seat is not None:
                seats[part.what].append(part.seat)
    if not seats:
        return []
    names = [f"{what} {_spans(numbers)}" if numbers else what for what, numbers in seats.items()]
    return prose(f"(not shown, for want of room: {', '.join(names)})", columns, 1)


def _spans(numbers: list[int]) -> str:
    """Seat numbers as runs: 4-7, 9."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _with_note(blocks: Sequence[Block], kept: list[Block], hidden: list[Block],
               columns: int) -> list[str]:
    first = next((part for part in blocks if part in hidden and part.what), None)
    lines: list[str] = []
    for part in blocks:
        if part is first:
            lines += _note(blocks, hidden, columns)
        if part in kept:
            lines += part.lines
    return lines
