"""The bubblewrap sandbox: what one bot may see, and the `bwrap` command line that shows it.

Each bot gets its own PID, mount, IPC, UTS, network and cgroup namespaces, a read-only view
of the system (/usr, /etc and the like), of the referee's interpreter and packages and of
its own folder, a private size-limited /tmp, and its ZeroMQ socket's folder. Nothing else:
no other bot, no game log, no results, no referee process. The model is ioi/isolate.

Run as root, the referee starts bwrap as root (so it can reach an interpreter under a
0700 /root) and the bot itself as an unprivileged uid of its own
(referee.processes.box_uids), with no capabilities and
no way to regain any (setpriv --no-new-privs, an empty bounding set, and a seccomp filter
against new user namespaces). Run as another user, bwrap makes an unprivileged user
namespace, and the bot keeps that user's id outside it. Either way a seccomp filter
(referee.processes.sandbox_filter) closes what namespaces leave shared between sandboxes:
keyrings, file locks and watches, page-cache probes.
"""

from __future__ import annotations

import enum
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import BotStartError, ConfigError
from referee.processes.box_uids import FIRST_UID
from referee.processes.sandbox_filter import SandboxFilter, sandbox_filter, sandbox_filter_problem

INSIDE_SOCKET_DIR = "/run/referee"  # where a bot finds its own ZeroMQ socket
SANDBOX_UID = FIRST_UID  # the uid of a View that names none (the probe's)
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_PROBE_TIMEOUT = 10.0


class SandboxMode(enum.Enum):
    """`--sandbox`: on (refuse without it), off (trusted bots only), auto (where it works)."""

    ON = "on"
    OFF = "off"
    AUTO = "auto"


@dataclass(frozen=True)
class SandboxSettings:
    """How bots are confined: the mode, the size of each private /tmp, extra folders."""

    mode: SandboxMode = SandboxMode.AUTO
    tmp_mb: int = 64
    extra_dirs: tuple[Path, ...] = ()  # more read-only folders, e.g. a JDK under /opt


@dataclass(frozen=True)
class View:
    """One bot's sandbox: its folder, its socket folder, and paths it must never see."""

    cwd: Path
    bot_folder: Path | None = None
    socket_dir: Path | None = None
    secrets: tuple[Path, ...] = ()  # logs, results: masked, or refused if they hold the bot
    extra_dirs: tuple[Path, ...] = ()
    tmp_bytes: int = 64 << 20
    env: Mapping[str, str] = field(default_factory=dict)
    uid: int = SANDBOX_UID  # a root referee's bot runs as this uid (a BoxUid's)


def running_as_root() -> bool:
    return os.geteuid() == 0


@functools.cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots on this machine, or None if it can (probed once)."""
    if program_path("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if running_as_root() and program_path("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    probe = bwrap_argv(View(cwd=Path("/")), ["true"])
    guard = sandbox_guard()
    try:
        done = subprocess.run(probe, executable=program_path("bwrap"), capture_output=True,
                              timeout=_PROBE_TIMEOUT, check=False,
                              preexec_fn=None if guard is None else guard.install)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not run here ({exc})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap does not work here: {said[-1] if said else done.returncode}"
    return None


def sandbox_weakness() -> str | None:
    """What a sandbox here lacks of what it promises, or None: the seccomp filter, which
    needs libseccomp (referee.processes.sandbox_filter)."""
    problem = sandbox_filter_problem()
    if problem is None:
        return None
    return f"no seccomp filter in the bots' sandboxes ({problem})"


def sandbox_enabled(mode: SandboxMode) -> bool:
    """Whether to sandbox under `mode`; ConfigError if `on` and it cannot be done whole.
    `auto` sandboxes where bwrap works, even without the seccomp filter (see
    weakness_warning)."""
    if mode is SandboxMode.OFF:
        return False
    problem = sandbox_problem()
    if mode is SandboxMode.ON:
        problem = problem or sandbox_weakness()
        if problem is not None:
            raise ConfigError(f"--sandbox on: {problem}")
    return problem is None


def auto_warning() -> str | None:
    """The one warning line for `--sandbox auto` on a machine where it cannot sandbox."""
    problem = sandbox_problem()
    if problem is None:
        return None
    return (f"bots run without a sandbox ({problem}): they can see each other, the "
            "referee and its files; use --sandbox on to refuse that")


def weakness_warning() -> str | None:
    """The one warning line for `--sandbox auto` where bots are sandboxed without the
    seccomp filter (a bot could hold every capability in a user namespace of its own)."""
    weakness = sandbox_weakness()
    if weakness is None or sandbox_problem() is not None:
        return None
    return (f"{weakness}: bots can share keyrings, file locks and watches, and as root "
            "hold every capability in a user namespace of their own; use --sandbox on to "
            "refuse that")


@functools.cache
def program_path(name: str) -> str | None:
    """Where `name` is on PATH, looked up once per process: given as a bare name, every
    bot's start would try each PATH entry in turn (an execve each), and setpriv's lookup
    would stat each of them in the referee."""
    return shutil.which(name)


def sandbox_guard() -> SandboxFilter | None:
    """The filter a bot's child installs before it execs bwrap (None without libseccomp).
    As root it also forbids new user namespaces; as another user bwrap needs its own, and
    its --disable-userns forbids the bot's."""
    return sandbox_filter(userns=running_as_root())


def bwrap_argv(view: View, argv: Sequence[str]) -> list[str]:
    """The command line that runs `argv` in the sandbox `view` describes."""
    options, command = bwrap_parts(view, argv)
    return ["bwrap", *options, "--", *command]


def bwrap_parts(view: View, argv: Sequence[str], proc_files: Sequence[str] = ()
                ) -> tuple[list[str], list[str]]:
    """bwrap's options for the sandbox `view` describes, and the command it runs there
    (the privileges dropped, then `argv`). The options name host paths, the organiser's
    masked files among them: BotProcess hands them to bwrap in a memory file (--args), as
    the sandbox's init shows its command line to the bot in /proc/1/cmdline.
    `proc_files`: options that bind still copies over /proc files (static_proc.py)."""
    binds, bind_args = _read_only_binds(view.extra_dirs, view.bot_folder)
    # By name, as process listings show it; BotProcess runs the program_path() found.
    args = ["--die-with-parent", "--new-session", *_namespaces()]
    # The private /tmp first: a bind under /tmp (a venv or a bot there, as in a CI clone)
    # then goes on top of it instead of under it.
    args += ["--proc", "/proc", *proc_files, "--dev", "/dev",
             "--perms", "1777", "--size", str(view.tmp_bytes), "--tmpfs", "/tmp"]
    args += bind_args
    args += _masks(view, [src for src, _ in binds])
    if view.socket_dir is not None:
        # Read-only: the bot may connect to its socket, never replace it.
        args += [*_parents([Path(INSIDE_SOCKET_DIR)]),
                 "--ro-bind", str(view.socket_dir), INSIDE_SOCKET_DIR]
    if not any(_within(view.cwd, dst) for _, dst in binds):
        args += ["--perms", "0755", "--dir", str(view.cwd)]
    args += ["--chdir", str(view.cwd), "--clearenv"]
    for name, value in view.env.items():
        args += ["--setenv", name, value]
    return [*args, *_capabilities()], [*_drop_privileges(view.uid), *argv]


def check_sealed(view: View, folders: Iterable[tuple[str, Path | None]]) -> None:
    """ConfigError, before any game, where a bot's folder would show it a secret that
    cannot be masked (the folder of the results db is the bot's own): `folders` is each
    bot's name and folder."""
    for name, folder in folders:
        binds, _ = _read_only_binds(view.extra_dirs, folder)
        try:
            _masks(view, [src for src, _ in binds])
        except BotStartError as exc:
            raise ConfigError(f"bot {name}: {exc}") from None


def _namespaces() -> list[str]:
    shared = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
              "--unshare-cgroup-try"]
    # As root there is no user namespace: setpriv makes the bot an unprivileged user.
    return shared if running_as_root() else ["--unshare-user", "--disable-userns", *shared]


def _capabilities() -> list[str]:
    if not running_as_root():
        return ["--cap-drop", "ALL"]
    # CAP_SETPCAP only so that setpriv can empty the bounding set before it drops to uid.
    return ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
            "--cap-add", "CAP_SETPCAP"]


def _drop_privileges(box_uid: int) -> list[str]:
    if not running_as_root():
        return []
    uid = str(box_uid)
    setpriv = program_path("setpriv") or "/usr/bin/setpriv"  # the sandbox's env has no PATH
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--"]


@functools.lru_cache(maxsize=256)
def _read_only_binds(extra_dirs: tuple[Path, ...], bot_folder: Path | None
                     ) -> tuple[tuple[tuple[Path, Path], ...], tuple[str, ...]]:
    """(source, destination) pairs, system first (a path under an earlier one is
    skipped), and bwrap's arguments that mount them. Worked out once per process for
    each bot folder: every start would resolve each path again (an lstat per folder of
    each) and check each against each."""
    wanted = [*_interpreter_dirs(), *extra_dirs]
    if bot_folder is not None:
        wanted.append(bot_folder)
    binds: list[tuple[Path, Path]] = [(Path(p), Path(p)) for p in _SYSTEM
                                      if os.path.isdir(p)]  # or a link to one: /lib
    real_sources = [Path(os.path.realpath(src)) for src, _ in binds]
    for path in wanted:
        real = Path(os.path.realpath(path))
        if real == Path("/"):
            raise BotStartError("a bot's folder cannot be / (it would show the whole system)")
        if real.is_dir() and not any(_within(real, src) for src in real_sources):
            binds.append((real, real))
            real_sources.append(real)
    args = _parents(dst for _, dst in binds)
    for src, dst in binds:
        args += _mount(src, dst)
    return tuple(binds), tuple(args)


def _interpreter_dirs() -> list[Path]:
    """The referee's interpreter and the packages a Python bot imports (pyzmq, the SDK)."""
    return [Path(sys.base_prefix), Path(sys.prefix), *_package_dirs()]


_PACKAGES = ("bots", "protocols", "referee")  # what a Python bot may import: SDK, codecs, engines


def _package_dirs() -> tuple[Path, ...]:
    """The folders of the packages a Python bot may import, found by path, not by import
    (the bots and codecs sit above this layer)."""
    return tuple(package_root() / name for name in _PACKAGES)


def give_to_bot(folder: Path, uid: int) -> None:
    """Let the sandboxed bot into its socket's 0700 folder: as root, the bot is `uid`. No
    process outside a sandbox runs as that user, and no sandbox but this bot's sees the
    folder."""
    if running_as_root():
        os.chown(folder, uid, uid)


@functools.cache
def package_root() -> Path:
    """The folder that holds the referee's packages (a bot's PYTHONPATH in the sandbox)."""
    return Path(__file__).resolve().parents[2]


def _mount(src: Path, dst: Path) -> list[str]:
    if str(src) in _SYSTEM and os.path.islink(src):
        return ["--symlink", os.readlink(src), str(dst)]
    return ["--ro-bind", str(src), str(dst)]


def _parents(destinations: Iterable[Path]) -> list[str]:
    """Create the folders above each mount point as 0755 (bwrap's own are 0700 as root)."""
    made: list[str] = []
    seen: set[Path] = set()
    for dst in destinations:
        for parent in reversed(dst.parents):
            if parent != Path("/") and parent not in seen and str(parent) not in _SYSTEM:
                seen.add(parent)
                made += ["--perms", "0755", "--dir", str(parent)]
    return made


def _masks(view: View, sources: Sequence[Path]) -> list[str]:
    """Hide each secret a bind would show: a folder under an empty tmpfs, a file under
    /dev/null. A secret folder that is itself a bot's folder cannot be hidden from it."""
    masks: list[str] = []
    for secret in (Path(os.path.realpath(s)) for s in view.secrets):
        if not any(_within(secret, src) for src in sources):
            continue
        if not secret.is_dir():
            if secret.exists():
                masks += ["--ro-bind", "/dev/null", str(secret)]
            continue
        if secret in sources:
            raise BotStartError(
                f"{str(secret)!r} holds results or logs, and is also a bot's own folder, "
                "which the bot reads: keep results and logs in a folder of their own, "
                "outside every bot's folder (e.g. --db results/NAME.sqlite)")
        masks += ["--tmpfs", str(secret)]
    return masks


def _within(path: Path, folder: Path) -> bool:
    """Is `path` `folder` or under it? (Both absolute; by parts, which pathlib keeps:
    `folder in path.parents` builds every parent as a new Path.)"""
    return path.parts[:len(folder.parts)] == folder.parts
