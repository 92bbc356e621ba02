"""Fixtures shared across the test folders. Each folder's own are in its conftest.py:
tests/referee/ (bot processes, the hub, no bot left, scripted channels), tests/tournaments/
(no bot left, the pool closed too), tests/viewer/ (the browser, the logs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.registry import games
from tests.third_game.high_card.definition import HIGH_CARD


@pytest.fixture
def high_card() -> Iterator[None]:
    """The tests' third game (tests/third_game/high_card/) registered for the test, and
    gone from the registry after it."""
    games.register(HIGH_CARD)
    yield
    games.unregister(HIGH_CARD.name)
