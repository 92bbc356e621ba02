"""Every starter kit (bots/starters/) builds and passes `referee check` in both games: a
whole game at every seat count and option, games in a row, BYE, reply times (the check's
own list). A kit whose toolchain is missing fails here unless REFEREE_KITS_OPTIONAL is set
(tests/starters/kit_builds.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.starters.kit_builds import KITS, Kit, KitBuilds

CHECK_TIMEOUT_S = 300

CASES = [pytest.param(kit, bot, game, id=f"{kit.name}-{bot.split()[-1]}-{game}")
         for kit in KITS for bot in kit.bots for game in ("rage", "thegame")]


@pytest.mark.parametrize(("kit", "bot", "game"), CASES)
def test_kit_passes_referee_check(kit_builds: KitBuilds, kit: Kit, bot: str, game: str) -> None:
    folder = kit_builds.folder(kit)
    done = subprocess.run([sys.executable, "-m", "referee", "check", "--game", game, bot],
                          cwd=folder, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conforms" in done.stdout.splitlines()[-1], done.stdout
    assert "FAIL" not in done.stdout, done.stdout
