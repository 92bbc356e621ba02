"""The logs the viewer's tests view, played once per session (their Chromium:
tests/conftest.py's `browser`)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.cli_support import run_main
from tests.viewer.logs import (
    HEURISTIC, MARKUP_BOT, RANDOM, ROOT, TG_HEURISTIC, TG_RANDOM, play,
)

CRASH = f"stdio:{shlex.quote(sys.executable)} " \
        f"{shlex.quote(str(Path(__file__).with_name('crash_bot.py')))}"


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


@pytest.fixture(scope="session")
def crash_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results db: Rage for 3, one deal in 3 rotations, and the crash bot (crash_bot.py)
    crashes in each game."""
    path = tmp_path_factory.mktemp("crash-tournament") / "r.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        code, _, err = run_main(["tournament", "rage", RANDOM, HEURISTIC, f"crash={CRASH}",
                                 "--sandbox", "off", "--db", str(path)])
    assert code == 0, err
    return path
