"""Fixtures shared across the test folders. Each folder's own are in its conftest.py:
tests/referee/ (bot processes, the hub, no bot left, scripted channels), tests/tournaments/
(no bot left, the pool closed too), tests/viewer/ (the logs). Here: the third game,
Hypothesis's profiles and a headless Chromium.

Hypothesis runs derandomized by default: every run of the suite (CI's above all) tries
the same examples, hundreds per fuzz test, so a run fails for a change and never for a
draw. `pytest --hypothesis-profile explore` searches anew with random seeds and ten
times the examples; run it when a parser changes, and pin what it finds as @example."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from referee.registry import games
from tests.third_game.high_card.definition import HIGH_CARD

# No deadline: hypothesis fails an example slower than 200 ms, a wall-clock bound that a
# loaded machine breaks (two arena fuzz tests did, beside a CI run); speed is bench/'s.
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, max_examples=1000, deadline=None)
settings.load_profile("repeatable")


@pytest.fixture
def high_card() -> Iterator[None]:
    """The tests' third game (tests/third_game/high_card/) registered for the test, and
    gone from the registry after it."""
    games.register(HIGH_CARD)
    yield
    games.unregister(HIGH_CARD.name)


CHROMIUM = Path("/usr/bin/chromium")  # Debian's: Playwright drives it, no download


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module that asks for it."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent: apt-get install chromium (.ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (the test extra)")
    with sync_api.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()
