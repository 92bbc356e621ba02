"""What one seat's bot may add to a game's log beyond what the game needs: its LOG lines
and the lines found while no reply was awaited, up to LOG_BUDGET bytes a game.

A bot may send 16 LOG lines of 4 KB before every reply (protocols/wire.py): over a Rage
game, about 3 MB of log for one hostile seat, 64 GB over 20,000 games. Past the budget,
its lines are dropped and counted, and the log says how many (a `dropped` record,
docs/game-log.md). Its replies are never dropped: the log's reader derives the game
from them. What is counted is the line as the log writes it (JSON, escaped), so the
budget bounds the file whatever characters the bot sends.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii
from collections.abc import Sequence
from typing import Any

# 12 KiB: a hostile seat then adds at most 12 KiB of such lines, and its one fault's
# offending line, written at most twice (as the reply heard and in the fault), at most
# 4 KB as sent and 6 bytes a byte once escaped: 12 + 2 x 24 = 60 KiB, and its fault's
# stderr lines (STDERR_BUDGET), under the 64 KB a seat may add (issue 26). Plain text
# costs its size: about 150 lines of 80 characters.
LOG_BUDGET = 12 * 1024
# 2 KiB: a fault record's last lines of the bot's stderr, as the log writes them (the
# results db keeps all stderr_tail's 2,048 characters, up to 24 KiB once escaped). With
# them a hostile seat adds at most 60 + 2 = 62 KiB, still under issue 26's 64 KB.
STDERR_BUDGET = 2 * 1024
_ITEM_BYTES = 16  # what a line costs in the log beyond its text: quotes, comma, seat, time


class SeatBudget:
    """One seat's budget in one game: what is left, and what was dropped past it."""

    __slots__ = ("left", "lines", "bytes")

    def __init__(self, budget: int = LOG_BUDGET) -> None:
        self.left = budget
        self.lines = 0  # dropped
        self.bytes = 0  # dropped, as the bot sent them (UTF-8)

    def keeps(self, line: str) -> bool:
        """Whether `line` is kept (and charged); once one is dropped, so is every later
        one, so the log keeps the seat's first lines, in order."""
        if self.lines == 0:
            cost = len(encode_basestring_ascii(line)) + _ITEM_BYTES
            if cost <= self.left:
                self.left -= cost
                return True
            self.left = 0
        self.lines += 1
        self.bytes += len(line.encode("utf-8", "surrogatepass"))
        return False

    def record(self, seat: int) -> dict[str, Any] | None:
        """The log's `dropped` record for `seat`, if any line was dropped since the last
        one; the count starts again."""
        if self.lines == 0:
            return None
        record = {"type": "dropped", "seat": seat, "lines": self.lines, "bytes": self.bytes}
        self.bytes = 0
        self.lines = 0
        return record


def stderr_kept(lines: Sequence[str], budget: int = STDERR_BUDGET) -> list[str]:
    """The last of a fault's stderr `lines` that the log keeps: as many as fit in
    `budget` bytes as the log writes them (JSON, escaped; a traceback ends with its
    exception, so the last lines are the ones to keep). A last line too long to fit
    alone is kept cut, its start (the exception's name) and a "…": never nothing."""
    kept: list[str] = []
    left = budget
    for line in reversed(lines):
        left -= _written(line)
        if left < 0:
            break
        kept.append(line)
    if not kept and lines:
        return [_cut_to_fit(lines[-1], budget)]
    return kept[::-1]


def _written(line: str) -> int:
    return len(encode_basestring_ascii(line)) + 1  # and its comma


def _cut_to_fit(line: str, budget: int) -> str:
    """`line`'s start and "…", as long as fits in `budget` bytes as written."""
    low, high = 0, len(line)  # the longest start that fits lies in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if _written(line[:middle] + "\u2026") <= budget:
            low = middle
        else:
            high = middle - 1
    return line[:low] + "\u2026"
