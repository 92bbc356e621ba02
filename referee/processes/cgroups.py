"""A cgroup per bot: limits that count all of a bot's processes, CPU accounting, a fair share
of the CPU, a whole kill.

cgroup v1 (a hierarchy per controller: memory, pids, cpuacct, freezer; cpu and cpuset where
mounted) and v2 (one unified hierarchy) are both used where this process may create child
groups, which needs
root or a delegated subtree. Elsewhere `CgroupRoot.find()` gives None and the caller falls
back to per-process rlimits. Every bot's group sits in one parent per referee process,
`referee-<pid namespace>-<pid>-<start time>`, made below the referee's own group and removed
at its exit (or, if it was killed, by the next referee that starts and can tell it is gone:
referee.processes.cgroup_owners).
"""

from __future__ import annotations

import atexit
import errno
import itertools
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from referee.processes.cgroup_owners import Liveness, Owner, this_process

_V1_CONTROLLERS = ("memory", "pids", "cpuacct", "freezer")
# Fairness, where the machine has them: each bot's group gets the same CPU weight however
# many processes or sessions it makes (a bot of 200 spinning processes weighs what a bot of
# one does), and a cpuset holds all of them on the CPUs the referee runs on when it starts
# them (a tournament worker's pin), which sched_setaffinity cannot leave.
_FAIRNESS = ("cpu", "cpuset")
_V2_CONTROLLERS = ("memory", "pids")
_HELPER_PROCESSES = 2  # bwrap and the sandbox's init count against a bot's pids.max
_KILL_ROUNDS = 20
_REMOVE_WAIT = 2.0


@dataclass(frozen=True)
class CgroupRoot:
    """Where this referee process makes its bots' groups: one folder per hierarchy."""

    version: int
    parents: tuple[Path, ...]  # v1: one per controller in _V1_CONTROLLERS order, then
    # those of _FAIRNESS mounted apart from them; v2: one
    cpuset: int | None = None  # which parent holds the cpuset controller, if any
    cpuset_mems: str = ""  # v1: the memory nodes every bot's cpuset is given (the root's)

    @classmethod
    def find(cls) -> CgroupRoot | None:
        """This process's parent group for bots, made now; None where none can be made."""
        return _ROOT.get()

    def new_group(self, memory_bytes: int | None, processes: int | None) -> BotCgroup:
        """A new, empty group with these limits; OSError if the kernel refuses."""
        name = f"bot-{next(_COUNTER)}"
        dirs = tuple(parent / name for parent in self.parents)
        for folder in dirs:
            folder.mkdir()
        group = BotCgroup(self.version, dirs)
        try:
            group.limit(memory_bytes, processes)
        except OSError:
            group.remove()
            raise
        if self.cpuset is not None and not _pin(dirs[self.cpuset], self.cpuset_mems):
            group.leave(dirs[self.cpuset])  # no pin rather than no group
        return group


    def kill_all(self) -> None:
        """Kill every bot group under this root and remove them and the root: for the
        sentinel, once the process that made them is gone."""
        names = {child.name for parent in self.parents for child in _bot_groups(parent)}
        for name in sorted(names):
            group = BotCgroup(self.version, tuple(parent / name for parent in self.parents))
            group.kill()
            group.remove()
        for parent in self.parents:
            _rmdir_quietly(parent)


class BotCgroup:
    """One bot's group. The child enters it before exec (enter_self), so all it starts
    is inside from the first instruction."""

    def __init__(self, version: int, dirs: tuple[Path, ...]) -> None:
        self.version = version
        self.dirs = dirs
        # Encoded once: enter_self runs between fork and exec, where little is safe.
        self._procs_files = [str(d / "cgroup.procs").encode() for d in dirs]
        self._cpu_fd: int | None = None  # kept open: --clock cpu reads it every request

    def limit(self, memory_bytes: int | None, processes: int | None) -> None:
        v1 = self.version == 1
        memory_dir = self.dirs[0]
        pids_dir = self.dirs[1] if v1 else self.dirs[0]
        if memory_bytes is not None:
            _write(memory_dir / ("memory.limit_in_bytes" if v1 else "memory.max"), memory_bytes)
            if not v1:
                _write_optional(memory_dir / "memory.swap.max", 0)
        if processes is not None:
            _write(pids_dir / "pids.max", processes + _HELPER_PROCESSES)

    def leave(self, folder: Path) -> None:
        """Do without one of the group's folders (before any process enters it)."""
        _rmdir_quietly(folder)
        self.dirs = tuple(d for d in self.dirs if d != folder)
        self._procs_files = [str(d / "cgroup.procs").encode() for d in self.dirs]

    def enter_self(self) -> None:
        """Move the calling process into the group (called in the child, before exec)."""
        for path in self._procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def pids(self) -> list[int]:
        """The processes in the group now."""
        found: set[int] = set()
        for path in self._procs_files:
            found.update(_read_pids(path))
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL every process in the group, frozen first so none can fork meanwhile.
        (v1: not in the first round, which mostly finds only the sandbox's init, already
        dying after its bot's exit: a child forked meanwhile is caught frozen in the next.)"""
        if self.version == 2 and _write_optional(self.dirs[0] / "cgroup.kill", 1):
            return
        freezer = self.dirs[3] / "freezer.state" if self.version == 1 else None
        for round_ in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return
            if freezer is not None and round_ > 0:
                _write_optional(freezer, "FROZEN")
            for pid in pids:
                _kill(pid)
            if freezer is not None and round_ > 0:
                _write_optional(freezer, "THAWED")  # a frozen process cannot die
            time.sleep(0.001)

    def oom_killed(self) -> bool:
        """Did the kernel kill a process of this bot for going over its memory limit?"""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            text = (self.dirs[0] / name).read_text()
        except OSError:
            return False
        fields = dict(line.split() for line in text.splitlines() if len(line.split()) == 2)
        return int(fields.get("oom_kill", "0")) > 0

    def cpu_seconds(self) -> float:
        """CPU time used by all of the bot's processes so far (0 if unreadable)."""
        try:
            if self._cpu_fd is None:
                name = self.dirs[2] / "cpuacct.usage" if self.version == 1 else \
                    self.dirs[0] / "cpu.stat"
                self._cpu_fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC)
            # pread from 0: the kernel writes the file afresh for every read from its start
            words = os.pread(self._cpu_fd, 4096, 0).split()
            if self.version == 1:
                return int(words[0]) / 1e9
            return int(words[words.index(b"usage_usec") + 1]) / 1e6
        except (OSError, ValueError, IndexError):
            return 0.0

    def remove(self) -> None:
        """Remove the group's folders once its processes are gone (kill first)."""
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None
        deadline = time.monotonic() + _REMOVE_WAIT
        for folder in self.dirs:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        break  # left behind, empty of processes; swept at the next start
                    time.sleep(0.005)


def _write(path: Path, value: object) -> None:
    """One write(2), with the flags of open(path, "w"), as the kernel's control files
    want it (no text layer: each bot's start and end writes several)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def _write_optional(path: Path, value: object) -> bool:
    try:
        _write(path, value)
    except OSError:
        return False
    return True


def _read_pids(path: bytes) -> list[int]:
    """The pids a cgroup.procs file lists (read by fd: every bot's kill reads each
    hierarchy's at least once)."""
    chunks = []
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(fd)
        return [int(word) for word in b"".join(chunks).split()]
    except (OSError, ValueError):
        return []


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_COUNTER = itertools.count(1)  # bot-1, bot-2, ... under this referee's group


class _RootCache:
    """The CgroupRoot of this process, found once per process (a fork finds its own)."""

    def __init__(self) -> None:
        self._pid = -1
        self._root: CgroupRoot | None = None
        self._lock = threading.Lock()

    def get(self) -> CgroupRoot | None:
        with self._lock:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._root = _make_root()
            return self._root


_ROOT = _RootCache()


def _make_root() -> CgroupRoot | None:
    mounts = _cgroup_mounts()
    own = _own_groups()
    me = this_process()
    name = me.root_name
    v1 = [_joined(mounts.get(c), own.get(c)) for c in _V1_CONTROLLERS]
    if all(path is not None for path in v1):
        required = [p / name for p in v1 if p is not None]
        return _made(1, required, _v1_fairness(mounts, own, name), me)
    unified = _joined(mounts.get(""), own.get(""))
    if unified is not None and _enable_v2(unified):
        return _made(2, [unified / name], {c: unified / name for c in _v2_fairness(unified)},
                     me)
    return None


def _v1_fairness(mounts: dict[str, tuple[Path, str]], own: dict[str, str],
                 name: str) -> dict[str, Path]:
    """Controller -> this referee's folder, for the fairness controllers mounted here (one
    mounted with another, as cpu with cpuacct, shares its folder)."""
    found = {}
    for controller in _FAIRNESS:
        path = _joined(mounts.get(controller), own.get(controller))
        if path is not None:
            found[controller] = path / name
    return found


def _made(version: int, required: list[Path], fairness: dict[str, Path],
          me: Owner) -> CgroupRoot | None:
    parents = list(dict.fromkeys([*required, *fairness.values()]))
    made: list[Path] = []
    liveness = Liveness(me)
    try:
        for parent in parents:
            _sweep_stale(parent.parent, liveness)
            parent.mkdir(exist_ok=True)
            made.append(parent)
        if version == 2:
            wanted = " ".join(f"+{c}" for c in (*_V2_CONTROLLERS, *fairness))
            _write(parents[0] / "cgroup.subtree_control", wanted)
    except OSError:
        for folder in made:
            _rmdir_quietly(folder)
        return None
    atexit.register(_remove_parents, tuple(parents), os.getpid())
    cpuset, mems = fairness.get("cpuset"), None
    if cpuset is not None and version == 1:
        mems = _inherit_cpuset(cpuset)
        if mems is None:
            cpuset = None  # an empty v1 cpuset would refuse every bot: no pin
    return CgroupRoot(version, tuple(parents), None if cpuset is None else parents.index(cpuset),
                      mems or "")


def _enable_v2(group: Path) -> bool:
    return all(c in _v2_available(group) for c in _V2_CONTROLLERS)


def _v2_fairness(group: Path) -> list[str]:
    available = _v2_available(group)
    return [c for c in _FAIRNESS if c in available]


def _v2_available(group: Path) -> list[str]:
    try:
        return (group / "cgroup.controllers").read_text().split()
    except OSError:
        return []


def _inherit_cpuset(folder: Path) -> str | None:
    """A new v1 cpuset has no CPUs and no memory nodes: give it its parent's. Its memory
    nodes, which each bot's cpuset is given in turn (None where that fails)."""
    try:
        for name in ("cpuset.cpus", "cpuset.mems"):
            _write(folder / name, (folder.parent / name).read_text().strip())
        return (folder / "cpuset.mems").read_text().strip()
    except OSError:
        return None


def _pin(folder: Path, mems: str) -> bool:
    """Hold a bot's group on the CPUs this process may run on now (a worker's pin); `mems`:
    the v1 memory nodes to give it first ("" on v2, where a child inherits them)."""
    cpus = ",".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0)))
    try:
        if mems:
            _write(folder / "cpuset.mems", mems)
        _write(folder / "cpuset.cpus", cpus)
    except OSError:
        return False
    return True


def _remove_parents(parents: tuple[Path, ...], pid: int) -> None:
    if os.getpid() != pid:
        return  # a forked child's inherited hook: the parent's groups are not its own
    for parent in parents:
        for child in parent.glob("bot-*"):
            _rmdir_quietly(child)
        _rmdir_quietly(parent)


def _bot_groups(parent: Path) -> list[Path]:
    try:
        return list(parent.glob("bot-*"))
    except OSError:
        return []


def _sweep_stale(folder: Path, liveness: Liveness) -> None:
    """Remove the empty roots of referees provably gone (killed ones), and their empty
    bot groups; a root some process is still in stays, as rmdir refuses it."""
    try:
        entries = list(folder.glob("referee-*"))
    except OSError:
        return
    for entry in entries:
        owner = Owner.of_root(entry.name)
        if owner is not None and liveness.gone(owner):
            for child in _bot_groups(entry):
                _rmdir_quietly(child)
            _rmdir_quietly(entry)


def _rmdir_quietly(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def _cgroup_mounts() -> dict[str, tuple[Path, str]]:
    """Controller (v2: "") -> (mount point, root of the mount), from mountinfo."""
    found: dict[str, tuple[Path, str]] = {}
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        root, point, fstype = fields[3], Path(fields[4]), tail[0]
        if fstype == "cgroup2":
            found.setdefault("", (point, root))
        elif fstype == "cgroup":
            for option in tail[2].split(","):
                if option in _V1_CONTROLLERS or option in _FAIRNESS:
                    found.setdefault(option, (point, root))
    return found


def _own_groups() -> dict[str, str]:
    """Controller (v2: "") -> this process's group path, from /proc/self/cgroup."""
    groups: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return groups
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(","):
            groups[controller] = parts[2]
    return groups


def _joined(mount: tuple[Path, str] | None, group: str | None) -> Path | None:
    """The folder of `group` under its mount, if writable by us."""
    if mount is None or group is None:
        return None
    point, root = mount
    relative = group[len(root):] if root != "/" and group.startswith(root) else group
    folder = point / relative.lstrip("/")
    return folder if os.access(folder, os.W_OK) else None
