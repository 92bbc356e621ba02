"""Progress of a tournament run, on standard error (stdout is for the tables)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Protocol, TextIO

from tournaments.records import GameRecord


class Progress(Protocol):
    """What the runner reports to."""

    def start(self, total: int, done: int, faults: int) -> None:
        """`total` fixtures, `done` of them already stored holding `faults` faults."""

    def advance(self, record: GameRecord) -> None:
        """One more game stored."""

    def finish(self) -> None:
        """The run ended (completed, interrupted or failed)."""


class StderrProgress:
    """done/total, faults and ETA. On a terminal one line redrawn in place; elsewhere
    (CI logs, files) a line at the start, every `interval` seconds, and at the end."""

    def __init__(self, label: str, stream: TextIO | None = None, interval: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self.live = self.stream.isatty()
        self.total = self.done = self.faults = self.resumed = 0
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
                f"{self.faults} fault{'s' if self.faults != 1 else ''}, ETA {self._eta()}")

    def bar(self, width: int = 20) -> str:
        """The share done as a bar, e.g. "[#####---------------]"."""
        filled = width * self.done // self.total if self.total else width
        return "[" + "#" * filled + "-" * (width - filled) + "]"

    def _show(self, force: bool) -> None:
        now = self.clock()
        if not force and now - self.last_shown < (0.1 if self.live else self.interval):
            return
        self.last_shown = now
        if self.live:  # carriage return, clear the line, redraw with a bar
            self.stream.write(f"\r\x1b[K{self.bar()} {self.line()}")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def _eta(self) -> str:
        played = self.done - self.resumed
        if self.done >= self.total:
            return "0s"
        if played == 0:
            return "?"
        seconds = (self.clock() - self.started) / played * (self.total - self.done)
        return format_duration(seconds)


def format_duration(seconds: float) -> str:
    """Compact: "15s", "2m10s", "1h02m"."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
