"""How a command ends when it did not run to its end: one line, a documented exit code."""

from __future__ import annotations


class Stopped(Exception):
    """The run was stopped (Ctrl-C: 130, SIGTERM: 143); the message says what was kept."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code
