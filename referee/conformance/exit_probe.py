"""`python -m referee.conformance.exit_probe ARGV...`: run a bot, and when it exits say how,
and which of its processes it left running.

`referee check` starts the bot of its BYE session through this probe. In a sandbox the
kernel kills whatever a bot leaves the moment its main process ends, so only a process
inside can still see it: the probe waits for the bot, then looks. It reports one line on
its standard error (`REPORT` below, JSON after it) and exits with the bot's exit code.

What counts as the bot's: in a sandbox (no $REFEREE_PROCESS_TAG), every process of the PID
namespace but its init (pid 1) and the probe; without one, every process of the probe's
process group or carrying the bot's tag in its environment, as the referee's kill finds
them (referee.processes.tagged_kill). Zombies are dead. Standard library only: it runs
inside the bot's sandbox, started by the referee's own interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

REPORT = "referee-exit-probe:"
TAG_VARIABLE = "REFEREE_PROCESS_TAG"  # referee.processes.bot_process sets it, outside a sandbox
SIGNAL_EXIT_BASE = 128


def main(argv: list[str]) -> int:
    try:
        bot = subprocess.Popen(argv)
    except OSError as error:
        print(f"exit probe: cannot start {argv[0]!r}: {error.strerror}", file=sys.stderr)
        return 127
    code = bot.wait()
    ended = time.monotonic()  # CLOCK_MONOTONIC: the referee's clock too, sandbox or not
    left = leftovers()
    report = {"code": code, "ended": ended, "left": left}
    print(REPORT + json.dumps(report), file=sys.stderr, flush=True)
    return code if code >= 0 else SIGNAL_EXIT_BASE - code


def leftovers() -> list[str]:
    """The bot's processes still running, as 'PID COMMAND' (the command shortened)."""
    tag = os.environ.get(TAG_VARIABLE)
    mine = {os.getpid(), 1} if tag is None else {os.getpid()}
    group = os.getpgid(0)
    found = []
    for pid in _pids():
        if pid in mine:
            continue
        stat = _stat(pid)
        if stat is None or stat[0] == "Z":
            continue
        if tag is None or int(stat[2]) == group or _tagged(pid, f"{TAG_VARIABLE}={tag}"):
            found.append(f"{pid} {_command(pid)}")
    return found


def _pids() -> list[int]:
    return sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _tagged(pid: int, entry: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return entry.encode() in environ.read().split(b"\0")
    except OSError:
        return False


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read().split(b"\0")
    except OSError:
        return "?"
    return b" ".join(w for w in words if w).decode("utf-8", "replace")[:200]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
