"""A SIGKILLed referee's socket folder is swept by the next referee, and nothing else is:
not a live referee's, not a folder of another form or of another user (issue 26)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.processes.cgroup_owners import this_process
from referee.transport.socket_folders import owner_of, sweep

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"python {ROOT / 'bots' / 'rage_random.py'}"
# Never says HELLO: the referee waits for it, its sockets' folder in place.
SILENT = "python -c 'import time; time.sleep(30)'"
TMP = Path(tempfile.gettempdir())


def referee(*bots: str, startup: str = "60") -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "referee", "play", "rage", "--seed", "1",
                             "--startup-time", startup, *bots], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def folders_of(pid: int) -> list[Path]:
    return [TMP / name for name in os.listdir(TMP)
            if (owner := owner_of(name)) is not None and owner.pid == pid]


def wait_for_bot_folder(process: subprocess.Popen[bytes]) -> Path:
    """The referee's socket folder, once a bot's folder is in it (within 60 s)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for folder in folders_of(process.pid):
            if any(entry.name.startswith("bot-") for entry in folder.iterdir()):
                return folder
        assert process.poll() is None, "the referee ended before its bots started"
        time.sleep(0.05)
    raise AssertionError("no socket folder appeared")


@pytest.fixture
def running() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Referees started by a test, each ended (SIGTERM, then SIGKILL) when it is done."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_the_next_referee_sweeps_a_killed_referees_folder_only(
        running: list[subprocess.Popen[bytes]]) -> None:
    killed = referee(RANDOM, RANDOM, SILENT)
    running.append(killed)
    left = wait_for_bot_folder(killed)
    killed.send_signal(signal.SIGKILL)
    killed.wait(30)
    assert left.is_dir(), "a SIGKILLed referee cannot remove its folder"

    live = referee(RANDOM, RANDOM, SILENT)
    running.append(live)
    kept = wait_for_bot_folder(live)
    other_form = Path(tempfile.mkdtemp(prefix="referee-", dir=TMP))  # no owner in its name
    try:
        done = referee(RANDOM, RANDOM, RANDOM, startup="20")
        running.append(done)
        assert done.wait(120) == 0
        assert not left.exists(), "the killed referee's folder is swept"
        assert kept.is_dir(), "a live referee's folder stays"
        assert other_form.is_dir(), "a folder whose name names no owner is not ours"
        assert folders_of(done.pid) == [], "the new referee removed its own at its end"
    finally:
        other_form.rmdir()


def test_a_gone_owners_folder_of_another_user_or_a_symlink_stays(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is free now
    name = f"referee-{this_process().namespace}-{dead.pid}-0"
    (tmp_path / f"{name}-mine").mkdir()
    (tmp_path / f"{name}-link").symlink_to(tmp_path / f"{name}-mine")
    (tmp_path / f"{name}-theirs").mkdir()
    (tmp_path / f"{name}-live").mkdir()
    os.rename(tmp_path / f"{name}-live", tmp_path / f"{this_process().root_name}-live")
    if os.geteuid() == 0:
        os.chown(tmp_path / f"{name}-theirs", 65534, 65534)
    removed = sweep(tmp_path)
    assert tmp_path / f"{name}-mine" in removed
    assert (tmp_path / f"{name}-link").is_symlink()
    assert (tmp_path / f"{this_process().root_name}-live").is_dir()
    if os.geteuid() == 0:
        assert (tmp_path / f"{name}-theirs").is_dir(), "another user's is none of ours"
