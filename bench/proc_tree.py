"""A process and its descendants, read from /proc (Linux): who they are, the memory they
hold (PSS and RSS) and the CPU they have used. For the benches only.

PSS (proportional set size, /proc/PID/smaps_rollup) shares each page among the
processes that map it, so the PSS of a process tree adds up to the memory it really
holds; RSS counts a shared page (the interpreter, a library) once per process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK")


def _parent(pid: int) -> int | None:
    """The parent of `pid`, or None once it is gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces: fields start after its ")".
    return int(stat[stat.rindex(")") + 2:].split()[1])


def descendants(root: int) -> list[int]:
    """`root` and every process below it, alive now."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            parent = _parent(int(entry.name))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


@dataclass(frozen=True)
class Memory:
    """Kibibytes a set of processes holds, and how many processes it is."""

    pss_kib: int
    rss_kib: int
    processes: int


def memory(pids: list[int]) -> Memory:
    """The summed PSS and RSS of `pids` (those gone meanwhile count nothing)."""
    pss = rss = alive = 0
    for pid in pids:
        try:
            lines = (PROC / str(pid) / "smaps_rollup").read_text().splitlines()
        except OSError:  # gone, or a kernel thread
            continue
        fields = {line.split(":")[0]: line.split()[1] for line in lines[1:] if ":" in line}
        pss += int(fields.get("Pss", 0))
        rss += int(fields.get("Rss", 0))
        alive += 1
    return Memory(pss, rss, alive)


def cpu_seconds(root: int) -> float:
    """The CPU `root` and its live descendants have used, with their reaped children's
    (a process that ended counts once its parent in the tree has waited for it)."""
    return sum(process_ticks(pid) for pid in descendants(root)) / TICKS


def process_ticks(pid: int) -> int:
    """The CPU clock ticks of `pid` and of its reaped children; 0 if it is gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2:].split()
    return sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
