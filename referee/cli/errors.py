"""How a command ends when it did not run to its end: one line, a documented exit code."""

from __future__ import annotations

import os
import sys


class Stopped(Exception):
    """The run was stopped (Ctrl-C: 130, SIGTERM: 143); the message says what was kept."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def quiet_stdout() -> None:
    """Standard output to /dev/null, once its reader is gone: Python's last flush at exit
    would otherwise fail and print a traceback (the Python docs' advice for SIGPIPE)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test's capture): nothing will fail at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
