"""The C kit's turn checker (bots/starters/c/turn_check.c) agrees with the referee on every
vector of protocols/thegame-vectors.jsonl: the verdict, and for an illegal turn the card
it blames (`make test` in the kit)."""

from __future__ import annotations

import subprocess

from tests.starters.kit_builds import KITS, STARTERS, KitBuilds

VECTORS = STARTERS.parents[1] / "protocols" / "thegame-vectors.jsonl"


def test_the_c_turn_check_agrees_with_every_vector(kit_builds: KitBuilds) -> None:
    folder = kit_builds.folder(next(kit for kit in KITS if kit.name == "c"))
    done = subprocess.run(["make", "-s", "test", f"VECTORS={VECTORS}"], cwd=folder,
                          capture_output=True, text=True, timeout=120, check=False)
    count = VECTORS.read_text(encoding="utf-8").count("\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"{count} vectors, 0 disagreements"
