"""A person's fault (`--human-time` run out) names no `referee reproduce` command: that
command replays a seat with a bot, and refuses `human` (docs/human.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_persons_timeout_suggests_no_reproduce(tmp_path: Path) -> None:
    log, err_file = tmp_path / "game.jsonl", tmp_path / "stderr"
    typing, keyboard = os.pipe()  # kept open, and never written: ann never types
    try:
        with err_file.open("w") as err_out:
            code = subprocess.run(
                [sys.executable, "-m", "referee", "play", "rage", "--seed", "3",
                 "--sandbox", "off", "--human-time", "0.3", "--log", str(log), "human=ann",
                 "python bots/rage_random.py", "python bots/rage_random.py"],
                cwd=ROOT, stdin=typing, stdout=subprocess.DEVNULL, stderr=err_out,
                timeout=60).returncode
    finally:
        os.close(typing)
        os.close(keyboard)
    err = err_file.read_text()
    assert code == 0, err
    faults = [line for line in err.splitlines() if line.startswith("referee: fault:")]
    assert len(faults) == 1 and "seat 0 ann: timeout" in faults[0], err
    assert "reproduce" not in faults[0], faults[0]
