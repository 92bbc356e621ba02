"""Issue 13: one table of exit codes, the same in README.md and `referee --help`, and the
codes a CI job relies on when it stops a run: 130 for Ctrl-C, 143 for SIGTERM, from every
command that plays games, with no traceback and no bot left running."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from referee.cli.exit_codes import EXIT_CODES, markdown_table
from tests.cli_support import run_main, running_with

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_holds_the_table_of_every_exit_code() -> None:
    assert markdown_table() in (ROOT / "README.md").read_text()


def test_help_ends_with_every_exit_code() -> None:
    code, out, _ = run_main(["--help"])
    assert code == 0
    listed = re.findall(r"^ +(\d+)  \S", out.split("Exit codes:")[1], re.MULTILINE)
    assert listed == [str(row.code) for row in EXIT_CODES]


def slow_bot(marker: str) -> str:
    """A stdio bot that answers every request, slowly; `marker` finds its processes."""
    return (f"stdio:sh -c ': {marker}; echo HELLO 2 $REFEREE_TOKEN slow 1; while read l; "
            "do case $l in BID*|PLAY*|LEAD*|FOLLOW*) sleep 0.3; set -- $l; echo $2;; "
            "BYE*) exit 0;; esac; done'")


def commands(bot: str) -> dict[str, list[str]]:
    return {
        "play": ["play", "rage", "--seed", "1", bot, bot, bot],
        "check": ["check", "--game", "rage", bot],
        "gate": ["gate", "--game", "rage", "--new", bot, "--baseline", bot,
                 "--opponent", bot, "--delta", "2", "--logs", "LOGS"],
    }


@pytest.mark.parametrize("command, signum, code", [
    ("play", signal.SIGINT, 130), ("play", signal.SIGTERM, 143),
    ("check", signal.SIGTERM, 143), ("gate", signal.SIGINT, 130)])
def test_a_stopped_command_exits_130_or_143_leaving_nothing(
        tmp_path: Path, command: str, signum: int, code: int) -> None:
    marker = f"stop-{uuid.uuid4().hex}"
    args = [arg.replace("LOGS", str(tmp_path / "logs"))
            for arg in commands(slow_bot(marker))[command]]
    run = subprocess.Popen([sys.executable, "-m", "referee", *args], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    deadline = time.monotonic() + 30
    # The referee's own command line holds the marker too: wait for its bots.
    while not running_with(marker, besides=run.pid) and time.monotonic() < deadline:
        time.sleep(0.1)  # its bots are up: the command is mid-game
    time.sleep(0.5)
    # Ctrl-C goes to the terminal's whole process group; SIGTERM to the referee alone.
    os.killpg(run.pid, signum) if signum == signal.SIGINT else run.send_signal(signum)
    _, err = run.communicate(timeout=60)
    assert run.returncode == code, err
    assert "Traceback" not in err, err
    said = "referee: terminated" if signum == signal.SIGTERM else "referee: aborted"
    # one line says how it ended (play's goes on to say what it kept)
    assert err.strip().splitlines()[-1].startswith(said), err
    deadline = time.monotonic() + 10
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running_with(marker), "bot processes left after the stop"
