#!/usr/bin/env python3
"""A Rage bot that tries to reach another sandbox, or to outlast its own game, then plays
legally: `channel_bot.py MODE [ARGS...]`.

At every request it takes one step of its mode and reports what it has found so far as one
line `ZOO {json}` on stderr (the last line is the whole story); it answers with the first
option. The channels are those a second hunt for hostile bots found open between
sandboxes: kernel keyrings, file locks and watches on files every sandbox sees, and a CPU
hog that starved its neighbours.

  lock PATH          take an exclusive lock on PATH; count the times another held it
  watch PATH         watch PATH with inotify (never opening it); count the events seen
  touch PATH         open and read PATH (for a watcher at another seat)
  put TEXT           leave TEXT in the user keyrings, in /tmp and in /dev/shm
  get                look for what `put` left, in the same places
  remember           `get`, then `put` a note of its own, at its first request of a game
  snoop              list its own folder; read /proc/1/cmdline and the mount table
  load               read the machine's load in /proc; count the files that changed
  hog N              N children that spin, each in a session of its own, on every CPU
  burn SECONDS K     for its first K requests, use SECONDS of CPU before replying
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if len(Path(__file__).resolve().parents) > 4:  # unsandboxed runs; a copy may be elsewhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from bots.sdk import run_bot  # noqa: E402

_LIBC = ctypes.CDLL(None, use_errno=True)
_ADD_KEY, _KEYCTL = 248, 250  # x86_64
_USER_KEYRING, _USER_SESSION_KEYRING = -4, -5
_KEYCTL_SEARCH, _KEYCTL_READ = 10, 11
_IN_OPEN, _IN_ACCESS, _IN_NONBLOCK = 0x20, 0x1, 0o4000
MEMO = b"referee-memo"
HELD: list[Any] = []  # locks and descriptors kept for the whole game


def _errno_name() -> str:
    number = ctypes.get_errno()
    return errno.errorcode.get(number, str(number))


class ChannelBot:
    """Takes a step of its mode at each request, reports, answers the first option."""

    def __init__(self, mode: str, args: list[str]) -> None:
        self.mode, self.args = mode, args
        # Bots of one game share a stderr file, and each sees itself as pid 2.
        self.found: dict[str, Any] = {"id": os.urandom(6).hex(), "mode": mode, "steps": 0}
        self.watch_fd = -1

    def on_line(self, line: str) -> str | None:
        words = line.split()
        if not words or not words[0].endswith("?"):
            return None
        getattr(self, "step_" + self.mode)()
        self.found["steps"] += 1
        sys.stderr.write("ZOO " + json.dumps(self.found) + "\n")
        sys.stderr.flush()
        return words[1] if len(words) > 1 else ""

    def step_lock(self) -> None:
        self.found.setdefault("blocked", 0)
        if HELD:
            return
        handle = open(self.args[0], "rb")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            HELD.append(handle)
        except BlockingIOError:
            self.found["blocked"] += 1  # another sandbox holds it: a bit crossed
            handle.close()

    def step_watch(self) -> None:
        if self.watch_fd < 0 and "inotify" not in self.found:
            self.watch_fd = _LIBC.inotify_init1(_IN_NONBLOCK)
            if self.watch_fd < 0:
                self.found["inotify"] = _errno_name()
                return
            added = _LIBC.inotify_add_watch(self.watch_fd, self.args[0].encode(),
                                            _IN_OPEN | _IN_ACCESS)
            self.found["inotify"] = "watching" if added >= 0 else _errno_name()
        if self.watch_fd >= 0:
            try:
                self.found["events"] = self.found.get("events", 0) + \
                    len(os.read(self.watch_fd, 1 << 16)) // 16
            except BlockingIOError:
                self.found.setdefault("events", 0)

    def step_touch(self) -> None:
        with open(self.args[0], "rb") as handle:
            handle.read(16)

    def step_put(self) -> None:
        if "put" in self.found:
            return
        text = self.args[0].encode()
        results = {}
        for keyring in (_USER_KEYRING, _USER_SESSION_KEYRING):
            done = _LIBC.syscall(_ADD_KEY, b"user", MEMO, text, len(text), keyring)
            results[str(keyring)] = "added" if done >= 0 else _errno_name()
        for folder in ("/tmp", "/dev/shm"):
            try:
                Path(folder, MEMO.decode()).write_bytes(text)
                results[folder] = "written"
            except OSError as exc:
                results[folder] = errno.errorcode.get(exc.errno or 0, str(exc))
        self.found["put"] = results

    def step_get(self) -> None:
        recalled = []
        for keyring in (_USER_KEYRING, _USER_SESSION_KEYRING):
            key = _LIBC.syscall(_KEYCTL, _KEYCTL_SEARCH, keyring, b"user", MEMO, 0)
            if key >= 0:
                buffer = ctypes.create_string_buffer(4096)
                size = _LIBC.syscall(_KEYCTL, _KEYCTL_READ, key, buffer, 4096)
                recalled.append(buffer.raw[:max(size, 0)].decode("utf-8", "replace"))
            else:
                self.found[f"search {keyring}"] = _errno_name()
        for folder in ("/tmp", "/dev/shm"):
            try:
                recalled.append(Path(folder, MEMO.decode()).read_text())
            except OSError:
                pass
        self.found["recalled"] = recalled

    def step_remember(self) -> None:
        if "put" in self.found:
            return
        self.step_get()
        self.args = [f"seen by {self.found['id']}"]
        self.step_put()

    def step_load(self) -> None:
        files = ("/proc/stat", "/proc/loadavg", "/proc/meminfo", "/proc/vmstat")
        seen = {name: Path(name).read_text() for name in files if os.path.exists(name)}
        first = self.__dict__.setdefault("first_load", seen)
        self.found["changed"] = sorted(name for name in seen if seen[name] != first[name])
        self.found["loadavg"] = seen["/proc/loadavg"]

    def step_snoop(self) -> None:
        files = []  # its own folder's (a report must stay under PIPE_BUF: one write)
        for folder, _, names in os.walk(os.path.dirname(os.path.abspath(__file__))):
            files += [os.path.join(folder, name) for name in names]
        self.found["files"] = sorted(files)[:20]
        if "cmdline" not in self.found:
            self.found["cmdline"] = Path("/proc/1/cmdline").read_bytes().decode(
                "utf-8", "replace").split("\0")
            self.found["mounts"] = [line.split()[4] for line in
                                    Path("/proc/self/mountinfo").read_text().splitlines()]

    def step_hog(self) -> None:
        """A launcher forks the spinners while this process goes on answering (so the hog
        itself never times out), and tells it through a pipe how many it started."""
        if "pipe" not in self.found:
            read_end, write_end = os.pipe()
            if os.fork() == 0:
                os.close(read_end)
                _launch(int(self.args[0]), write_end)
            os.close(write_end)
            os.set_blocking(read_end, False)
            self.found["pipe"] = read_end
        try:
            said = os.read(self.found["pipe"], 1 << 12).decode().splitlines()
        except BlockingIOError:
            said = []
        if said:
            last = said[-1].split()
            self.found["children"], self.found["affinity"] = int(last[0]), last[1:]

    def step_burn(self) -> None:
        seconds, requests = float(self.args[0]), int(self.args[1])
        if self.found["steps"] >= requests:
            return
        start = time.process_time()
        while time.process_time() - start < seconds:
            pass


def _launch(count: int, report: int) -> None:
    """Start `count` spinners, each in a session of its own and asking for every CPU, then
    spin too; every 20 spinners, say how many so far and the affinity left to this
    process after it asked for every CPU."""
    os.setsid()
    every_cpu = set(range(os.cpu_count() or 1))
    try:
        os.sched_setaffinity(0, every_cpu)
    except OSError:
        pass  # a cpuset that holds it: refused, as the report shows
    cpus = " ".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0)))
    for started in range(1, count + 1):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            os.setsid()
            _spin(every_cpu)
        if started % 20 == 0 or started == count:
            os.write(report, f"{started} {cpus}\n".encode())
    _spin(every_cpu)


def _spin(cpus: set[int]) -> None:
    os.nice(19)  # within its own group only: the launcher and the bot go on
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        pass
    while True:
        pass


def main() -> None:
    mode, args = sys.argv[1], sys.argv[2:]
    run_bot(f"channel-{mode}", "1.0", ChannelBot(mode, args))


if __name__ == "__main__":
    main()
