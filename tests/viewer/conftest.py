"""The logs the viewer's tests view, played once per session (their Chromium:
tests/conftest.py's `browser`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.viewer.logs import (
    HEURISTIC, MARKUP_BOT, RANDOM, ROOT, TG_HEURISTIC, TG_RANDOM, play,
)


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Rage for 4 (plain, hidden-bid, secret-bid), Rage with a seat that faults with
    markup, and The Game for 5."""
    folder = tmp_path_factory.mktemp("logs")
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        return {
            "rage": play(folder / "rage.jsonl", "rage", RANDOM, HEURISTIC, RANDOM,
                         HEURISTIC, "--seed", "3"),
            "hidden": play(folder / "hidden.jsonl", "rage", RANDOM, HEURISTIC, RANDOM,
                           "--variant", "hidden-bid", "--seed", "4"),
            "secret": play(folder / "secret.jsonl.gz", "rage", HEURISTIC, RANDOM, RANDOM,
                           HEURISTIC, "--variant", "secret-bid", "--seed", "5"),
            "fault": play(folder / "fault.jsonl", "rage", RANDOM, f"{MARKUP_BOT} 12",
                          HEURISTIC, "--seed", "9"),
            "thegame": play(folder / "thegame.jsonl", "thegame", TG_HEURISTIC,
                            TG_HEURISTIC, TG_RANDOM, TG_HEURISTIC, TG_HEURISTIC,
                            "--seed", "3"),
        }
    finally:
        os.chdir(here)
