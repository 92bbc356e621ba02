"""The sentinel: a small process that outlives the referee just long enough to kill its bots.

PR_SET_PDEATHSIG kills a bot's main process when the referee dies, even by SIGKILL, but
not what the bot started. Nor does it hold a sandbox whole: bwrap's process inside the
sandbox (the PID namespace's init) has no parent-death signal while it sets the sandbox
up, and sets one later without checking whether its parent is still there, so a referee
(or pool worker) killed while a bot starts can leave that process, and the bot, running
under init for good. So each process that spawns bots also starts a sentinel and tells
it, over a pipe, every bot's tag before the bot starts, its process group once it has
started, and when it ends. When the pipe closes, however the referee ended, the sentinel
kills the groups still listed and every process carrying their tags (sandboxed, that is
bwrap's own processes, whose environment holds the tag; the bot's does not), then exits.
Where bots have cgroups, it first kills every group of the referee's (which also frees
a group the referee froze to kill it and died before it thawed it) and removes them.
It runs in a session of its own, so a signal sent to the referee's process group does
not reach it.
"""

from __future__ import annotations

import atexit
import multiprocessing.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

_EXIT_WAIT = 2.0  # at a normal exit, how long to wait for the sentinel to finish
# In a pool worker: after its bots' pools (tournaments/run/fixture_play.py: 50).
_CLOSE_PRIORITY = 10
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # holds referee/


class Sentinel:
    """The referee's end of the pipe to its sentinel process."""

    def __init__(self) -> None:
        # PYTHONPATH: the referee may run from a checkout that is not installed.
        path = os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")]))
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-m", "referee.processes.sentinel"], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, "PYTHONPATH": path})
        except OSError as error:  # out of processes or memory: do without it
            sys.stderr.write(f"referee: warning: no sentinel process ({error}); bots' "
                             "children may outlive a referee that is killed\n")
            self._process = None
        self._pipe: IO[bytes] | None = None if self._process is None else self._process.stdin
        self._cgroups_said: set[tuple[str, ...]] = set()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def watch_cgroups(self, version: int, parents: Sequence[str]) -> None:
        """The referee's parent cgroups of its bots (cgroup `version`), before any bot
        enters one: all of them are killed and removed at the end."""
        said = (str(version), *(os.fsencode(parent).hex() for parent in parents))
        if said not in self._cgroups_said:
            self._cgroups_said.add(said)
            self._say(b"c %s\n" % " ".join(said).encode())

    def expect(self, tag: bytes) -> None:
        """A bot is about to start with this environment entry NAME=value (its group
        is not known yet): said first, so that no moment of its start goes unwatched."""
        self._say(b"+ 0 %s\n" % tag)

    def watch(self, pgid: int, tag: bytes) -> None:
        """A bot started: its group, and its environment entry NAME=value."""
        self._say(b"+ %d %s\n" % (pgid, tag))

    def release(self, pgid: int, tag: bytes) -> None:
        """A bot is dead and reaped, or never started: nothing of it is left to kill."""
        self._say(b"- %d %s\n" % (pgid, tag))

    def close(self) -> None:
        """End the watch (the sentinel kills what is still listed) and wait for it."""
        self.disown()
        try:
            if self._process is not None:
                self._process.wait(_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            pass

    def disown(self) -> None:
        """Close our end of the pipe."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass

    def drop_inherited(self) -> None:
        """In a forked child: let go of its copy of the parent's pipe. At the fd level,
        as another thread may have held the file object's lock at the fork: the fd is
        pointed at /dev/null, so the file object still owns a harmless fd."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, pipe.fileno())
            finally:
                os.close(null)

    def _say(self, line: bytes) -> None:
        if self._pipe is None:
            return
        try:
            self._pipe.write(line)
            self._pipe.flush()
        except OSError:  # the sentinel is gone: the group kill and PDEATHSIG remain
            self._pipe = None


_current: Sentinel | None = None
_inherited: list[Sentinel] = []  # a forked child's copies, kept so that no __del__ runs
_lock = threading.Lock()


def sentinel() -> Sentinel:
    """This process's sentinel, started on first use."""
    global _current
    with _lock:
        if _current is None:
            _current = Sentinel()
            atexit.register(_current.close)
            # A multiprocessing worker ends by os._exit, skipping atexit: unwaited for,
            # its sentinel would end a zombie of the pool's parent (PID 1 in a container,
            # which never reaps it) instead of being reaped here.
            multiprocessing.util.Finalize(None, _current.close, exitpriority=_CLOSE_PRIORITY)
        return _current


def sentinel_pid() -> int | None:
    """The pid of this process's sentinel, if it started one (it is ours to wait for)."""
    current = _current
    return None if current is None else current.pid


def _after_fork_in_child() -> None:
    global _current, _lock
    _lock = threading.Lock()
    if _current is not None:
        _current.drop_inherited()  # else the parent's sentinel waits for this child too
        _inherited.append(_current)
        _current = None


os.register_at_fork(after_in_child=_after_fork_in_child)


def main() -> None:
    """The sentinel process: read the watch list until end of file, then kill it all."""
    # the referee's own kills
    from referee.processes.cgroups import CgroupRoot
    from referee.processes.tagged_kill import kill_tagged, signal_group

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watched: dict[bytes, int] = {}  # tag -> process group, 0 while not yet known
    cgroups: set[CgroupRoot] = set()
    for line in sys.stdin.buffer:  # only the referee writes here
        sign, *words = line.split()
        if sign == b"c":
            cgroups.add(CgroupRoot(int(words[0]),
                                   tuple(Path(os.fsdecode(bytes.fromhex(word.decode())))
                                         for word in words[1:])))
        elif sign == b"+":
            watched[words[1]] = int(words[0])
        else:
            watched.pop(words[1], None)
    for root in cgroups:  # first: it thaws what the referee froze
        root.kill_all()
    for pgid in watched.values():
        if pgid > 0:  # never 0: that would be the sentinel's own group
            signal_group(pgid)
    kill_tagged(set(watched))


if __name__ == "__main__":
    main()
