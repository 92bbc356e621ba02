"""Real `referee` processes for the remote seats' tests: the organiser's command, the
contestants' `referee connect`, their keys, and reading what they say as they say it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from referee.transport.curve_keys import write_key_pair

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
SLOW = Path(__file__).resolve().parent / "bots" / "slow_first.sh"
CRASHING = Path(__file__).resolve().parent / "bots" / "crash_after.sh"
RANDOM = f"python {BOTS / 'rage_random.py'}"
WAIT = 30.0  # the most any step waits for: far beyond what each takes on a quiet machine


def make_keys(folder: Path, *names: str) -> None:
    """folder/NAME.key and NAME.pub for each name."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        write_key_pair(name, folder)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Running:
    """A `referee` process (or a python `script`'s) whose stderr lines are collected as
    they come."""

    def __init__(self, args: Sequence[str], cwd: Path, env: dict[str, str] | None = None,
                 script: Path | None = None) -> None:
        program = ["-m", "referee"] if script is None else [str(script)]
        self.process = subprocess.Popen(
            [sys.executable, *program, *args], cwd=cwd, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
        self.lines: list[str] = []
        self.out = ""
        self._changed = threading.Condition()
        self._readers = [threading.Thread(target=self._read_err, daemon=True),
                         threading.Thread(target=self._read_out, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_err(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def _read_out(self) -> None:
        assert self.process.stdout is not None
        self.out = self.process.stdout.read()

    @property
    def err(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, text: str, timeout: float = WAIT) -> None:
        """Until a stderr line holds `text`; AssertionError past `timeout`."""
        end = time.monotonic() + timeout
        with self._changed:
            while not any(text in line for line in self.lines):
                left = end - time.monotonic()
                assert left > 0 and self.process.poll() is None or \
                    any(text in line for line in self.lines), \
                    f"no {text!r} in:\n{self.err}"
                self._changed.wait(min(max(left, 0.01), 0.1))

    def finish(self, timeout: float = WAIT) -> int:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running after {timeout:.0f} s; its stderr:\n"
                                 f"{self.err}") from None
        for reader in self._readers:
            reader.join(5)
        return code

    def kill(self) -> None:
        """SIGKILL, as a machine that dies: nothing is said on the wire."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        """In a test's finally: gone, whatever happened."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()


def connect(folder: Path, port: int, name: str, bot: str,
            server_key: Path, env: dict[str, str] | None = None) -> Running:
    """A contestant's `referee connect`, run in their own `folder` (their key there)."""
    return Running(["connect", f"tcp://127.0.0.1:{port}", "--key", f"{name}.key",
                    "--server-key", str(server_key), "--", bot], folder, env)
