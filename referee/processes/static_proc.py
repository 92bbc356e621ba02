"""Still copies of the /proc files through which one sandbox could watch another's load.

Each sandbox has a /proc of its own, but some of its files tell the whole machine's state:
CPU time and the run queue (/proc/stat), the load and thread count (/proc/loadavg), free
memory (/proc/meminfo, /proc/vmstat) and pressure (/proc/pressure/*). A bot that loads the
machine in a pattern is read by another through them: bench/covert_channels.py measured
6 to 16 bit/s each, and 0 with these copies bound over them (docs/sandbox.md). A copy is
taken once per referee process and never changes, so it still parses as the real file
does (Node's os.cpus(), a JVM's sizing). The run queue reads as this bot alone, and
pressure as none.

Each sandbox gets each copy in a memory file of its own, which bwrap reads once at set-up
(`--ro-bind-data FD`): a shared one would be read from one offset by every bwrap at once.
"""

from __future__ import annotations

import functools
import os
import re

_PRESSURE = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" \
            "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
_STILL = {
    "/proc/loadavg": "0.00 0.00 0.00 1/1 1\n",
    "/proc/pressure/cpu": _PRESSURE,
    "/proc/pressure/memory": _PRESSURE,
    "/proc/pressure/io": _PRESSURE,
}
_COPIED = ("/proc/stat", "/proc/meminfo", "/proc/vmstat")


@functools.cache
def still_files() -> tuple[tuple[str, bytes], ...]:
    """(path in the sandbox, content) for each such file this machine has."""
    found = []
    for path in _COPIED:
        text = _read(path)
        if text is not None:
            if path == "/proc/stat":
                text = re.sub(r"(?m)^procs_running \d+$", "procs_running 1", text)
                text = re.sub(r"(?m)^procs_blocked \d+$", "procs_blocked 0", text)
            found.append((path, text.encode()))
    found += [(path, text.encode()) for path, text in _STILL.items()
              if os.path.exists(path)]
    return tuple(found)


def memory_files() -> list[tuple[str, int]]:
    """(path in the sandbox, a new memory file holding its copy, at offset 0) for each;
    the caller closes them once bwrap has started."""
    made: list[tuple[str, int]] = []
    try:
        for path, content in still_files():
            fd = os.memfd_create("proc-copy", os.MFD_CLOEXEC)
            made.append((path, fd))
            os.write(fd, content)
            os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        for _, fd in made:
            os.close(fd)
        raise
    return made


def bwrap_options(files: list[tuple[str, int]]) -> list[str]:
    """bwrap's options that bind each copy, readable by the bot's uid, over its file."""
    options: list[str] = []
    for path, fd in files:
        options += ["--perms", "0444", "--ro-bind-data", str(fd), path]
    return options


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.read()
    except OSError:
        return None
