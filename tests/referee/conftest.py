"""Fixtures shared by the referee's tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.processes.bot_process import BotProcess


@pytest.fixture
def spawned() -> Iterator[list[BotProcess]]:
    """Processes a test spawns; all killed afterwards."""
    processes: list[BotProcess] = []
    yield processes
    for process in processes:
        process.kill()


@pytest.fixture
def box() -> Iterator[Path]:
    """A folder for a bot of its own, outside /tmp (the sandbox's /tmp is private)."""
    folder = Path(tempfile.mkdtemp(prefix="zoo-box-", dir="/var/tmp"))
    folder.chmod(0o755)  # readable by the sandbox's user, like any bot's folder
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
