"""The seccomp filter against user namespaces (sandboxes of a root referee), on real processes.

The zoo (test_zoo.py) attacks it from inside a sandbox; here a plain child process shows
what it forbids and what it leaves alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import shutil
import subprocess
import sys

import pytest

from referee.processes.userns_filter import UsernsFilter, userns_filter

_PR_SET_NO_NEW_PRIVS = 38

pytestmark = pytest.mark.skipif(ctypes.util.find_library("seccomp") is None,
                                reason="no libseccomp here")


def filtered(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`argv` run under the filter (no_new_privs first, as a user other than root needs)."""
    guard = userns_filter()
    assert isinstance(guard, UsernsFilter)
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def setup() -> None:
        prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        guard.install()

    return subprocess.run(argv, preexec_fn=setup, capture_output=True, text=True,
                          timeout=60, check=False)


def test_libseccomp_builds_the_filter() -> None:
    guard = userns_filter()
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
