"""A tournament of slow sample bots in a subprocess, and `referee serve` beside it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.viewer import conftest as viewer

logs = viewer.logs  # the viewer tests' game logs, played once a session

ROOT = Path(__file__).resolve().parents[2]
SLOW = f"{sys.executable} {Path(__file__).with_name('slow_bot.py')}"


def referee(*args: str) -> subprocess.Popen[str]:
    """`referee ARGS` in a process of its own, from the repository's root."""
    return subprocess.Popen([sys.executable, "-m", "referee", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stop(process: subprocess.Popen[str], timeout: float = 20) -> tuple[int, str]:
    """SIGINT (Ctrl-C), then its exit code and standard error."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return process.returncode, err


def wait_for(check: object, timeout: float = 30, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Tournament:
    """A Rage tournament of three bots that sleep 20 ms a move (3 games, one at a time,
    some 3 s each), running in a process of its own."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.process = self.start()

    def start(self) -> subprocess.Popen[str]:
        """The tournament's command (again: it resumes), once its db is there."""
        process = referee("tournament", "rage", *[f"{SLOW} 0.02"] * 3, "--db", str(self.db),
                          "--sandbox", "off", "--jobs", "1")
        wait_for(lambda: self.db.exists() or process.poll() is not None, what="the db")
        assert process.poll() is None, process.communicate()
        return process

    def resume(self) -> None:
        """Ctrl-C, then the same command again."""
        code, err = stop(self.process)
        assert code == 130, err
        self.process = self.start()


@pytest.fixture
def tournament(tmp_path: Path) -> Iterator[Tournament]:
    running = Tournament(tmp_path / "t.sqlite")
    yield running
    stop(running.process)


@pytest.fixture
def server(tournament: Tournament) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`referee serve` on the tournament's db, on a free port: it and its URL."""
    process = referee("serve", str(tournament.db), "--port", "0")
    assert process.stderr is not None
    line = process.stderr.readline()
    assert line.startswith("referee serve: http://127.0.0.1:"), line
    yield process, line.split()[2]
    stop(process)

