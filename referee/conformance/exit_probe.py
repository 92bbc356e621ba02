"""`python -m referee.conformance.exit_probe ARGV...`: run a bot, and when it exits say how,
and which of its processes it left running.

`referee check` starts the bot of its BYE session through this probe. In a sandbox the
kernel kills whatever a bot leaves the moment its main process ends, so only a process
inside can still see it: the probe waits for the bot, then looks. It reports one line on
its standard error (`REPORT` below, JSON after it), the last it writes there, and exits
with the bot's exit code.

The bot shares the sandbox, so it could write a report of its own ("code 0, nothing
left") and hang, or leave a child that writes one after ours. So the bot never holds the
probe's standard error: what it writes there (and its standard output, where that goes
to the same place, as a ZeroMQ bot's does) passes through a pipe the probe relays, and
the relay stops before the report is written. The probe is made non-dumpable, so the bot
cannot reopen the probe's own descriptors through /proc/PID/fd. The referee accepts a
report only as the last line, from a probe that exited by itself (bye.py).

What counts as the bot's: in a sandbox (no $REFEREE_PROCESS_TAG), every process of the PID
namespace but its init (pid 1) and the probe; without one, every process of the probe's
process group or carrying the bot's tag in its environment, as the referee's kill finds
them (referee.processes.tagged_kill). Zombies are dead. Standard library only: it runs
inside the bot's sandbox, started by the referee's own interpreter.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import subprocess
import sys
import threading
import time

REPORT = "referee-exit-probe:"
TAG_VARIABLE = "REFEREE_PROCESS_TAG"  # referee.processes.bot_process sets it, outside a sandbox
SIGNAL_EXIT_BASE = 128
_PR_SET_DUMPABLE = 4  # prctl(2)
_CHUNK = 64 * 1024
_POLL = 0.05  # seconds: how often the relay looks whether it was stopped
_FINAL_READS = 16  # the bot's last words, bounded: a leftover child could write forever


def main(argv: list[str]) -> int:
    _not_dumpable()
    read_fd, write_fd = os.pipe()  # not inheritable: the bot gets only its dup on fd 2
    shared = _same_file(1, 2)
    try:
        bot = subprocess.Popen(argv, stderr=write_fd, stdout=write_fd if shared else None)
    except OSError as error:
        print(f"exit probe: cannot start {argv[0]!r}: {error.strerror}", file=sys.stderr)
        return 127
    finally:
        os.close(write_fd)
    relay = _Relay(read_fd)
    code = bot.wait()
    ended = time.monotonic()  # CLOCK_MONOTONIC: the referee's clock too, sandbox or not
    left = leftovers()
    relay.stop()  # nothing the bot's processes write from now on reaches our stderr
    report = {"code": code, "ended": ended, "left": left}
    print(REPORT + json.dumps(report), file=sys.stderr, flush=True)
    return exit_status(code)


def exit_status(code: int) -> int:
    """The probe's own exit status after a bot that ended with `code` (negative: killed by
    that signal). The referee takes a report as the probe's only when the two agree: a bot
    that kills its probe to leave a forged line last cannot make them."""
    return code if code >= 0 else SIGNAL_EXIT_BASE - code


class _Relay:
    """Copies the bot's output from `fd` to our stderr until stop(); reads and writes under
    one lock, so stop() neither loses nor reorders what was read."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._lock = threading.Lock()
        self._stopped = False
        threading.Thread(target=self._run, daemon=True).start()

    def stop(self) -> None:
        """Relay what the pipe holds now (bounded), then nothing more."""
        with self._lock:
            self._copy(_FINAL_READS)
            self._stopped = True

    def _run(self) -> None:
        while True:
            select.select([self._fd], [], [], _POLL)
            with self._lock:
                if self._stopped or not self._copy(1):
                    return

    def _copy(self, reads: int) -> bool:
        """Up to `reads` reads passed on; False at end of file."""
        for _ in range(reads):
            try:
                data = os.read(self._fd, _CHUNK)
            except BlockingIOError:
                return True
            if not data:
                return False
            _write_all(2, data)
        return True


def _write_all(fd: int, data: bytes) -> None:
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass  # the referee's end is gone: nothing to keep the bot's words for


def _same_file(fd: int, other: int) -> bool:
    try:
        one, two = os.fstat(fd), os.fstat(other)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def _not_dumpable() -> None:
    """Keep processes of our user (the bot's) out of our /proc/PID/fd and from ptrace.
    execve makes the bot dumpable again, as any program."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no libc to call: the relay still keeps our stderr from the bot


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
