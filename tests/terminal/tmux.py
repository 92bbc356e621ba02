"""A real terminal for the tests: a detached tmux session (200 x 50), keys sent to it and
its screen read back (capture-pane), as a person would see it."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

WIDTH, HEIGHT = 200, 50


class Tmux:
    """One tmux session running a shell in `cwd`; `close()` kills it and what runs in it."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed")
        self.name = f"referee-test-{uuid.uuid4().hex[:10]}"
        exports = [f"-e{key}={value}" for key, value in (env or {}).items()]
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(WIDTH),
                        "-y", str(HEIGHT), "-c", str(cwd), *exports, "sh"], check=True)

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *(["-l"] if literal else []),
                        *keys], check=True)

    def type(self, text: str) -> None:
        """Type `text` and press Enter."""
        self.keys(text, literal=True)
        self.keys("Enter")

    def screen(self, escapes: bool = False) -> str:
        """What the pane shows (with its escape sequences if `escapes`)."""
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name,
                               *(["-e"] if escapes else [])], check=True,
                              capture_output=True, text=True).stdout

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
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


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
