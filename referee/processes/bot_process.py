"""A bot as a process: its own process group, resource limits, exit detection, whole kill.

Sandboxed (the default where bubblewrap works), a bot is the first process of its own PID
namespace (see referee.processes.sandbox): when that bwrap process dies, by our kill or
because the referee died (bwrap --die-with-parent), the kernel kills everything in the
namespace. Where the machine allows cgroups, every bot also has its own
(referee.processes.cgroups): limits count all its processes, and the kill takes the group
whole. A referee SIGKILLed while bwrap sets a sandbox up can still orphan bwrap's inner
process (see referee.processes.sentinel): bwrap's own environment carries the bot's tag
(the bot's does not: bwrap clears it), so the sentinel finds that process too.

Without a sandbox (trusted bots only), every spawned group is kept in a registry that
kills it at interpreter exit and on SIGTERM, SIGINT or SIGHUP. A process that left the
group (setsid, a daemon's double fork) is killed with the bot's cgroup where it has one
(a trusted bot running as root could still move itself to another group). Without a
cgroup it is found by the tag every bot inherits in its environment
($REFEREE_PROCESS_TAG), in a /proc sweep at each kill; only one that also clears its
environment escapes. If the referee itself is SIGKILLed, PR_SET_PDEATHSIG kills the
bot's main process, and the sentinel (referee.processes.sentinel) kills the rest.

A bot's stderr (and a ZeroMQ bot's stdout) goes through a capped sink
(referee.processes.stderr_sink), so no bot can fill a disk or a terminal.
"""

from __future__ import annotations

import os
import secrets
import select
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from referee.processes.bot_command import BotCommand
from referee.errors import BotStartError
from referee.processes.cgroups import BotCgroup, CgroupRoot
from referee.processes import static_proc
from referee.processes.box_uids import BoxUid
from referee.processes.sandbox_filter import SandboxFilter
from referee.processes.sandbox import (View, bwrap_parts, give_to_bot, program_path,
                                      running_as_root, sandbox_guard)
from referee.processes.live_bots import REGISTRY
from referee.processes.rlimits import child_setup, megabytes, rlimits
from referee.processes.stderr_sink import StderrSink
from referee.processes.tagged_kill import kill_group_and_tagged, signal_group
from referee.settings import ResourceLimits

TAG_VARIABLE = "REFEREE_PROCESS_TAG"  # a secret per bot: in a trusted bot's environment,
# in bwrap's for a sandboxed one
_STDERR_FD = 2  # the fd itself: sys.stderr may be a wrapper without one (e.g. under pytest)
_REAP_TIMEOUT = 5.0  # a SIGKILLed process in uninterruptible sleep may take a moment
_FALLBACK_SLICE = 0.02  # exit polling period when pidfd_open is unavailable
# bwrap's init reports a child killed by signal N as exit code 128 + N.
_SIGNAL_EXIT_BASE = 128


class BotProcess:
    """One running bot command, leader of its own process group (pgid == pid)."""

    def __init__(self, popen: subprocess.Popen[bytes], command: BotCommand, tag: bytes,
                 sandboxed: bool, cgroup: BotCgroup | None = None,
                 sink: StderrSink | None = None, uid: BoxUid | None = None) -> None:
        self._popen = popen
        self.command = command
        self.pid = popen.pid
        self.tag = tag  # the environment entry NAME=value (tag_entry)
        self.sandboxed = sandboxed
        self.cgroup = cgroup
        self._sink = sink
        self._uid = uid  # a root referee's sandboxed bot's own uid, held while it runs
        self._code: int | None = None
        self._reaped = False
        self._pidfd = _open_pidfd(popen.pid)

    @property
    def limits_holder(self) -> str:
        """What holds the bot's memory and process limits: its "cgroup v1" or "cgroup v2"
        (all its processes together), or "rlimits" (each process on its own)."""
        return "rlimits" if self.cgroup is None else f"cgroup v{self.cgroup.version}"

    @classmethod
    def spawn(cls, cmd: BotCommand, env: Mapping[str, str], limits: ResourceLimits,
              stderr: Path | None, view: View | None = None,
              label: str = "", game_stderr: Path | None = None) -> BotProcess:
        """Start `cmd` in a new process group with `limits`, in the sandbox `view` (None:
        no sandbox); stderr None goes to ours, each line led by `[label] `, so several
        bots' output can be told apart there. Both capped (StderrSink). With
        `game_stderr`, the output goes there until redirect_stderr(None) (see that).

        A stdio bot gets pipes on stdin and stdout. A ZeroMQ bot gets /dev/null as stdin
        and its stdout goes where its stderr goes, so it never mixes into our output.
        """
        tag = secrets.token_hex(8)
        launch = (_Launch(list(cmd.argv), {**env, TAG_VARIABLE: tag}) if view is None
                  else _sandbox_launch(cmd, env, tag, view))
        cgroups = CgroupRoot.find()
        cgroup = _new_cgroup(cgroups, limits)
        sink = (StderrSink(stderr) if stderr is not None else
                StderrSink(_STDERR_FD, prefix=f"[{label}] " if label else ""))
        with REGISTRY.starting():
            REGISTRY.expect(tag_entry(tag), cgroups)
            try:
                if game_stderr is not None:  # from the first byte: a crash at start-up too
                    sink.redirect(game_stderr)
                popen = _popen(cmd, launch.argv, launch.env, sink.child_fd(),
                               child_setup(rlimits(limits, cgroup), os.getpid(), cgroup,
                                           launch.guard),
                               launch.program, launch.fds)
            except BaseException:
                REGISTRY.forget(tag_entry(tag))
                sink.close()
                if cgroup is not None:
                    cgroup.remove()
                launch.release_uid()
                raise
            finally:
                launch.close_fds()
            sink.started()
            process = cls(popen, cmd, tag_entry(tag), view is not None, cgroup, sink,
                          launch.uid)
            REGISTRY.add(process)
        return process

    def redirect_stderr(self, game_stderr: Path | None) -> int:
        """Send the bot's stderr from now on to a game's own file, which keeps its last
        64 KiB, or for None back to where it first went; what the pipe holds goes to the
        old place first (StderrSink.redirect). Returns the bytes the game's file received."""
        return 0 if self._sink is None else self._sink.redirect(game_stderr)

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

    def stderr_recent(self) -> bytes:
        """The last bytes the bot wrote to its stderr (a ZeroMQ bot's stdout too) since
        its last redirect_stderr (StderrSink.recent); empty without a sink."""
        return b"" if self._sink is None else self._sink.recent()

    def kill(self) -> None:
        """SIGKILL the whole process group and whatever left it, and reap the leader and
        the orphans that came to this process. Idempotent. What left the group is found
        without a look at other processes: in the bot's cgroup, or its sandbox's PID
        namespace. Only an unsandboxed bot without a cgroup needs the /proc sweep for its
        tag, whose cost grows with the number of processes on the machine
        (referee.processes.tagged_kill)."""
        if self._reaped:
            return
        if self.sandboxed or self.cgroup is not None:
            # bwrap: its PID namespace dies with it; the cgroup holds those that left it
            signal_group(self.pid)
        else:  # no cgroup, no namespace: only the tag finds a process that left the group
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
        REGISTRY.reap_orphans()  # e.g. bwrap's inner process: the kill made it an orphan

    def _release(self) -> None:
        REGISTRY.discard(self)
        if self._sink is not None:
            self._sink.close()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._uid is not None:
            self._uid.release()  # its processes are gone: the cgroup or namespace held them
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


def tag_entry(tag: str) -> bytes:
    """The environment entry that carries a bot's tag, as a /proc sweep reads it."""
    return f"{TAG_VARIABLE}={tag}".encode()


def _open_pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _new_cgroup(cgroups: CgroupRoot | None, limits: ResourceLimits) -> BotCgroup | None:
    """A cgroup with the bot's limits, where this machine lets us make one."""
    if cgroups is None:
        return None
    try:
        return cgroups.new_group(megabytes(limits.memory_mb), limits.processes)
    except OSError:
        return None


@dataclass
class _Launch:
    """What spawn() starts: the command line, its environment and program, and for a
    sandbox the seccomp filter, the bot's uid and the memory files bwrap reads (closed
    once it has started)."""

    argv: list[str]
    env: dict[str, str]
    program: str | None = None  # None: found on env's PATH
    guard: SandboxFilter | None = None
    uid: BoxUid | None = None
    fds: tuple[int, ...] = ()

    def close_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = ()

    def release_uid(self) -> None:
        if self.uid is not None:
            self.uid.release()


def _sandbox_launch(cmd: BotCommand, env: Mapping[str, str], tag: str,
                    view: View) -> _Launch:
    """bwrap's launch of `cmd` in `view`: the bot's environment is the sandbox's
    (--setenv), bwrap's own is bare; its options go through a memory file (--args), with
    still copies of /proc's machine-wide files (static_proc.py)."""
    launch = _Launch([], {**_bare_env(), TAG_VARIABLE: tag}, guard=sandbox_guard(),
                     uid=_own_uid(view))
    try:
        view = replace(view, env=dict(env),
                       uid=view.uid if launch.uid is None else launch.uid.number)
        proc_files = static_proc.memory_files()
        launch.fds = tuple(fd for _, fd in proc_files)
        options, command = bwrap_parts(view, cmd.argv, static_proc.bwrap_options(proc_files))
        args_fd = _args_file(options)
    except BaseException:
        launch.close_fds()
        launch.release_uid()
        raise
    launch.fds = (args_fd, *launch.fds)
    launch.argv = sandbox_argv(args_fd, command)
    launch.program = None if os.sep in launch.argv[0] else program_path(launch.argv[0])
    return launch


def _own_uid(view: View) -> BoxUid | None:
    """As root, a uid for this bot alone, which its socket's folder is given to; as
    another user, None: the bot's user namespace is its own."""
    if not running_as_root():
        return None
    try:
        uid = BoxUid.claim()
    except OSError as exc:
        raise BotStartError(f"cannot sandbox a bot: {exc}") from None
    if view.socket_dir is not None:
        give_to_bot(view.socket_dir, uid.number)
    return uid


def _bare_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath)}


def sandbox_argv(args_fd: int, command: list[str]) -> list[str]:
    """bwrap's command line: its options in the file `args_fd`, then what it runs."""
    return ["bwrap", "--args", str(args_fd), "--", *command]


def _args_file(options: list[str]) -> int:
    """A memory file holding bwrap's options, NUL-separated, for `bwrap --args FD`: out of
    bwrap's command line, which the bot reads as /proc/1/cmdline (a pipe would block on
    a long list)."""
    fd = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
    try:
        os.write(fd, b"".join(option.encode() + b"\0" for option in options))
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _popen(cmd: BotCommand, argv: list[str], env: Mapping[str, str], err_fd: int,
           setup: Callable[[], None], program: str | None = None,
           pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[bytes]:
    """Start `argv`, from the file `program` if given (else found on env's PATH)."""
    try:
        return subprocess.Popen(
            argv, executable=program, env=env, process_group=0,
            stdin=subprocess.PIPE if cmd.stdio else subprocess.DEVNULL,
            stdout=subprocess.PIPE if cmd.stdio else err_fd, stderr=err_fd,
            preexec_fn=setup, pass_fds=pass_fds)
    except OSError as exc:
        raise BotStartError(f"cannot start bot {cmd.text!r}: {exc.strerror or exc}") from None
    except subprocess.SubprocessError as exc:  # the preexec setup failed in the child
        raise BotStartError(f"cannot start bot {cmd.text!r}: {exc}") from None
