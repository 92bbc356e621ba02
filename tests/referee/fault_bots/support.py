"""Helpers shared by the transport and fault tests: bot commands and process checks."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from referee.processes.bot_command import BotCommand, parse_bot_command
from referee.processes.cgroups import CgroupRoot

MISBEHAVE = Path(__file__).with_name("misbehave.py")


def misbehave(mode: str, nth: int = 1, stdio: bool = False) -> BotCommand:
    """The command that runs misbehave.py MODE N over ZeroMQ or stdio."""
    prefix = "stdio:" if stdio else ""
    return parse_bot_command(f"{prefix}python {MISBEHAVE} {mode} {nth}")


def argv_command(*argv: str, stdio: bool = False) -> BotCommand:
    """A command from an explicit argv (`python` means this interpreter)."""
    args = tuple(sys.executable if a == "python" else a for a in argv)
    return BotCommand(text=" ".join(argv), argv=args, stdio=stdio)


def alive(pid: int) -> bool:
    """Is `pid` a live process? A zombie is dead (init may reap it late)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def marked_running(marker: str) -> bool:
    """Whether a live process has `marker` in its command line (sandboxed ones too: the
    host's /proc sees into every PID namespace)."""
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    return True
        except OSError:
            continue
    return False


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def wait_until(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll `check()` until it is true or `timeout` passes; its last value. Returns as soon
    as it is true: the timeout only allows for a loaded machine."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return bool(check())
        time.sleep(0.01)
    return True


def expected_limits_holder() -> str:
    """What holds a bot's memory and process limits on this machine (BotProcess)."""
    root = CgroupRoot.find()
    return "rlimits" if root is None else f"cgroup v{root.version}"
