"""Reaping the orphans that come to the referee, so their zombie entries do not pile up.

A killed sandbox leaves bwrap's inner process (its PID namespace's init) an orphan: bwrap's
outer process, our child, dies first. A trusted bot's double fork leaves orphans too.
Orphans go to the nearest "child subreaper" above them, else to the PID namespace's init.
A process that starts bots makes itself a subreaper (become_subreaper), so they come to
it, whether or not it is PID 1 (in a container without --init it is, and nothing else
would reap them), and it reaps them (reap_orphans) at each bot start and kill.

Only orphans: a child some code here will wait for keeps its exit status for that code.
Those are the children in our own process group (pool workers, probes: whatever Python
starts by default) and the ones the caller claims (each bot's leader until its
BotProcess reaped it, the sentinel). A child this process starts in a group of its own
must be claimed from before it starts (see live_bots.REGISTRY.starting).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
_subreaper_pid = 0  # the process that made itself one: a forked child is not one


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (once per process; the
    setting is not inherited through fork). False where the system does not allow it."""
    global _subreaper_pid
    if _subreaper_pid == os.getpid():
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):  # no prctl: not Linux
        return False
    _subreaper_pid = os.getpid()
    return True


def reap_orphans(claimed: Callable[[int], bool]) -> int:
    """Reap every exited child that is an orphan, not waiting for any; how many.

    Usually one system call: a peek (WNOWAIT) at the first exited child says there is
    none. Only when that child is someone else's does it read the list of our children
    (/proc/self/task/*/children, a file per thread of ours) to look past it."""
    reaped = 0
    while True:
        first = _first_exited()
        if first is None:
            return reaped
        if not _orphan(first, claimed):
            return reaped + _reap_past(first, claimed)
        reaped += _reap(first)


def _reap_past(first: int, claimed: Callable[[int], bool]) -> int:
    """Reap the orphans among our exited children other than `first`."""
    return sum(_reap(pid) for pid in _children()
               if pid != first and _exited(pid) and _orphan(pid, claimed))


def _first_exited() -> int | None:
    try:
        info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # no child at all
        return None
    return None if info is None or info.si_pid == 0 else info.si_pid


def _exited(pid: int) -> bool:
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped meanwhile, or not ours
        return False
    return info is not None and info.si_pid == pid


def _orphan(pid: int, claimed: Callable[[int], bool]) -> bool:
    if claimed(pid):
        return False
    try:
        return os.getpgid(pid) != os.getpgrp()
    except ProcessLookupError:
        return False


def _reap(pid: int) -> int:
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG)
    except ChildProcessError:
        return 0
    return 0 if info is None or info.si_pid == 0 else 1


def _children() -> list[int]:
    """Our children, from each of our threads' list (empty where the kernel keeps none)."""
    found = []
    try:
        threads = os.listdir("/proc/self/task")
    except OSError:
        return []
    for thread in threads:
        try:
            with open(f"/proc/self/task/{thread}/children", "rb") as f:
                found += [int(pid) for pid in f.read().split()]
        except OSError:  # the thread ended, or no CONFIG_PROC_CHILDREN
            continue
    return found
