"""Fixtures shared across the test folders. Each folder's own are in its conftest.py:
tests/referee/ (bot processes, the hub, no bot left, scripted channels), tests/tournaments/
(no bot left, the pool closed too), tests/viewer/ (the browser, the logs).

Hypothesis runs derandomized by default: every run of the suite (CI's above all) tries
the same examples, hundreds per fuzz test, so a run fails for a change and never for a
draw. `pytest --hypothesis-profile explore` searches anew with random seeds and ten
times the examples; run it when a parser changes, and pin what it finds as @example."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from referee.registry import games
from tests.third_game.high_card.definition import HIGH_CARD

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile("repeatable")


@pytest.fixture
def high_card() -> Iterator[None]:
    """The tests' third game (tests/third_game/high_card/) registered for the test, and
    gone from the registry after it."""
    games.register(HIGH_CARD)
    yield
    games.unregister(HIGH_CARD.name)
