"""Every command stopped by Ctrl-C exits 130, by SIGTERM 143 (README, exit codes), with one
line and no traceback, and leaves no bot process. (Tournaments: tests/tournaments.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.referee.fault_bots.support import marked_running

ROOT = Path(__file__).resolve().parents[2]


def slow_bot(marker: str) -> str:
    """A Rage bot over stdio that takes 0.2 s a reply; `marker` is in its command line."""
    return (f"stdio:sh -c ': {marker}; echo HELLO 2 $REFEREE_TOKEN slow 1; while read l; "
            "do case $l in BID\\?*|PLAY\\?*) sleep 0.2; set -- $l; echo $2;; BYE*) exit 0;; "
            "esac; done'")


def commands(bot: str, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "play": ["play", "rage", "--seed", "1", bot, bot, bot],
        "gate": ["gate", "--game", "rage", "--new", bot, "--baseline", bot, "--opponent", bot,
                 "--opponent", bot, "--delta", "1", "--logs", str(tmp_path / "logs")],
    }


@pytest.mark.parametrize("command", ["play", "gate"])
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_command_with_its_exit_code(tmp_path: Path, command: str,
                                                        signum: int, code: int) -> None:
    marker = f"interrupt-{tmp_path.name}"
    args = [sys.executable, "-m", "referee", *commands(slow_bot(marker), tmp_path)[command]]
    run = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    time.sleep(3)  # bots started, a game in play (each reply takes 0.2 s)
    # Ctrl-C goes to the whole group, as a terminal sends it
    os.killpg(run.pid, signum) if signum == signal.SIGINT else run.send_signal(signum)
    _, err = run.communicate(timeout=60)
    assert run.returncode == code, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("referee: ")
    deadline = time.monotonic() + 10
    while marked_running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not marked_running(marker), "bot processes left after the signal"

