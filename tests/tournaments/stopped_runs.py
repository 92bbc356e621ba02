"""A real tournament to stop with signals, as a terminal or a service manager does: three
sample bots whose command lines carry a marker, the referee in a session of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.cli_support import running_with

ROOT = Path(__file__).resolve().parents[2]


def stoppable_tournament(db: Path, marker: str) -> subprocess.Popen[str]:
    """Rage for 3, two workers, 9 games: its process group is the referee's own."""
    bot = f"{sys.executable} {ROOT / 'bots' / 'rage_random.py'} {marker}"
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", "rage", "--sandbox", "off",
         "--jobs", "2", "--deals", "3", "--table-size", "3", "--db", str(db),
         f"a={bot}", f"b={bot}", f"c={bot}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)


def ended(run: subprocess.Popen[str]) -> str:
    """Its standard error once it ends (60 s at most, then it is killed)."""
    try:
        return run.communicate(timeout=60)[1]
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()


def bots_left(marker: str) -> bool:
    """Whether a bot of `marker` still runs 10 s on (a loaded machine ends them slowly)."""
    deadline = time.monotonic() + 10
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return running_with(marker)
