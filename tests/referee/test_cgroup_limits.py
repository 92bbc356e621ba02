"""A bot's process limit, held by its cgroup over all its processes, against a real fork
bomb in the sandbox (the memory limit's floods: test_zoo, section 7). Where a cgroup
holds the limit no RLIMIT_NPROC is set, so only the cgroup can stop the bomb."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from referee.processes.cgroups import CgroupRoot
from referee.processes.sandbox import sandbox_problem
from referee.settings import ResourceLimits
from tests.referee.test_zoo import (
    LAUNCH, culprit_faults, marked, no_survivors, play, the_report, zoo,
)

pytestmark = [
    pytest.mark.skipif(sandbox_problem() is not None,
                       reason=f"no sandbox here: {sandbox_problem()}"),
    pytest.mark.skipif(CgroupRoot.find() is None, reason="no cgroup for bots on this machine"),
]
PROCESSES = 16


@pytest.fixture
def bomb_marker() -> Iterator[str]:
    """A unique word in the bomb's argv; no process may carry it after the test."""
    word = f"bomb-marker-{uuid.uuid4().hex}"
    yield word
    assert marked(word) == []


def test_a_fork_bomb_is_held_to_the_bots_process_limit(tmp_path: Path,
                                                       bomb_marker: str) -> None:
    limited = replace(LAUNCH, limits=ResourceLimits(processes=PROCESSES))
    game = play(tmp_path, zoo("forkbomb", bomb_marker), limited)
    culprit_faults(game)  # the others played a whole game, charged with nothing
    found = the_report(game)
    assert found.get("bomb"), found
    # Its main process and threads count too: the bomb's own share is below the limit.
    assert 1 <= found["alive"] <= PROCESSES, found
    assert no_survivors(bomb_marker)
