"""Per-process resource limits (setrlimit), and the set-up a bot's child runs before exec.

Memory and processes are a cgroup's to limit where there is one (all of a bot's processes
together); without one they fall back to per-process rlimits here.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import signal
from collections.abc import Callable

from referee.processes.cgroups import BotCgroup
from referee.processes.sandbox_filter import SandboxFilter
from referee.settings import ResourceLimits

_PR_SET_PDEATHSIG = 1
Limit = tuple[int, int, int]  # (resource, soft, hard)


def rlimits(limits: ResourceLimits, cgroup: BotCgroup | None) -> list[Limit]:
    """The (resource, soft, hard) triples to apply in the child, clamped to our hard limits.
    Memory and processes are the cgroup's to limit, for all the bot's processes at once,
    where there is one; else they fall back to per-process limits."""
    wanted: list[tuple[int, int | None, int]] = [
        (resource.RLIMIT_CORE, 0, 0),
        # The soft CPU limit sends SIGXCPU (a clear exit reason); the hard one SIGKILL.
        (resource.RLIMIT_CPU, limits.cpu_seconds, 1),
        (resource.RLIMIT_NOFILE, limits.open_files, 0),
        (resource.RLIMIT_FSIZE, megabytes(limits.file_mb), 0),
    ]
    if cgroup is None:
        wanted += [
            (resource.RLIMIT_AS, megabytes(limits.memory_mb), 0),
            # RLIMIT_NPROC counts every process (thread) of the real user, not just this
            # bot's, and Linux does not enforce it for root: so allow the threads there
            # are now plus the limit (_plus_threads).
            (resource.RLIMIT_NPROC, _plus_threads(limits.processes), 0),
        ]
    return [_clamped(res, soft, extra) for res, soft, extra in wanted if soft is not None]


def megabytes(memory_mb: int | None) -> int | None:
    return None if memory_mb is None else memory_mb * 1024 * 1024


def _plus_threads(processes: int | None) -> int | None:
    return None if processes is None else processes + machine_thread_count()


def _clamped(res: int, soft: int, extra: int) -> Limit:
    hard_now = resource.getrlimit(res)[1]
    hard = soft + extra
    if hard_now != resource.RLIM_INFINITY:
        hard = min(hard, hard_now)
        soft = min(soft, hard)
    return res, soft, hard


def machine_thread_count() -> int:
    """Threads on the whole machine, from /proc/loadavg: one small read, where counting
    the user's own would walk all of /proc at every start (milliseconds on a busy
    machine). An upper bound of the user's count: the limit is never too tight, only
    looser by other users' threads. 0 where it cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[3].split(b"/")[1])
    except (OSError, IndexError, ValueError):
        return 0


def raise_open_file_limit() -> None:
    """Let the referee open as many files as it may: every bot's connection takes one,
    and libzmq aborts the whole process when accept() finds no descriptor left."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass  # keep what we have


def die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies (PR_SET_PDEATHSIG); exit
    at once if `parent` is already gone. For the referee's own helper processes, which
    also ignore Ctrl-C: the terminal sends it to the whole group, and the parent alone
    decides how to stop (else each worker prints its own traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _prctl()(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def child_setup(limits: list[Limit], parent: int, cgroup: BotCgroup | None,
                guard: SandboxFilter | None = None) -> Callable[[], None]:
    """The preexec function. Everything it needs is prepared here, before the fork.
    `guard` is installed last: it holds for bwrap and everything the sandbox runs."""
    prctl = _prctl()
    sigkill = int(signal.SIGKILL)

    def setup() -> None:
        if cgroup is not None:
            cgroup.enter_self()
        for res, soft, hard in limits:
            resource.setrlimit(res, (soft, hard))
        prctl(_PR_SET_PDEATHSIG, sigkill, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)  # we died before PR_SET_PDEATHSIG took effect
        if guard is not None:
            guard.install()

    return setup


@functools.cache
def _prctl() -> Callable[..., int]:
    """libc's prctl, looked up once per process rather than at every bot's start."""
    prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    return prctl
