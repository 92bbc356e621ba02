"""Killing a bot whole: its process group, then every process that carries its tag
($REFEREE_PROCESS_TAG) in its environment, found by a /proc sweep. A trusted
(unsandboxed) bot's processes carry it; a sandboxed bot's bwrap processes do.

Its own module, with no imports of ours, so that the sentinel process can use it alone.
"""

from __future__ import annotations

import os
import signal

_SWEEPS = 5  # tagged processes may fork while being killed: look again, this many times


def kill_group_and_tagged(pgid: int, tag: bytes) -> None:
    """SIGKILL a bot's process group, then whatever carries its tag outside the group."""
    signal_group(pgid)
    kill_tagged({tag})


def kill_tagged(tags: set[bytes]) -> None:
    """SIGKILL every process whose environment holds one of `tags` (NAME=value entries)."""
    if not tags:
        return
    for _ in range(_SWEEPS):
        tagged = [pid for pid in _pids() if not tags.isdisjoint(_environment(pid))]
        if not tagged:
            return
        for pid in tagged:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _pids() -> list[int]:
    try:
        return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:  # no /proc: the group kill is all there is
        return []


def _environment(pid: int) -> list[bytes]:
    """A process's environment entries; empty if it is gone, a zombie or not ours."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def signal_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone
