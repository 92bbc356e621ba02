from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.starters.kit_builds import KitBuilds


@pytest.fixture(scope="session")
def kit_builds() -> Iterator[KitBuilds]:
    """The starter kits, each built once per session on first use."""
    builds = KitBuilds()
    yield builds
    builds.close()
