"""Progress of a tournament run, on standard error (stdout is for the tables)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from typing import Protocol, TextIO

from referee.ansi import CLEAR_LINE
from referee.words import counted
from tournaments.store.records import GameRecord

STEPS = 20  # off a terminal, a line at least at every 5% of the schedule
BAR_WIDTH = 20  # the bar's cells where the terminal is wide enough
MIN_BAR = 5  # a narrower bar says nothing: drop it instead


class Progress(Protocol):
    """What the runner reports to."""

    def start(self, total: int, done: int, faults: int) -> None:
        """`total` fixtures, `done` of them already stored holding `faults` faults."""

    def advance(self, record: GameRecord) -> None:
        """One more game stored."""

    def finish(self) -> None:
        """The run ended (completed, interrupted or failed)."""


class StderrProgress:
    """done/total, faults and ETA. On a terminal one line redrawn in place, fitted to the
    terminal's width; elsewhere (CI logs, files) a line at the start, then after a game
    once `interval` seconds have passed or the schedule is another 5% done, and at the end."""

    def __init__(self, label: str, stream: TextIO | None = None, interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic,
                 width: Callable[[], int] | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self.width = width or (lambda: terminal_width(self.stream))
        self.live = self.stream.isatty()
        self.total = self.done = self.faults = self.resumed = self.shown_step = 0
        self.started = self.last_shown = 0.0

    def start(self, total: int, done: int, faults: int) -> None:
        """Begin: the ETA counts only games played from now on."""
        self.total, self.done, self.resumed, self.faults = total, done, done, faults
        self.started = self.last_shown = self.clock()
        self._show(force=True)

    def advance(self, record: GameRecord) -> None:
        """Count one stored game and maybe show a line."""
        self.done += 1
        self.faults += len(record.faults)
        self._show(force=self.done == self.total)

    def interject(self, text: str) -> None:
        """Show `text` (whole lines) between progress lines; on a terminal the bar is
        cleared first and drawn again below it."""
        if self.live:
            self.stream.write(CLEAR_LINE)
        self.stream.write(text if text.endswith("\n") else text + "\n")
        if self.live:
            self._show(force=True)
        self.stream.flush()

    def finish(self) -> None:
        """End the line on a terminal; elsewhere show the final count if not yet shown."""
        if self.live:
            self.stream.write("\n")
        elif self.done != self.total:
            self._show(force=True)
        self.stream.flush()

    def line(self) -> str:
        """The current status, e.g. "rage: 37/160 games, 2 faults, ETA 2m10s"."""
        resumed = f" ({self.resumed} resumed)" if self.resumed else ""
        return (f"{self.label}: {self.done}/{self.total} games{resumed}, "
                f"{counted(self.faults, 'fault')}, ETA {self._eta()}")

    def short_line(self) -> str:
        """The status for a narrow terminal, e.g. "37/160, 2 faults, ETA 2m10s"."""
        return (f"{self.done}/{self.total}, "
                f"{counted(self.faults, 'fault')}, ETA {self._eta()}")

    def bar(self, width: int = BAR_WIDTH) -> str:
        """The share done as a bar, e.g. "[#####---------------]"."""
        filled = width * self.done // self.total if self.total else width
        return "[" + "#" * filled + "-" * (width - filled) + "]"

    def fitted(self, width: int) -> str:
        """The bar and status in fewer than `width` columns (writing the last column makes
        some terminals wrap): the bar narrows, then goes, then the status shortens."""
        room = max(width - 1, 1)
        for text in (self.line(), self.short_line()):
            cells = min(BAR_WIDTH, room - len(text) - 3)  # "[", "] " around the cells
            if cells >= MIN_BAR:
                return f"{self.bar(cells)} {text}"
            if len(text) <= room:
                return text
        return self.short_line()[:room]

    def _show(self, force: bool) -> None:
        now = self.clock()
        if not force and not self._due(now):
            return
        self.last_shown, self.shown_step = now, self._step()
        if self.live:  # carriage return, clear the line, redraw with a bar
            self.stream.write(CLEAR_LINE + self.fitted(self.width()))
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def _due(self, now: float) -> bool:
        if self.live:
            return now - self.last_shown >= 0.1
        return now - self.last_shown >= self.interval or self._step() > self.shown_step

    def _step(self) -> int:
        """How many 5% steps of the schedule are done."""
        return STEPS * self.done // self.total if self.total else STEPS

    def _eta(self) -> str:
        played = self.done - self.resumed
        if self.done >= self.total:
            return "0s"
        if played == 0:
            return "?"
        seconds = (self.clock() - self.started) / played * (self.total - self.done)
        return format_duration(seconds)


class StandingsEvery:
    """A Progress that also shows the current standings every `every` games stored in
    this run (not after the last game: the tables follow then)."""

    def __init__(self, progress: StderrProgress, every: int,
                 standings: Callable[[], str]) -> None:
        self.progress = progress
        self.every = every
        self.standings = standings
        self.stored = 0

    def start(self, total: int, done: int, faults: int) -> None:
        self.progress.start(total, done, faults)

    def advance(self, record: GameRecord) -> None:
        self.progress.advance(record)
        self.stored += 1
        if self.stored % self.every == 0 and self.progress.done < self.progress.total:
            self.progress.interject(self.standings())

    def finish(self) -> None:
        self.progress.finish()


def terminal_width(stream: TextIO) -> int:
    """The columns of the terminal `stream` writes to, read afresh (it may be resized);
    else $COLUMNS or 80."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):  # no file descriptor, or no terminal
        return shutil.get_terminal_size().columns


def format_duration(seconds: float) -> str:
    """Compact: "15s", "2m10s", "1h02m"."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
