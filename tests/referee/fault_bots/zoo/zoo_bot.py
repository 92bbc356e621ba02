#!/usr/bin/env python3
"""A hostile Rage bot: `zoo_bot.py MODE [ARGS...]` attacks its sandbox, then plays legally.

It reports what its attack found as one line `ZOO {json}` on stderr (the sandbox clears
the environment, so it is configured by argv only). Attacks that need the handshake done
(its endpoint already unlinked, threads already made) run at the first referee line.

  procs                      list /proc: pids, cmdlines, tokens in other processes' environ
  sockets                    find every socket file and abstract socket, try to connect
  secrets PATH... -- PID     open each PATH; read /proc/1/cmdline and /proc/PID/{mem,cmdline}
  net PORT ABSTRACT          TCP to 127.0.0.1:PORT and others, the host's abstract socket
  kill                       SIGKILL/SIGSTOP every pid 1..65535 but itself, and pid -1
                             (only where pid 1 is bwrap: never run it unsandboxed)
  daemon MARKER [N]          N double-forked, setsid, env-cleared daemons that sleep
  hopper MARKER              a chain of forks whose parents exit at once
  forkbomb MARKER            children that fork until refused, then sleep
  memory MB N                N children that each allocate and touch MB MiB
  hog MB                     the main process itself allocates and touches MB MiB
  disk                       fill /tmp; write into its own folder, cwd, /usr, /etc, /run
  stderr MB                  MB MiB of stderr and stdout before the handshake
  caps                       /proc/self/status capabilities and uids; setuid(0)
  connflood N                N raw connections to its endpoint before HELLO
  slow SECONDS               waits before each reply (for the referee-kill test)

MARKER is any unique word: it stays in every process's argv, so a test finds survivors.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import socket
import stat
import sys
import time
from pathlib import Path
from typing import Any, Callable

if len(Path(__file__).resolve().parents) > 4:  # unsandboxed runs; a copy may be elsewhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from bots.sdk import run_bot  # noqa: E402

Report = dict[str, Any]
FOREVER = 1000.0
HOG: list[bytearray] = []  # memory held on purpose


def report(mode: str, found: Report) -> None:
    """One `ZOO {json}` line on stderr."""
    sys.stderr.write("ZOO " + json.dumps({"mode": mode, **found}) + "\n")
    sys.stderr.flush()


def read_bytes(path: str, limit: int = 4096) -> bytes | str:
    """The first bytes of a file, or the error's name."""
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc))


def pids() -> list[int]:
    return sorted(int(e) for e in os.listdir("/proc") if e.isdigit())


def attack_procs(args: list[str]) -> Report:
    """Every process this bot can see, and any REFEREE_TOKEN not its own."""
    own = os.environ.get("REFEREE_TOKEN", "")
    cmdlines: dict[int, str] = {}
    tokens: list[str] = []
    for pid in pids():
        raw = read_bytes(f"/proc/{pid}/cmdline")
        cmdlines[pid] = raw.replace(b"\0", b" ").decode("utf-8", "replace") \
            if isinstance(raw, bytes) else raw
        env = read_bytes(f"/proc/{pid}/environ", 1 << 16)
        if isinstance(env, bytes):
            for entry in env.split(b"\0"):
                if entry.startswith(b"REFEREE_TOKEN=") and entry[14:].decode() != own:
                    tokens.append(entry.decode())
    return {"self": os.getpid(), "cmdlines": cmdlines, "foreign_tokens": tokens}


def _socket_files(roots: list[str], budget: int = 20000) -> list[str]:
    found = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                budget -= 1
                path = os.path.join(folder, name)
                try:
                    if stat.S_ISSOCK(os.lstat(path).st_mode):
                        found.append(path)
                except OSError:
                    pass
            if budget <= 0:
                return found
    return found


def _connect_unix(address: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        try:
            s.connect(address)
        except OSError as exc:
            return errno.errorcode.get(exc.errno or 0, str(exc))
    return "connected"


def attack_sockets(args: list[str]) -> Report:
    """Connect to every unix socket in the filesystem and in /proc/net/unix."""
    files = _socket_files(["/tmp", "/run", "/var", "/dev", os.getcwd()])
    abstract = []
    text = read_bytes("/proc/net/unix", 1 << 20)
    if isinstance(text, bytes):
        for line in text.decode().splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 8 and parts[7].startswith("@"):
                abstract.append(parts[7])
    tries = {p: _connect_unix(p) for p in files}
    tries.update({a: _connect_unix("\0" + a[1:]) for a in abstract})
    return {"sockets": files, "abstract": abstract, "connects": tries,
            "run_referee": sorted(os.listdir("/run/referee"))
            if os.path.isdir("/run/referee") else None}


def attack_secrets(args: list[str]) -> Report:
    """Open each path given; look at pid 1 and at the referee's pid."""
    cut = args.index("--")
    paths, referee_pid = args[:cut], args[cut + 1]
    opened = {p: _describe(read_bytes(p)) for p in paths}
    return {"opened": opened,
            "pid1": _describe(read_bytes("/proc/1/cmdline")),
            "referee_mem": _describe(read_bytes(f"/proc/{referee_pid}/mem", 16)),
            "referee_cmdline": _describe(read_bytes(f"/proc/{referee_pid}/cmdline"))}


def _describe(got: bytes | str) -> str:
    if isinstance(got, str):
        return "error " + got
    return "read " + got.replace(b"\0", b" ").decode("utf-8", "replace")[:200]


def attack_net(args: list[str]) -> Report:
    """TCP and UDP anywhere; the host's abstract unix socket."""
    port, abstract = int(args[0]), args[1]
    tcp = {}
    for host, p in [("127.0.0.1", port), ("127.0.0.1", 22), ("127.0.0.1", 80),
                    ("8.8.8.8", 53), ("1.1.1.1", 443), ("10.0.0.1", 80)]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(1.0)
            try:
                s.connect((host, p))
                tcp[f"{host}:{p}"] = "connected"
            except OSError as exc:
                tcp[f"{host}:{p}"] = errno.errorcode.get(exc.errno or 0, str(exc))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.sendto(b"x", ("8.8.8.8", 53))
            udp = "sent"
        except OSError as exc:
            udp = errno.errorcode.get(exc.errno or 0, str(exc))
    interfaces = [line.split(":")[0].strip()
                  for line in Path("/proc/net/dev").read_text().splitlines()[2:]]
    return {"tcp": tcp, "udp": udp, "abstract": _connect_unix("\0" + abstract),
            "interfaces": interfaces}


def sandboxed() -> bool:
    """Is this process in a bubblewrap sandbox (pid 1 is bwrap)? The kill and the fork
    bomb refuse to run elsewhere: unsandboxed, as root, they would take the machine down."""
    got = read_bytes("/proc/1/cmdline")
    return isinstance(got, bytes) and got.split(b"\0")[0].endswith(b"bwrap")


def attack_kill(args: list[str]) -> Report:
    """SIGSTOP then SIGKILL everything it may; count the signals that were delivered."""
    if not sandboxed():
        return {"refused": "not in a sandbox"}
    own = {os.getpid(), *(int(t) for t in os.listdir("/proc/self/task"))}
    delivered: dict[str, list[int]] = {"SIGSTOP": [], "SIGKILL": []}
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in range(1, 65536):
            if pid in own:
                continue
            try:
                os.kill(pid, sig)
                delivered[sig.name].append(pid)
            except OSError:
                pass
    try:
        os.kill(-1, signal.SIGKILL)
        minus_one = "sent"
    except OSError as exc:
        minus_one = errno.errorcode.get(exc.errno or 0, str(exc))
    return {"delivered": delivered, "minus_one": minus_one}


def _sleep_forever() -> None:
    """In a forked child: never return (and never run the parent's atexit or zmq)."""
    try:
        while True:
            time.sleep(FOREVER)
    finally:
        os._exit(0)


def _daemonize() -> bool:
    """Double fork + setsid + an empty environment; True in the daemon, False in the caller."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)
        return False
    os.setsid()
    if os.fork():
        os._exit(0)
    os.environ.clear()
    for fd in range(0, 3):
        try:
            os.close(fd)
        except OSError:
            pass
    return True


def others_marked(marker: str, wait: float = 0.5) -> int:
    """After `wait` seconds, how many other processes carry `marker` in their argv."""
    time.sleep(wait)
    count = 0
    for pid in pids():
        raw = read_bytes(f"/proc/{pid}/cmdline")
        if pid != os.getpid() and isinstance(raw, bytes) and marker.encode() in raw:
            count += 1
    return count


def attack_daemon(args: list[str]) -> Report:
    """N daemons that outlive the main process's game (argv keeps the marker)."""
    count = int(args[1]) if len(args) > 1 else 1
    for _ in range(count):
        if _daemonize():
            _sleep_forever()
    return {"daemons": count, "alive": others_marked(args[0])}


def attack_hopper(args: list[str]) -> Report:
    """A child that forks and exits, over and over: the survivor's pid keeps changing."""
    if os.fork() == 0:
        os.setsid()
        os.environ.clear()
        while True:
            try:
                if os.fork():
                    os._exit(0)
            except OSError:
                time.sleep(0.01)
    return {"hopping": True, "alive": others_marked(args[0])}


def attack_forkbomb(args: list[str]) -> Report:
    """Children that fork until the kernel refuses for a while, then sleep forever."""
    if not sandboxed():
        return {"refused": "not in a sandbox", "alive": 0}
    if os.fork() == 0:
        os.setsid()
        refused, deadline = 0, time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                os.fork()
            except OSError:
                refused += 1
                time.sleep(0.001)
        _sleep_forever()
    return {"bomb": True, "alive": others_marked(args[0], 1.0)}


def _touch(mb: int) -> bytearray:
    block = bytearray(mb << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    return block


def attack_memory(args: list[str]) -> Report:
    """N children each allocate and touch MB MiB, then say so on a pipe and hold it."""
    mb, count = int(args[0]), int(args[1])
    read_end, write_end = os.pipe()
    children = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            HOG.append(_touch(mb))  # held while it sleeps
            os.write(write_end, b"+")
            _sleep_forever()
        children.append(pid)
    os.close(write_end)
    done = 0
    os.set_blocking(read_end, False)
    deadline = time.monotonic() + 6.0
    statuses: dict[int, int] = {}
    while time.monotonic() < deadline and len(statuses) + done < 2 * count:
        try:
            done += len(os.read(read_end, 64))
        except BlockingIOError:
            pass
        for pid in children:
            if pid not in statuses:
                got, status = os.waitpid(pid, os.WNOHANG)
                if got:
                    statuses[pid] = status
        if done + len(statuses) >= count and done + len(statuses) > 0:
            break
        time.sleep(0.02)
    alive = {pid: _rss_kb(pid) for pid in children if pid not in statuses}
    killed = sum(1 for s in statuses.values() if os.WIFSIGNALED(s))
    # Held at the end: a child that completed may be the one the OOM killer takes when
    # the next completes too, so completions alone can count two that never coexisted.
    held = sum(1 for kb in alive.values() if kb >= (mb << 10) * 9 // 10)
    return {"completed": done, "held": held, "killed": killed,
            "children_rss_mb": sum(alive.values()) // 1024}


def _rss_kb(pid: int) -> int:
    got = read_bytes(f"/proc/{pid}/status", 1 << 14)
    if isinstance(got, str):
        return 0
    for line in got.decode().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def attack_hog(args: list[str]) -> Report:
    """The main process itself allocates and touches MB MiB (report first: it may die)."""
    report("hog", {"allocating": int(args[0])})
    HOG.append(_touch(int(args[0])))
    return {"held": int(args[0])}


def attack_disk(args: list[str]) -> Report:
    """Fill /tmp with 16 MiB files up to 200 MiB; try to write outside /tmp."""
    chunk = b"x" * (1 << 20)
    written, error = 0, "none"
    try:
        for n in range(13):
            with open(f"/tmp/fill-{n}", "wb") as f:
                for _ in range(16):
                    f.write(chunk)
                    written += len(chunk)
                f.flush()
    except OSError as exc:
        error = errno.errorcode.get(exc.errno or 0, str(exc))
    here = str(Path(__file__).resolve().parent)
    elsewhere = {}
    for folder in [here, os.getcwd(), "/usr", "/etc", "/run/referee", "/", "/proc/sys"]:
        try:
            with open(os.path.join(folder, "zoo-was-here"), "wb") as f:
                f.write(b"x")
            elsewhere[folder] = "written"
        except OSError as exc:
            elsewhere[folder] = errno.errorcode.get(exc.errno or 0, str(exc))
    return {"tmp_written_mb": written >> 20, "tmp_error": error, "elsewhere": elsewhere}


def flood_output(mb: int) -> None:
    """MB MiB on stderr and on stdout, as fast as it goes."""
    chunk = b"E" * (1 << 20)
    for _ in range(mb):
        os.write(2, chunk)
        os.write(1, chunk)


def attack_caps(args: list[str]) -> Report:
    """The capability sets and ids the kernel gives this process; try to become root."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text()
                  .splitlines() if ":" in line)
    found: Report = {k: fields[k].strip() for k in ("Uid", "Gid", "CapInh", "CapPrm", "CapEff",
                                            "CapBnd", "CapAmb", "NoNewPrivs") if k in fields}
    try:
        os.setuid(0)
        found["setuid0"] = "succeeded"
    except OSError as exc:
        found["setuid0"] = errno.errorcode.get(exc.errno or 0, str(exc))
    found["userns_CapEff"] = userns_caps()
    found["clone_newuser"] = raw_clone_newuser()
    return found


def userns_caps() -> str:
    """In a single-threaded child: unshare a user namespace; its CapEff there, or errno."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
            answer = "error " + errno.errorcode.get(ctypes.get_errno(), "?")
        else:
            status = Path("/proc/self/status").read_text()
            answer = next(line.split()[1] for line in status.splitlines()
                          if line.startswith("CapEff:"))
        os.write(write_end, answer.encode())
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    answer = os.read(read_end, 100).decode()
    os.close(read_end)
    return answer


# (clone, clone3) system call numbers: a filter may treat clone3 apart, as its flags are
# in memory it cannot read.
_CLONE_SYSCALLS = {"x86_64": (56, 435), "aarch64": (220, 435)}


def raw_clone_newuser() -> dict[str, str]:
    """Make a user namespace with the raw clone and clone3 system calls, not unshare:
    'made' or the errno of each."""
    numbers = _CLONE_SYSCALLS.get(os.uname().machine)
    if numbers is None:
        return {"clone": "unknown machine", "clone3": "unknown machine"}
    libc = ctypes.CDLL(None, use_errno=True)
    newuser_sigchld = 0x10000000 | signal.SIGCHLD
    args = (ctypes.c_uint64 * 11)(0x10000000, 0, 0, 0, signal.SIGCHLD)  # clone_args
    calls = {"clone": lambda: libc.syscall(numbers[0], newuser_sigchld, 0, 0, 0, 0),
             "clone3": lambda: libc.syscall(numbers[1], ctypes.byref(args),
                                            ctypes.sizeof(args))}
    return {name: _cloned(call, libc) for name, call in calls.items()}


def _cloned(call: Callable[[], int], libc: Any) -> str:
    pid = call()
    if pid == 0:
        os._exit(0)  # the child, in its new user namespace: nothing more to do
    if pid < 0:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    os.waitpid(pid, 0)
    return "made"


def conn_flood(count: int) -> Report:
    """Open and close `count` raw connections to its endpoint; how many got through."""
    path = os.environ["REFEREE_ENDPOINT"].removeprefix("ipc://")
    ok, last = 0, "none"
    for _ in range(count):
        result = _connect_unix(path)
        if result == "connected":
            ok += 1
        else:
            last = result
    return {"connected": ok, "last_error": last}


ATTACKS: dict[str, Callable[[list[str]], Report]] = {
    "procs": attack_procs, "sockets": attack_sockets, "secrets": attack_secrets,
    "net": attack_net, "kill": attack_kill, "daemon": attack_daemon,
    "hopper": attack_hopper, "forkbomb": attack_forkbomb, "memory": attack_memory,
    "hog": attack_hog, "disk": attack_disk, "caps": attack_caps,
}


class ZooBot:
    """Attacks at the first referee line, then answers every request with its first option."""

    def __init__(self, mode: str, args: list[str]) -> None:
        self.mode, self.args = mode, args
        self.attacked = mode not in ATTACKS
        self.delay = float(args[0]) if mode == "slow" else 0.0

    def on_line(self, line: str) -> str | None:
        if not self.attacked:
            self.attacked = True
            report(self.mode, ATTACKS[self.mode](self.args))
        words = line.split()
        if not words or not words[0].endswith("?"):
            return None
        time.sleep(self.delay)
        return words[1] if len(words) > 1 else ""


def main() -> None:
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "stderr":
        flood_output(int(args[0]))
    elif mode == "connflood":
        report(mode, conn_flood(int(args[0])))
    run_bot(f"zoo-{mode}", "1.0", ZooBot(mode, args))


if __name__ == "__main__":
    main()
