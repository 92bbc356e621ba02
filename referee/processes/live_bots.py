"""Every live bot process of this referee: killed at exit and on SIGTERM, SIGINT or SIGHUP,
and watched by the sentinel, from before it starts, in case the referee itself is
SIGKILLed. Their leaders are the children the orphan reaper leaves alone
(referee.processes.orphans)."""

from __future__ import annotations

import atexit
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Protocol

from referee.processes.cgroups import CgroupRoot
from referee.processes.orphans import become_subreaper, reap_orphans
from referee.processes.sentinel import sentinel, sentinel_pid
from referee.processes.tagged_kill import signal_group


class Killable(Protocol):
    pid: int
    tag: bytes

    def kill(self) -> None: ...


class _Registry:
    """Every live bot process; killed at exit and on SIGTERM/SIGINT/SIGHUP."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

    def __init__(self) -> None:
        self._live: dict[int, Killable] = {}
        self._lock = threading.Lock()
        self._handlers_installed = False
        self._starting = 0  # bots between their Popen and add(): not yet claimed

    @contextmanager
    def starting(self) -> Iterator[None]:
        """Around a bot's start, from before its Popen to add(): no orphan is reaped
        meanwhile, as the new child is not claimed yet. Makes this process the reaper of
        its bots' orphans, and reaps those that came."""
        become_subreaper()
        self.reap_orphans()
        with self._lock:
            self._starting += 1
        try:
            yield
        finally:
            with self._lock:
                self._starting -= 1

    def reap_orphans(self) -> int:
        """Reap the orphans that came to this process (none while a bot is starting)."""
        with self._lock:
            if self._starting:
                return 0
            return reap_orphans(self._claimed)

    def _claimed(self, pid: int) -> bool:
        return pid in self._live or pid == sentinel_pid()

    def expect(self, tag: bytes, cgroups: CgroupRoot | None) -> None:
        """A bot with this tag is about to start, in a group under `cgroups` if not None:
        the sentinel hears of it first."""
        if cgroups is not None:
            sentinel().watch_cgroups(cgroups.version, [str(p) for p in cgroups.parents])
        sentinel().expect(tag)

    def forget(self, tag: bytes) -> None:
        """The bot expect() announced did not start."""
        sentinel().release(0, tag)

    def add(self, process: Killable) -> None:
        with self._lock:
            self._live[process.pid] = process
        sentinel().watch(process.pid, process.tag)
        if threading.current_thread() is threading.main_thread():
            self.install_signal_handlers()

    def discard(self, process: Killable) -> None:
        with self._lock:
            found = self._live.pop(process.pid, None)
        if found is not None:
            sentinel().release(process.pid, process.tag)

    def live(self) -> list[Killable]:
        with self._lock:
            return list(self._live.values())

    def kill_all(self) -> None:
        """Kill and reap every live group (the atexit hook)."""
        for process in self.live():
            process.kill()

    def clear(self) -> None:
        """In a forked child: it owns none of its parent's bots (and no lock holder)."""
        self._live = {}
        self._lock = threading.Lock()
        self._starting = 0

    def install_signal_handlers(self) -> None:
        """Chain a group-killing handler in front of the current ones (main thread only)."""
        if self._handlers_installed:
            return
        self._handlers_installed = True
        for signum in self.SIGNALS:
            previous = signal.getsignal(signum)
            if previous is signal.SIG_IGN:
                continue  # e.g. SIGHUP under nohup: the user asked us to survive it
            signal.signal(signum, self._make_handler(previous))

    def _make_handler(self, previous: object) -> Callable[[int, FrameType | None], None]:
        def handler(signum: int, frame: FrameType | None) -> None:
            # No lock, no reaping: the interrupted code may hold the lock. killpg is enough.
            for pid in list(self._live):
                signal_group(pid)
            if callable(previous):
                previous(signum, frame)
            else:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        return handler


REGISTRY = _Registry()
atexit.register(REGISTRY.kill_all)
os.register_at_fork(after_in_child=REGISTRY.clear)


def live_processes() -> list[Killable]:
    """The bot processes spawned and not yet killed (for diagnostics and tests)."""
    return REGISTRY.live()


def quit_on_sigterm() -> None:
    """For a pool worker: SIGTERM kills its bots' groups and ends it at once, by the
    signal, printing nothing. The pool sends it to its other workers once one died. The
    referee's handler, inherited through the fork, would raise KeyboardInterrupt wherever
    the worker was: inside a fork's handlers, Python prints that as a traceback."""
    signal.signal(signal.SIGTERM, REGISTRY._make_handler(signal.SIG_DFL))


def install_signal_handlers() -> None:
    """Kill every bot group on SIGTERM/SIGINT/SIGHUP; call once from the main thread.

    spawn() does this itself when called from the main thread; a program that spawns bots
    only from worker threads should call it at start-up.
    """
    REGISTRY.install_signal_handlers()
