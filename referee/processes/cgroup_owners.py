"""Whose `referee-...` cgroup root is whose, and which owners are provably gone.

Each referee process makes its bots' groups under a root of its own, removed at its exit;
a killed referee leaves its root behind, and the next referee to start sweeps it. Referees
in different PID namespaces (containers, `unshare --pid`) share the cgroup tree, and a pid
means nothing outside its namespace: a root named by the pid alone looks dead to a referee
that cannot see that pid, and sweeping a live referee's empty root leaves its later bots
with no cgroup, so with no limits over all their processes. So a root is named
`referee-<namespace>-<pid>-<start>`: the owner's PID namespace (the inode of
/proc/self/ns/pid), its pid there, and its start time in clock ticks after boot (0 when
unknown), so that a reused pid is not taken for the owner. A root is swept only where its
owner is provably gone:
- of our own namespace: no process has its pid, or the one that has it started at
  another time;
- of another namespace: only by a root referee of the initial PID namespace (which sees
  every process), when no process at all is left in that namespace.
Anything else (a name of another form, a process we may not inspect) is left alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_INITIAL_PID_NAMESPACE = 0xEFFFFFFC  # PROC_PID_INIT_INO, include/linux/proc_ns.h
_INITIAL_TIME_NAMESPACE = 0xEFFFFFFA  # PROC_TIME_INIT_INO
_UNKNOWN = 0


@dataclass(frozen=True)
class Owner:
    """The referee process a cgroup root belongs to."""

    namespace: int  # inode of its /proc/PID/ns/pid; 0: unknown
    pid: int  # in that namespace
    start: int  # clock ticks after boot, as the initial time namespace reads them; 0: unknown

    @property
    def root_name(self) -> str:
        return f"referee-{self.namespace}-{self.pid}-{self.start}"

    @classmethod
    def of_root(cls, name: str) -> Owner | None:
        """The owner a root's folder name gives, None for any other name."""
        words = name.split("-")
        if len(words) != 4 or words[0] != "referee":
            return None
        if not all(word.isascii() and word.isdigit() for word in words[1:]):
            return None
        return cls(int(words[1]), int(words[2]), int(words[3]))


def this_process() -> Owner:
    """This process, as it names its root."""
    start = _start_time("self") if _boot_clock_is_the_hosts() else None
    return Owner(_namespace("self") or _UNKNOWN, os.getpid(), start or _UNKNOWN)


class Liveness:
    """Tells owners provably gone from the rest, as seen from this process."""

    def __init__(self, me: Owner) -> None:
        self._me = me
        # /proc may show another PID namespace (`unshare --pid` without --mount-proc):
        # then its start times and namespaces are not of our pids.
        self._proc_is_ours = _proc_pid() == me.pid
        self._namespaces: set[int] | None = None  # in use; read at the first need

    def gone(self, owner: Owner) -> bool:
        if owner == self._me or owner.namespace == _UNKNOWN or self._me.namespace == _UNKNOWN:
            return False
        if owner.namespace == self._me.namespace:
            return self._pid_gone(owner)
        return self._may_see_every_namespace() and owner.namespace not in self._in_use()

    def _pid_gone(self, owner: Owner) -> bool:
        try:
            os.kill(owner.pid, 0)  # our namespace's pids, whatever /proc shows
        except ProcessLookupError:
            return True
        except PermissionError:
            pass  # someone else's process: it exists
        if owner.start == _UNKNOWN or not self._proc_is_ours or not _boot_clock_is_the_hosts():
            return False
        start = _start_time(str(owner.pid))
        return start is not None and start != owner.start  # a reused pid

    def _may_see_every_namespace(self) -> bool:
        return (self._me.namespace == _INITIAL_PID_NAMESPACE and self._proc_is_ours
                and os.geteuid() == 0)  # root: no process hidden, every one inspectable

    def _in_use(self) -> set[int]:
        if self._namespaces is None:
            self._namespaces = _namespaces_in_use()
        return self._namespaces


def _namespaces_in_use() -> set[int]:
    """The PID namespaces of every process visible (a process gone meanwhile is skipped)."""
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            namespace = _namespace(entry)
            if namespace is not None:
                found.add(namespace)
    return found


def _namespace(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return None


def _start_time(pid: str) -> int | None:
    """Field 22 of /proc/PID/stat (after the command name, which may hold spaces)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _boot_clock_is_the_hosts() -> bool:
    """Start times are read through this process's time namespace: comparable between
    referees only in the initial one (or where the kernel has none)."""
    try:
        return os.stat("/proc/self/ns/time").st_ino == _INITIAL_TIME_NAMESPACE
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _proc_pid() -> int | None:
    """This process's pid in the namespace /proc shows."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return None
