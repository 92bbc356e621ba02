"""A game's log, also streamed as it is played while someone watches (`referee serve`).

The log is written in one go when its game ends (file.py), and its cost per decision is
two appends (writer.py). A live view must not add to that when nobody watches, so the
watcher announces itself: `referee serve` puts a marker file, WATCHING, in the folder
`live/` of the tournament's logs folder (beside the db, hidden from every sandbox), and
a tournament looks for it when it opens a game's log (open_log), at most once a second
(LOOK_EVERY): a look is a path lookup that fails, which on a CPU the bots have just
left costs about 0.1 ms, a tenth of the log's own cost per game of the bench's games.
Only where the marker is there is the game's log a LiveGameLog: the same log, whose
records and whose stream so far are also appended, at each reply, to a file of its own,
`live/<log>.<pid>.live` (uncompressed format 5: a log cut short). The file is removed
when the game's log is closed, its result written: the game is then the log's and the
db's.

A fault's stderr is known only once its bot is stopped, after its fault record is in the
live file (writer.py, fault_stderr): the live file then gets a record of its own,
LIVE_STDERR, which its reader (referee/serve/live_games.py) adds to that fault record,
so that a game in progress shows a crash's reason as soon as the referee knows it.

The marker names the watcher's process: a marker left by a watcher that is gone (killed)
is ignored, so games are not streamed for nobody.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from time import monotonic
from typing import Any

from referee.logs import unfinished
from referee.logs.budget import LOG_BUDGET, SeatBudget
from referee.logs.file import LogFile
from referee.logs.writer import _ENCODER, FAULT_STDERR, GameLog, SeatLog, _found

LIVE_FOLDER = "live"  # in the tournament's logs folder
WATCHING = "watching"  # the marker: the watcher's pid
LIVE_SUFFIX = ".live"  # <log name>.<writer pid>.live
LIVE_STDERR = "fault stderr"  # a live file's record: {"type", "seat", "stderr"}, its seat's
# fault's stderr lines (FAULT_STDERR's, bounded as the log's); in no game log
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_CLOEXEC
# Seconds a look for the marker holds: a watcher that comes sees the games that start a
# second later at most (and one that went is streamed for a second more, for nobody:
# its files are removed as their games end).
LOOK_EVERY = 1.0
_looks: dict[Path, tuple[float, bool]] = {}  # per logs folder: when looked, and whether


def live_folder(logs: Path) -> Path:
    """Where the marker and the live files of a tournament's logs folder are."""
    return logs / LIVE_FOLDER


def watched(logs: Path) -> bool:
    """Whether a watcher that is still running announced itself beside these logs: one
    failed stat() when nobody watches."""
    try:
        text = (logs / LIVE_FOLDER / WATCHING).read_text()
    except OSError:
        return False
    return pid_alive(text.strip())


def pid_alive(text: str) -> bool:
    """Whether `text` is the pid of a running process (of any user)."""
    try:
        os.kill(int(text), 0)
    except PermissionError:
        return True
    except (ValueError, OverflowError, OSError):
        return False
    return True


def watched_lately(logs: Path) -> bool:
    """watched(logs), as looked within the last LOOK_EVERY seconds."""
    now = monotonic()
    looked = _looks.get(logs)
    if looked is not None and now - looked[0] < LOOK_EVERY:
        return looked[1]
    found = watched(logs)
    _looks[logs] = (now, found)
    return found


def open_log(path: Path, timestamps: bool, logs: Path) -> GameLog:
    """The game's log at `path` (GameLog.open), streamed live into `logs`' live folder
    if a watcher was there lately (watched_lately)."""
    if not watched_lately(logs):
        return GameLog.open(path, timestamps)
    live = live_folder(logs) / f"{path.name}.{os.getpid()}{LIVE_SUFFIX}"
    return LiveGameLog(LogFile(path), LiveFile(live), timestamps,
                       compress=path.suffix == ".gz")


class LiveFile:
    """An append-only file of whole lines, removed when closed. A failure to write it
    (a full disk) stops the streaming, never the game."""

    __slots__ = ("_path", "_fd")

    def __init__(self, path: Path) -> None:
        self._path = path
        unfinished.started(path)
        try:
            self._fd = os.open(path, _FLAGS, 0o644)
        except OSError:
            self._fd = -1
            unfinished.finished(path)

    def write(self, line: str) -> None:
        if self._fd < 0:
            return
        try:
            os.write(self._fd, (line + "\n").encode())  # O_APPEND: one line, one write
        except OSError:
            self.close()

    def close(self) -> None:
        if self._fd < 0:
            return
        os.close(self._fd)
        self._fd = -1
        unfinished.finished(self._path)
        try:
            self._path.unlink()
        except OSError:
            pass


class LiveGameLog(GameLog):
    """A GameLog that also appends each record, and the stream so far at each reply, to
    a LiveFile. The log's own file gets the very same bytes as without."""

    def __init__(self, sink: LogFile, live: LiveFile, timestamps: bool = True,
                 compress: bool = False, budget: int = LOG_BUDGET) -> None:
        super().__init__(sink, timestamps, compress=compress, owns=True, budget=budget)
        self._live = live
        self._streamed = 0  # items of the stream already in the live file

    def _seat_log(self, seat: int) -> SeatLog:
        if seat not in self._seats:
            self._seats[seat] = LiveSeatLog(self, seat, self._stream,
                                            SeatBudget(self._budget))
        return self._seats[seat]

    def stream_live(self) -> None:
        """The stream's items not yet in the live file, as one array."""
        new = self._stream[self._streamed:]
        if not new:
            return
        start = self._start if self._timestamps else None
        self._live.write(_ENCODER.encode([_item(item, start) for item in new]))
        self._streamed = len(self._stream)

    def _end_stretch(self) -> None:
        self.stream_live()
        super()._end_stretch()
        self._streamed = 0

    def _add(self, record: dict[str, Any]) -> None:
        if self._ended:
            return
        super()._add(record)
        self._live.write(self._lines[-1])

    def fault_stderr(self, seat: int, lines: Sequence[str]) -> list[str]:
        """As the log's, and the same lines in the live file at once (LIVE_STDERR), where
        the seat's fault record is already: also where a LOG flood had the log written
        before them, as the results db keeps them then too."""
        kept = super().fault_stderr(seat, lines)
        if kept and not self._ended:
            self._live.write(_ENCODER.encode(
                {"type": LIVE_STDERR, "seat": seat, FAULT_STDERR: kept}))
        return kept

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._live.close()


class LiveSeatLog(SeatLog):
    """A seat's SeatLog whose every reply streams the game so far."""

    __slots__ = ()

    def replied(self, line: str, at: float) -> None:
        super().replied(line, at)
        log = self._log
        assert isinstance(log, LiveGameLog)
        log.stream_live()


def _item(item: Any, start: float | None) -> Any:
    """A stream's item as the log writes it (GameLog._end_stretch)."""
    if type(item) is str:
        return item
    if type(item) is float:
        return None if start is None else int((item - start) * 1e6)
    return _found(item, start)
