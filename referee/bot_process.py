"""A bot as a process: its own process group, resource limits, exit detection, whole kill.

Sandboxed (the default where bubblewrap works), a bot is the first process of its own PID
namespace (see referee.processes.sandbox): when that bwrap process dies, by our kill or
because the referee died (bwrap --die-with-parent), the kernel kills everything in the
namespace. Where the machine allows cgroups, every bot also has its own
(referee.processes.cgroups): limits count all its processes, and the kill takes the group
whole.

Without a sandbox (trusted bots only), every spawned group is kept in a registry that
kills it at interpreter exit and on SIGTERM, SIGINT or SIGHUP. A process that left the
group (setsid, a daemon's double fork) is still found by the tag every bot inherits in its
environment ($REFEREE_PROCESS_TAG), and killed with the group; only one that also clears
its environment escapes. If the referee itself is SIGKILLed, PR_SET_PDEATHSIG kills the
bot's main process, and the sentinel (referee.sentinel) kills the rest.

A bot's stderr (and a ZeroMQ bot's stdout) goes through a capped sink
(referee.processes.stderr_sink), so no bot can fill a disk or a terminal.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import resource
import secrets
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import IO

from referee.bot_command import BotCommand
from referee.errors import BotStartError
from referee.processes.cgroups import BotCgroup, CgroupRoot
from referee.processes.sandbox import View, bwrap_argv
from referee.processes.stderr_sink import StderrSink
from referee.sentinel import sentinel
from referee.settings import ResourceLimits

_PR_SET_PDEATHSIG = 1
TAG_VARIABLE = "REFEREE_PROCESS_TAG"  # in every bot's environment: a secret per bot
_SWEEPS = 5  # tagged processes may fork while being killed: look again, this many times
_STDERR_FD = 2  # the fd itself: sys.stderr may be a wrapper without one (e.g. under pytest)
_REAP_TIMEOUT = 5.0  # a SIGKILLed process in uninterruptible sleep may take a moment
_FALLBACK_SLICE = 0.02  # exit polling period when pidfd_open is unavailable
# bwrap's init reports a child killed by signal N as exit code 128 + N.
_SIGNAL_EXIT_BASE = 128

_Limit = tuple[int, int, int]  # (resource, soft, hard)


class BotProcess:
    """One running bot command, leader of its own process group (pgid == pid)."""

    def __init__(self, popen: subprocess.Popen[bytes], command: BotCommand, tag: str | None,
                 cgroup: BotCgroup | None = None, sink: StderrSink | None = None) -> None:
        self._popen = popen
        self.command = command
        self.pid = popen.pid
        # Its entry in the bot's environment; None in a sandbox, whose kill needs none.
        self.tag = None if tag is None else f"{TAG_VARIABLE}={tag}".encode()
        self.cgroup = cgroup
        self._sink = sink
        self._code: int | None = None
        self._reaped = False
        self._pidfd = _open_pidfd(popen.pid)

    @property
    def sandboxed(self) -> bool:
        return self.tag is None

    @classmethod
    def spawn(cls, cmd: BotCommand, env: Mapping[str, str], limits: ResourceLimits,
              stderr: Path | None, view: View | None = None) -> BotProcess:
        """Start `cmd` in a new process group with `limits`, in the sandbox `view` (None:
        no sandbox); stderr None goes to ours. Both capped (StderrSink).

        A stdio bot gets pipes on stdin and stdout. A ZeroMQ bot gets /dev/null as stdin
        and its stdout goes where its stderr goes, so it never mixes into our output.
        """
        cgroup = _new_cgroup(limits)
        tag: str | None = None
        if view is None:
            tag = secrets.token_hex(8)
            argv, env = list(cmd.argv), {**env, TAG_VARIABLE: tag}
        else:  # the bot's environment is the sandbox's (--setenv), bwrap's own is bare
            argv, env = bwrap_argv(replace(view, env=dict(env)), cmd.argv), _bare_env()
        sink = StderrSink(stderr if stderr is not None else _STDERR_FD)
        try:
            popen = _popen(cmd, argv, env, sink.child_fd(),
                           _child_setup(_rlimits(limits, cgroup), os.getpid(), cgroup))
        except BaseException:
            sink.close()
            if cgroup is not None:
                cgroup.remove()
            raise
        sink.started()
        process = cls(popen, cmd, tag, cgroup, sink)
        _REGISTRY.add(process)
        return process

    @property
    def stdin(self) -> IO[bytes] | None:
        """The bot's standard input pipe (stdio bots only)."""
        return self._popen.stdin

    @property
    def stdout(self) -> IO[bytes] | None:
        """The bot's standard output pipe (stdio bots only)."""
        return self._popen.stdout

    @property
    def exit_code(self) -> int | None:
        """None while running; negative N = killed by signal N."""
        self.exited()
        return self._code

    def exited(self) -> bool:
        """Has the bot's main process ended? (Does not reap it: see kill.)"""
        if self._code is not None:
            return True
        # WNOWAIT leaves the zombie in place, so the pid and pgid cannot be reused
        # before kill() has signalled the group.
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped behind our back (SIGCHLD ignored?)
            self._popen.poll()
            self._code = self._popen.returncode
            return True
        if info is None or info.si_pid == 0:
            return False
        self._code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        return True

    def exit_fd(self) -> int | None:
        """A pollable fd that becomes readable when the process exits (None if unsupported)."""
        return self._pidfd

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the main process to exit; True if it has."""
        deadline = time.monotonic() + timeout
        while not self.exited():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if self._pidfd is None:
                time.sleep(min(remaining, _FALLBACK_SLICE))
            else:
                select.select([self._pidfd], [], [], remaining)
        return True

    def kill(self) -> None:
        """SIGKILL the whole process group, and every process carrying this bot's tag
        (those that left the group), and reap the leader. Idempotent."""
        if self._reaped:
            return
        if self.tag is None:
            _signal_group(self.pid)  # bwrap: its PID namespace dies with it
        else:
            kill_group_and_tagged(self.pid, self.tag)
        if self.cgroup is not None:
            self.cgroup.kill()
        try:
            self._popen.wait(_REAP_TIMEOUT)
        except subprocess.TimeoutExpired:
            return  # still in the registry: the exit hook tries again
        self._reaped = True
        self._code = self._popen.returncode
        self._release()

    def _release(self) -> None:
        _REGISTRY.discard(self)
        if self._sink is not None:
            self._sink.close()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        for pipe in (self._popen.stdin, self._popen.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass  # an unflushed write to a dead bot

    def describe_exit(self) -> str:
        """How the main process ended, e.g. 'exited with code 3' or 'killed by SIGKILL'."""
        code = self.exit_code
        if code is None:
            return "still running"
        if self.sandboxed and code > _SIGNAL_EXIT_BASE:
            code = _SIGNAL_EXIT_BASE - code  # the sandbox's init's way to say "signal"
        memory = " (over its memory limit)" if self.cgroup and self.cgroup.oom_killed() else ""
        if code >= 0:
            return f"exited with code {code}{memory}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}{memory}"


def _open_pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def kill_group_and_tagged(pgid: int, tag: bytes) -> None:
    """SIGKILL a bot's process group, then whatever carries its tag outside the group."""
    _signal_group(pgid)
    _kill_tagged(tag)


def _kill_tagged(tag: bytes) -> None:
    """SIGKILL every process whose environment holds `tag` (a NAME=value entry)."""
    for _ in range(_SWEEPS):
        tagged = [pid for pid in _pids() if tag in _environment(pid)]
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


def _signal_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


def _rlimits(limits: ResourceLimits, cgroup: BotCgroup | None) -> list[_Limit]:
    """The (resource, soft, hard) triples to apply in the child, clamped to our hard limits.
    Memory and processes are the cgroup's to limit, for all the bot's processes at once,
    where there is one; else they fall back to per-process limits."""
    wanted: list[tuple[int, int | None, int]] = [
        (resource.RLIMIT_CORE, 0, 0),
        # The soft CPU limit sends SIGXCPU (a clear exit reason); the hard one SIGKILL.
        (resource.RLIMIT_CPU, limits.cpu_seconds, 1),
        (resource.RLIMIT_NOFILE, limits.open_files, 0),
        (resource.RLIMIT_FSIZE, _mb(limits.file_mb), 0),
    ]
    if cgroup is None:
        wanted += [
            (resource.RLIMIT_AS, _mb(limits.memory_mb), 0),
            # RLIMIT_NPROC counts every process (thread) of the real user, not just this
            # bot's, and Linux does not enforce it for root: so allow the current count
            # plus the limit.
            (resource.RLIMIT_NPROC, _plus_user_threads(limits.processes), 0),
        ]
    return [_clamped(res, soft, extra) for res, soft, extra in wanted if soft is not None]


def _new_cgroup(limits: ResourceLimits) -> BotCgroup | None:
    """A cgroup with the bot's limits, where this machine lets us make one."""
    root = CgroupRoot.find()
    if root is None:
        return None
    try:
        return root.new_group(_mb(limits.memory_mb), limits.processes)
    except OSError:
        return None


def _bare_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath)}


def _popen(cmd: BotCommand, argv: list[str], env: Mapping[str, str], err_fd: int,
           setup: Callable[[], None]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            argv, env=env, process_group=0,
            stdin=subprocess.PIPE if cmd.stdio else subprocess.DEVNULL,
            stdout=subprocess.PIPE if cmd.stdio else err_fd, stderr=err_fd,
            preexec_fn=setup)
    except OSError as exc:
        raise BotStartError(f"cannot start bot {cmd.text!r}: {exc.strerror or exc}") from None
    except subprocess.SubprocessError as exc:  # the preexec setup failed in the child
        raise BotStartError(f"cannot start bot {cmd.text!r}: {exc}") from None


def _mb(memory_mb: int | None) -> int | None:
    return None if memory_mb is None else memory_mb * 1024 * 1024


def _plus_user_threads(processes: int | None) -> int | None:
    return None if processes is None else processes + _user_thread_count()


def _clamped(res: int, soft: int, extra: int) -> _Limit:
    hard_now = resource.getrlimit(res)[1]
    hard = soft + extra
    if hard_now != resource.RLIM_INFINITY:
        hard = min(hard, hard_now)
        soft = min(soft, hard)
    return res, soft, hard


def _user_thread_count() -> int:
    """Threads of our real uid, as RLIMIT_NPROC counts them."""
    uid = str(os.getuid())
    total = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            total += _threads_of(entry.path, uid)
    return total


def _threads_of(proc_dir: str, uid: str) -> int:
    try:
        with open(os.path.join(proc_dir, "status"), encoding="ascii", errors="replace") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return 0  # it exited meanwhile
    if fields.get("Uid", "").split()[:1] != [uid]:
        return 0
    return int(fields.get("Threads", "1").strip() or 1)


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
    at once if `parent` is already gone. For the referee's own helper processes."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _child_setup(limits: list[_Limit], parent: int,
                 cgroup: BotCgroup | None) -> Callable[[], None]:
    """The preexec function. Everything it needs is prepared here, before the fork."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    sigkill = int(signal.SIGKILL)

    def setup() -> None:
        if cgroup is not None:
            cgroup.enter_self()
        for res, soft, hard in limits:
            resource.setrlimit(res, (soft, hard))
        prctl(_PR_SET_PDEATHSIG, sigkill, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)  # we died before PR_SET_PDEATHSIG took effect

    return setup


class _Registry:
    """Every live bot process; killed at exit and on SIGTERM/SIGINT/SIGHUP."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

    def __init__(self) -> None:
        self._live: dict[int, BotProcess] = {}
        self._lock = threading.Lock()
        self._handlers_installed = False

    def add(self, process: BotProcess) -> None:
        with self._lock:
            self._live[process.pid] = process
        if process.tag is not None:  # a sandbox dies with the referee by itself
            sentinel().watch(process.pid, process.tag)
        if threading.current_thread() is threading.main_thread():
            self.install_signal_handlers()

    def discard(self, process: BotProcess) -> None:
        with self._lock:
            found = self._live.pop(process.pid, None)
        if found is not None and process.tag is not None:
            sentinel().release(process.pid, process.tag)

    def live(self) -> list[BotProcess]:
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
                _signal_group(pid)
            if callable(previous):
                previous(signum, frame)
            else:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        return handler


_REGISTRY = _Registry()
atexit.register(_REGISTRY.kill_all)
os.register_at_fork(after_in_child=_REGISTRY.clear)


def live_processes() -> list[BotProcess]:
    """The bot processes spawned and not yet killed (for diagnostics and tests)."""
    return _REGISTRY.live()


def install_signal_handlers() -> None:
    """Kill every bot group on SIGTERM/SIGINT/SIGHUP; call once from the main thread.

    spawn() does this itself when called from the main thread; a program that spawns bots
    only from worker threads should call it at start-up.
    """
    _REGISTRY.install_signal_handlers()
