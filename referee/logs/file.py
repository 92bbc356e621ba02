"""A game log's file: made when the game starts, written in one go when it ends.

Python's `open()` costs a file three system calls more than the file needs (a stat, an
isatty and a seek) and two objects, a FileIO and a BufferedWriter; a tournament makes one
file per game, on a CPU its bots have just left, where such cold calls are a part of the
log's cost worth saving (docs/game-log.md, "How the log came to cost little"). Here the
file is one descriptor: `os.open` at the start,
so a log that cannot be made fails before any bot is started, and the bytes are held
until the game ends (a gzip-compressed log is a few KB), then written with `os.write`.
A game whose log grows past `_HELD` bytes (a bot's LOG flood) is written as it goes, so
memory stays bounded.
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.logs import unfinished

_HELD = 1 << 20  # bytes held before they are written
_write = os.write  # (tests make it take only part, in this module alone)
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC


class LogFile:
    """The write/flush/close a GameLog needs of its stream, over one file descriptor."""

    __slots__ = ("_fd", "_path", "_held", "_size")

    def __init__(self, path: Path) -> None:
        self._path = path
        unfinished.started(path)  # first: a stop in between finds no file, no matter
        try:
            self._fd = _made(path)
        except BaseException:
            unfinished.finished(path)  # not made by this game: never to be removed
            raise
        self._held: list[bytes] = []
        self._size = 0

    def write(self, data: bytes) -> int:
        if self._fd < 0:
            raise ValueError("write to a closed log file")
        self._held.append(data)
        self._size += len(data)
        if self._size >= _HELD:
            self.flush()
        return len(data)

    def flush(self) -> None:
        """Write what is held."""
        data = memoryview(b"".join(self._held))
        self._held, self._size = [], 0
        while data:
            data = data[_write(self._fd, data):]  # a regular file may take only part

    def close(self) -> None:
        """Write what is held and close the file (once; closed even if the write
        fails)."""
        if self._fd < 0:
            return
        try:
            self.flush()
        finally:
            os.close(self._fd)
            self._fd = -1
            unfinished.finished(self._path)


def _made(path: Path) -> int:
    try:
        return os.open(path, _FLAGS, 0o666)  # less the umask, as open() makes it
    except FileNotFoundError:  # its folder is made once, not looked for at every game
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, _FLAGS, 0o666)
