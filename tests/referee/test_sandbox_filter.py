"""The sandbox's seccomp filter, on real processes: no shared keyrings, locks, watches or
page-cache probes, and (a root referee's) no user namespaces.

The zoo (test_zoo.py) attacks it from inside a sandbox; here a plain child process shows
what it forbids and what it leaves alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.processes.sandbox_filter import SandboxFilter, sandbox_filter

_PR_SET_NO_NEW_PRIVS = 38

pytestmark = pytest.mark.skipif(ctypes.util.find_library("seccomp") is None,
                                reason="no libseccomp here")


def filtered(argv: list[str], userns: bool = True) -> subprocess.CompletedProcess[str]:
    """`argv` run under the filter (no_new_privs first, as a user other than root needs)."""
    guard = sandbox_filter(userns)
    assert isinstance(guard, SandboxFilter)
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def setup() -> None:
        prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        guard.install()

    return subprocess.run(argv, preexec_fn=setup, capture_output=True, text=True,
                          timeout=60, check=False)


def test_libseccomp_builds_the_filter() -> None:
    for userns in (True, False):
        guard = sandbox_filter(userns)
        assert guard is not None and guard.program and len(guard.program) % 8 == 0


@pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare(1) here")
def test_no_user_namespace_under_the_filter() -> None:
    done = filtered(["unshare", "--user", "true"])
    assert done.returncode != 0 and "Operation not permitted" in done.stderr
    assert subprocess.run(["unshare", "--user", "true"], check=False).returncode == 0


def test_threads_and_child_processes_still_start() -> None:
    """clone3 gives ENOSYS, and the C library falls back to clone."""
    script = ("import subprocess, sys, threading\n"
              "t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n"
              "subprocess.run([sys.executable, '-c', 'print(\"child\")'], check=True)\n")
    done = filtered([sys.executable, "-c", script])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["thread", "child"]


PROBE = """
import ctypes, errno, fcntl, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    done = getattr(libc, name)(*args)
    return 0 if done >= 0 else ctypes.get_errno()
print("keyctl", call("syscall", 250, 0, -3, 0))  # KEYCTL_GET_KEYRING_ID, the user keyring
print("add_key", call("syscall", 248, b"user", b"hand", b"x", 1, -4))
print("inotify", call("inotify_init1", 0))
fd = os.open(sys.argv[1], os.O_RDONLY)
print("flock", call("flock", fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
print("setlk", call("fcntl", fd, fcntl.F_SETLK, ctypes.create_string_buffer(32)))
print("notify", call("fcntl", os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY),
                     fcntl.F_NOTIFY, 1))
buf = ctypes.create_string_buffer(16)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 16)
print("nowait", call("syscall", 327, fd, iov, 1, 0, 0, 8))  # preadv2(..., RWF_NOWAIT)
print("plain", call("syscall", 327, fd, iov, 1, 0, 0, 0))
print("getfl", call("fcntl", fd, fcntl.F_GETFL))
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # raises on failure: succeeds unheard
print("fadvise", 0)
print("pageout", call("syscall", 28, 0, 4096, 21))  # madvise(0, 4096, MADV_PAGEOUT)
print("dontneed", call("syscall", 28, 0, 4096, 4))  # MADV_DONTNEED, a real call: ENOMEM
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probe's call numbers")
@pytest.mark.parametrize("userns", [True, False])
def test_what_sandboxes_would_share_is_closed(tmp_path: Path, userns: bool) -> None:
    """Keyrings give ENOSYS as on a kernel without them, and so do watches; locks succeed
    without locking; a page-cache probe is EOPNOTSUPP. Plain reads and fcntl go on."""
    shared = tmp_path / "shared.txt"
    shared.write_text("every sandbox sees this file")
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = filtered([sys.executable, str(script), str(shared)], userns)
    assert done.returncode == 0, done.stderr
    said = dict(line.split() for line in done.stdout.splitlines())
    assert {name: int(code) for name, code in said.items()} == {
        "keyctl": errno.ENOSYS, "add_key": errno.ENOSYS, "inotify": errno.ENOSYS,
        "flock": 0, "setlk": 0, "notify": errno.EINVAL, "nowait": errno.EOPNOTSUPP,
        "plain": 0, "getfl": 0, "fadvise": 0, "pageout": 0, "dontneed": errno.ENOMEM}


def test_a_lock_under_the_filter_excludes_no_one(tmp_path: Path) -> None:
    """The flock channel: a lock held outside does not stop a filtered process's lock
    (it succeeds without locking), so a lock carries no bit between sandboxes."""
    shared = tmp_path / "shared.txt"
    shared.write_text("x")
    with open(shared, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        probe = ("import fcntl, sys\n"
                 "fcntl.flock(open(sys.argv[1], 'rb'), fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
                 "print('locked')\n")
        done = filtered([sys.executable, "-c", probe, str(shared)])
        unfiltered = subprocess.run([sys.executable, "-c", probe, str(shared)],
                                    capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.split() == ["locked"], done.stderr
    assert unfiltered.returncode != 0 and "BlockingIOError" in unfiltered.stderr
