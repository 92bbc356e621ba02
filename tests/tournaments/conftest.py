"""Fixtures shared by the tournaments' tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.processes.live_bots import live_processes
from tournaments.run.fixture_play import close_worker_pool


@pytest.fixture
def no_bot_left() -> Iterator[None]:
    """After the test, this process's pool of kept bots is closed and no bot process is
    alive (use it autouse: `pytestmark = pytest.mark.usefixtures("no_bot_left")`)."""
    yield
    close_worker_pool()
    assert live_processes() == []
