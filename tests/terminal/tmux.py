"""A real terminal for the tests: a detached tmux session (200 x 50 unless a test asks for
another size), keys sent to it and its screen read back (capture-pane), as a person
would see it."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

WIDTH, HEIGHT = 200, 50


class Tmux:
    """One tmux session running a shell in `cwd`, on a tmux server of its own;
    `close()` kills it and what runs in it.

    Its own server (its socket in a directory of its own, removed on close), because
    sessions sharing the default one race: when a test kills the last session the server
    exits, and another test's `new-session` that reaches it in that moment fails with
    "server exited unexpectedly"."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None, width: int = WIDTH,
                 height: int = HEIGHT) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed")
        self.name = f"referee-test-{uuid.uuid4().hex[:10]}"
        self.home = Path(tempfile.mkdtemp(prefix="referee-tmux-"))
        exports = [f"-e{key}={value}" for key, value in (env or {}).items()]
        try:
            self.run("new-session", "-d", "-s", self.name, "-x", str(width),
                     "-y", str(height), "-c", str(cwd), *exports, "sh")
        except BaseException:
            self.close()  # no test holds it yet to close it
            raise

    def run(self, *command: str) -> str:
        """A tmux command to this session's own server; what it printed."""
        return subprocess.run(["tmux", "-S", str(self.home / "socket"), *command], check=True,
                              capture_output=True, text=True).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys)

    def type(self, text: str) -> None:
        """Type `text` and press Enter."""
        self.keys(text, literal=True)
        self.keys("Enter")

    def screen(self, escapes: bool = False) -> str:
        """What the pane shows (with its escape sequences if `escapes`)."""
        return self.run("capture-pane", "-p", "-t", self.name, *(["-e"] if escapes else []))

    def wait(self, ready: Callable[[str], bool], timeout: float = 20.0) -> str:
        """The screen once `ready(screen)` holds; fails after `timeout` seconds (a bound
        far above what a game needs, so it does not flake under load)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if ready(screen):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"the terminal did not get there in {timeout} s; it shows:\n"
                            f"{screen}")
            time.sleep(0.02)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", str(self.home / "socket"), "kill-server"],
                       capture_output=True)
        shutil.rmtree(self.home, ignore_errors=True)


def last_line(screen: str) -> str:
    lines = [line for line in screen.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def at_prompt(screen: str) -> bool:
    """The referee waits for the person's move (its prompt, nothing typed yet)."""
    return last_line(screen).rstrip() == ">"


def exit_code(screen: str) -> int | None:
    """The command's exit status, where the test's shell line printed it (`EXIT=N`)."""
    found = re.search(r"^EXIT=(\d+)\s*$", screen, re.M)
    return None if found is None else int(found[1])
