#!/usr/bin/env python3
"""One end of a covert channel between two sandboxes, for bench/covert_channels.py.

    covert_agent.py send|receive CHANNEL START SLOT BITS [ARG]

Both ends keep time by the machine's clock (CLOCK_REALTIME: no namespace separates it):
slot i runs from START + i*SLOT for SLOT seconds, and BITS ("0101...") is what the sender
sends (the receiver gets only its length). The sender shapes slot i by bit i; the
receiver measures each slot once and prints one JSON line {"values": {PROBE: [...]}}: a
number per slot for each probe it reads. Decoding is bench/covert_channels.py's job.

Standard library only: it runs in the sandbox as any bot does, as an unprivileged uid
with the seccomp filter, in a cgroup with a cpuset, and sees only what a bot sees.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import mmap
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable

MEMORY_BYTES = 200 << 20  # what the memory sender allocates and touches for a 1
THREADS = 50  # what the thread sender starts for a 1 (the pids limit is 256)
SPINNERS = 2  # processes the CPU sender spins in for a 1 (on its one CPU)
PAGE_STRIDE = 1 << 20  # pages probed a megabyte apart: no read-ahead reaches the next
PAGE_COUNT = 64  # pages reused in turn, evicted after each probe
WINDOW = (0.2, 0.9)  # the part of a slot the receiver measures (transitions excluded)
_IN_OPEN = 0x20
_LIBC = ctypes.CDLL(None, use_errno=True)


def now() -> float:
    return time.time()


def sleep_until(moment: float) -> None:
    left = moment - now()
    if left > 0:
        time.sleep(left)


def slot_start(start: float, slot: float, index: int) -> float:
    return start + index * slot


# ---- the senders: each shapes slot i by bit i ----

def send_spin(start: float, slot: float, bits: str, _: str) -> None:
    """1: spin in SPINNERS processes; 0: sleep. (CPU load, run queue, CPU pressure.)"""
    children = []
    for _spinner in range(SPINNERS - 1):
        pid = os.fork()
        if pid == 0:  # a child spins by the same bits, then leaves
            _spin_by(start, slot, bits)
            os._exit(0)
        children.append(pid)
    _spin_by(start, slot, bits)
    for pid in children:
        os.waitpid(pid, 0)


def _spin_by(start: float, slot: float, bits: str) -> None:
    for index, bit in enumerate(bits):
        end = slot_start(start, slot, index + 1)
        sleep_until(slot_start(start, slot, index))
        if bit == "1":
            while now() < end:
                pass


def send_threads(start: float, slot: float, bits: str, _: str) -> None:
    """1: start THREADS threads that wait out the slot; 0: none. (Thread and fork counts.)
    They start after the receiver's window has opened, so that it counts their forks."""
    for index, bit in enumerate(bits):
        sleep_until(slot_start(start, slot, index) + slot * (WINDOW[0] + 0.1))
        if bit == "1":
            done = threading.Event()
            threads = [threading.Thread(target=done.wait) for _ in range(THREADS)]
            for thread in threads:
                thread.start()
            sleep_until(slot_start(start, slot, index + 1) - slot * 0.05)
            done.set()
            for thread in threads:
                thread.join()


def send_memory(start: float, slot: float, bits: str, _: str) -> None:
    """1: hold MEMORY_BYTES, every page touched; 0: hold nothing. (Free memory.)"""
    held: mmap.mmap | None = None
    for index, bit in enumerate(bits):
        sleep_until(slot_start(start, slot, index))
        if bit == "1" and held is None:
            held = mmap.mmap(-1, MEMORY_BYTES,
                             flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE)
        elif bit == "0" and held is not None:
            held.close()
            held = None


def send_pages(start: float, slot: float, bits: str, path: str) -> None:
    """1: read the slot's page of the shared file PATH into the page cache; 0: not."""
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead into the next pages
    for index, bit in enumerate(bits):
        sleep_until(slot_start(start, slot, index))
        if bit == "1":
            os.pread(fd, 1, page_offset(index))


def page_offset(index: int) -> int:
    return PAGE_STRIDE * (1 + index % PAGE_COUNT)


def send_lock(start: float, slot: float, bits: str, path: str) -> None:
    """1: hold an exclusive flock on the shared file PATH; 0: not (closed by the filter)."""
    handle = open(path, "rb")
    for index, bit in enumerate(bits):
        sleep_until(slot_start(start, slot, index))
        fcntl.flock(handle, fcntl.LOCK_EX if bit == "1" else fcntl.LOCK_UN)


def send_open(start: float, slot: float, bits: str, path: str) -> None:
    """1: open and read the shared file PATH (an inotify event elsewhere); 0: not."""
    for index, bit in enumerate(bits):
        sleep_until(slot_start(start, slot, index))
        if bit == "1":
            with open(path, "rb") as handle:
                handle.read(1)


# ---- the receivers: each gives a number per slot for each of its probes ----

Probe = Callable[[], float]


def receive_probes(start: float, slot: float, count: int, probes: dict[str, Probe],
                   counters: frozenset[str]) -> dict[str, list[float]]:
    """Per slot: a counter's growth over the slot's window, a gauge's mean in it."""
    values: dict[str, list[float]] = {name: [] for name in probes}
    for index in range(count):
        begin = slot_start(start, slot, index)
        sleep_until(begin + slot * WINDOW[0])
        first = {name: probes[name]() for name in counters}
        samples: dict[str, list[float]] = {name: [] for name in probes if name not in counters}
        end = begin + slot * WINDOW[1]
        while True:
            for name in samples:
                samples[name].append(probes[name]())
            if now() >= end:
                break
            time.sleep(min(slot / 20, max(0.0, end - now())))
        for name in probes:
            if name in counters:
                values[name].append(probes[name]() - first[name])
            else:
                # statistics.mean is exact: a value that never changes gives itself
                # back, whatever the number of samples (which the load does change)
                values[name].append(statistics.mean(samples[name]))
    return values


def _proc_stat() -> dict[str, list[int]]:
    with open("/proc/stat") as handle:
        return {words[0]: [int(w) for w in words[1:]]
                for words in (line.split() for line in handle) if words}


def busy_elsewhere() -> float:
    """Busy jiffies of every CPU but the receiver's own (user+nice+system+irq+softirq)."""
    mine = {f"cpu{cpu}" for cpu in os.sched_getaffinity(0)}
    stat = _proc_stat()
    return float(sum(sum(f[0:3]) + f[5] + f[6] for name, f in stat.items()
                     if name.startswith("cpu") and name != "cpu" and name not in mine))


def _loadavg() -> list[str]:
    with open("/proc/loadavg") as handle:
        return handle.read().split()


def _pressure(kind: str) -> float:
    """The `some` stall total in microseconds (0 where there is no PSI)."""
    try:
        with open(f"/proc/pressure/{kind}") as handle:
            return float(handle.readline().split("total=")[1])
    except (OSError, IndexError):
        return 0.0


def _meminfo(field: str) -> float:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return float(line.split()[1])
    return 0.0


class _Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong),
                ("procs", ctypes.c_ushort), ("pad", ctypes.c_ushort),
                ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


def sysinfo_freeram() -> float:
    info = _Sysinfo()
    _LIBC.sysinfo(ctypes.byref(info))
    return float(info.freeram * info.mem_unit >> 10)


def load_probes() -> dict[str, Probe]:
    return {
        "proc_stat_cpu": busy_elsewhere,
        "proc_stat_procs_running": lambda: float(_proc_stat()["procs_running"][0]),
        "loadavg_running": lambda: float(_loadavg()[3].split("/")[0]),
        "loadavg_1min": lambda: float(_loadavg()[0]),
        "pressure_cpu": lambda: _pressure("cpu"),
    }


def receive_load(start: float, slot: float, count: int, _: str) -> dict[str, list[float]]:
    return receive_probes(start, slot, count, load_probes(),
                          frozenset({"proc_stat_cpu", "pressure_cpu"}))


def receive_threads(start: float, slot: float, count: int, _: str) -> dict[str, list[float]]:
    probes: dict[str, Probe] = {
        "loadavg_threads": lambda: float(_loadavg()[3].split("/")[1]),
        "proc_stat_forks": lambda: float(_proc_stat()["processes"][0]),
        "sysinfo_procs": lambda: _sysinfo_procs(),
    }
    return receive_probes(start, slot, count, probes, frozenset({"proc_stat_forks"}))


def _sysinfo_procs() -> float:
    info = _Sysinfo()
    _LIBC.sysinfo(ctypes.byref(info))
    return float(info.procs)


def receive_memory(start: float, slot: float, count: int, _: str) -> dict[str, list[float]]:
    probes: dict[str, Probe] = {
        "meminfo_free": lambda: _meminfo("MemFree"),
        "meminfo_available": lambda: _meminfo("MemAvailable"),
        "sysinfo_freeram": sysinfo_freeram,
        "pressure_memory": lambda: _pressure("memory"),
    }
    return receive_probes(start, slot, count, probes, frozenset({"pressure_memory"}))


def receive_contention(start: float, slot: float, count: int, _: str
                       ) -> dict[str, list[float]]:
    """Loop iterations in each slot's window: fewer when the sender spins on our CPU."""
    counts: list[float] = []
    for index in range(count):
        begin = slot_start(start, slot, index)
        sleep_until(begin + slot * WINDOW[0])
        end, loops = begin + slot * WINDOW[1], 0
        while now() < end:
            for _step in range(100):
                loops += 1
        counts.append(float(loops))
    return {"cpu_contention": counts}


def receive_pages(start: float, slot: float, count: int, path: str
                  ) -> dict[str, list[float]]:
    """Time one read of the slot's page late in the slot (fast: the sender read it), then
    evict it with POSIX_FADV_DONTNEED, which any reader of a file may ask, for reuse."""
    evict = os.environ.get("COVERT_EVICT", "1") == "1"
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    micros: list[float] = []
    for index in range(count):
        sleep_until(slot_start(start, slot, index) + slot * 0.6)
        offset = page_offset(index)
        began = time.perf_counter_ns()
        os.pread(fd, 1, offset)
        micros.append((time.perf_counter_ns() - began) / 1000)
        if evict:
            os.posix_fadvise(fd, offset, 4096, os.POSIX_FADV_DONTNEED)
    return {"page_cache": micros}


def receive_lock(start: float, slot: float, count: int, path: str) -> dict[str, list[float]]:
    """1 where a non-blocking exclusive flock of PATH was refused (the sender holds it)."""
    handle = open(path, "rb")
    blocked: list[float] = []
    for index in range(count):
        sleep_until(slot_start(start, slot, index) + slot * 0.5)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
            blocked.append(0.0)
        except BlockingIOError:
            blocked.append(1.0)
    return {"flock": blocked}


def receive_watch(start: float, slot: float, count: int, path: str) -> dict[str, list[float]]:
    """inotify open events on PATH per slot (none at all where inotify is denied)."""
    fd = _LIBC.inotify_init1(os.O_NONBLOCK)
    if fd >= 0 and _LIBC.inotify_add_watch(fd, path.encode(), _IN_OPEN) < 0:
        os.close(fd)
        fd = -1
    events: list[float] = []
    for index in range(count):
        sleep_until(slot_start(start, slot, index + 1) - slot * 0.05)
        seen = 0
        if fd >= 0:
            try:
                seen = len(os.read(fd, 1 << 16)) // 16
            except BlockingIOError:
                pass
        events.append(float(seen))
    return {"inotify": events}


SENDERS = {"load": send_spin, "contention": send_spin, "threads": send_threads,
           "memory": send_memory, "pages": send_pages, "lock": send_lock,
           "watch": send_open}
RECEIVERS = {"load": receive_load, "contention": receive_contention,
             "threads": receive_threads, "memory": receive_memory, "pages": receive_pages,
             "lock": receive_lock, "watch": receive_watch}


def main() -> None:
    role, channel, start, slot, bits = sys.argv[1:6]
    arg = sys.argv[6] if len(sys.argv) > 6 else ""
    late = now() - float(start)
    if late > 0:
        print(json.dumps({"late": late}), flush=True)
        return
    if role == "send":
        SENDERS[channel](float(start), float(slot), bits, arg)
        print(json.dumps({"sent": len(bits)}), flush=True)
    else:
        values = RECEIVERS[channel](float(start), float(slot), len(bits), arg)
        print(json.dumps({"values": values}), flush=True)


if __name__ == "__main__":
    main()
