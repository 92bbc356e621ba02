"""LogFile, the game log's file: made at once, written whole at the end or as it grows."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from referee.logs import file as log_file
from referee.logs.writer import GameLog
from referee.logs.file import LogFile


def test_the_file_is_made_at_once_and_holds_every_byte_after_close(tmp_path: Path) -> None:
    path = tmp_path / "made" / "here" / "game.jsonl"
    sink = LogFile(path)
    assert path.exists()  # a log that cannot be made fails before the game, not after it
    chunks = [bytes([n]) * n for n in range(1, 200)]
    for chunk in chunks:
        assert sink.write(chunk) == len(chunk)
    sink.close()
    sink.close()  # a second close does nothing
    assert path.read_bytes() == b"".join(chunks)


def test_a_log_that_cannot_be_made_fails_when_opened(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OSError):
        LogFile(tmp_path / "file" / "game.jsonl")


def test_a_growing_log_is_written_as_it_goes_so_memory_stays_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_file, "_HELD", 100)
    path = tmp_path / "flood.jsonl"
    sink = LogFile(path)
    for written in range(10, 310, 10):
        sink.write(b"x" * 10)
        assert len(path.read_bytes()) > written - 100  # less than _HELD held back
    sink.close()
    assert path.read_bytes() == b"x" * 300


def test_a_write_the_file_takes_only_part_of_is_continued(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_file, "_write", lambda fd, data: os.write(fd, data[:3]))
    path = tmp_path / "slow.jsonl"
    sink = LogFile(path)
    sink.write(b"0123456789" * 7)
    sink.close()
    assert path.read_bytes() == b"0123456789" * 7


def test_a_log_whose_bytes_cannot_be_written_fails_at_close_and_lets_go_of_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk shows when the game's bytes are written, at its end: GameLog.close
    raises it, and the file is closed all the same (a worker plays thousands)."""
    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    before = set(os.listdir("/proc/self/fd"))
    log = GameLog.open(tmp_path / "game.jsonl.gz")
    log.header("rage", 1, {"players": 3}, [])
    assert set(os.listdir("/proc/self/fd")) != before  # the file is open, then
    monkeypatch.setattr(log_file, "_write", full)
    with pytest.raises(OSError, match="No space left"):
        log.close()
    assert set(os.listdir("/proc/self/fd")) == before


def test_a_closed_log_file_takes_no_more_bytes(tmp_path: Path) -> None:
    sink = LogFile(tmp_path / "game.jsonl")
    sink.close()
    with pytest.raises(ValueError):
        sink.write(b"late")
