"""LogFile, the game log's file: made at once, written whole at the end or as it grows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.matches import log_file
from referee.matches.log_file import LogFile


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
    real_write = os.write
    monkeypatch.setattr(log_file.os, "write", lambda fd, data: real_write(fd, data[:3]))
    path = tmp_path / "slow.jsonl"
    sink = LogFile(path)
    sink.write(b"0123456789" * 7)
    sink.close()
    assert path.read_bytes() == b"0123456789" * 7
