"""Fixtures shared by the referee's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.processes.bot_process import BotProcess


@pytest.fixture
def spawned() -> Iterator[list[BotProcess]]:
    """Processes a test spawns; all killed afterwards."""
    processes: list[BotProcess] = []
    yield processes
    for process in processes:
        process.kill()
