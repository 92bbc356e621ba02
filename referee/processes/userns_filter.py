"""A seccomp filter that forbids new user namespaces, for the sandboxes of a root referee.

As root, bwrap makes a bot's sandbox without a user namespace of its own (setpriv makes
the bot the unprivileged SANDBOX_UID instead), and bwrap's --disable-userns needs one.
Without more, a bot could unshare a user namespace and hold every capability inside it.
Installed in the child before it execs bwrap, this filter holds for every process of the
sandbox: unshare and clone fail with EPERM when asked for CLONE_NEWUSER, and clone3, whose
flags a filter cannot read, with ENOSYS (the C library then falls back to clone).

libseccomp compiles it, once per process: it knows each architecture's system call numbers,
also those of 32-bit programs on a 64-bit kernel. Where libseccomp is missing there is no
filter (userns_filter() gives None, userns_filter_problem() says why), and the sandbox
says so (referee.processes.sandbox.sandbox_weakness).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
from typing import Any

CLONE_NEWUSER = 0x10000000
_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000  # | errno
_CMP_MASKED_EQ = 7  # enum scmp_compare
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_BPF_INSTRUCTION_BYTES = 8  # struct sock_filter
# The 32-bit system call tables a 64-bit kernel also offers: covered too, not killed.
_COMPAT_ARCHES = {"x86_64": ("x86", "x32"), "aarch64": ("arm",)}


class _ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


class _SockFprog(ctypes.Structure):
    """struct sock_fprog."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class UsernsFilter:
    """A compiled filter, installed by a forked child before exec (install() allocates
    nothing, as is safe there)."""

    def __init__(self, program: bytes) -> None:
        self.program = program
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // _BPF_INSTRUCTION_BYTES,
                                 ctypes.cast(self._buffer, ctypes.c_void_p))
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def install(self) -> None:
        """From now on, neither this process nor any it starts can make a user namespace."""
        if self._prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(self._fprog),
                       0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot install the user-namespace filter")


INSTALL_HINT = "Debian and Ubuntu: apt-get install libseccomp2"


def userns_filter() -> UsernsFilter | None:
    """The filter for this machine; None where libseccomp is missing or cannot build it."""
    built = _filter_or_problem()
    return built if isinstance(built, UsernsFilter) else None


def userns_filter_problem() -> str | None:
    """Why this machine has no filter, or None if it has one."""
    built = _filter_or_problem()
    return built if isinstance(built, str) else None


@functools.cache
def _filter_or_problem() -> UsernsFilter | str:
    """The filter, built once per process, or why there is none."""
    lib = _libseccomp()
    if lib is None:
        return f"libseccomp is not installed; {INSTALL_HINT}"
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        return "libseccomp could not start a filter"
    try:
        return _built(lib, ctx)
    except OSError as error:
        return f"libseccomp could not build it: {error.strerror or error}; {INSTALL_HINT}"
    finally:
        lib.seccomp_release(ctx)


def _built(lib: Any, ctx: int) -> UsernsFilter:
    for arch in _COMPAT_ARCHES.get(os.uname().machine, ()):
        token = lib.seccomp_arch_resolve_name(arch.encode())
        if token:
            lib.seccomp_arch_add(ctx, token)  # a kernel without it: nothing to cover
    newuser = _ArgCmp(0, _CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)
    for name in ("unshare", "clone"):
        _rule(lib, ctx, _ACT_ERRNO | errno.EPERM, name, newuser)
    _rule(lib, ctx, _ACT_ERRNO | errno.ENOSYS, "clone3", None)
    return UsernsFilter(_export(lib, ctx))


def _rule(lib: Any, ctx: int, action: int, name: str, arg: _ArgCmp | None) -> None:
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:  # a libseccomp too old to know it: no filter rather than a leaky one
        raise OSError(errno.ENOSYS, f"libseccomp does not know {name}")
    args = ctypes.byref(arg) if arg is not None else None
    done = lib.seccomp_rule_add_array(ctx, action, number, 0 if arg is None else 1, args)
    if done != 0:
        raise OSError(-done, f"libseccomp refused a rule for {name}")


def _export(lib: Any, ctx: int) -> bytes:
    """The filter as BPF instructions (a few hundred bytes: a pipe holds them)."""
    read_end, write_end = os.pipe()
    try:
        done = lib.seccomp_export_bpf(ctx, write_end)
        os.close(write_end)
        write_end = -1
        if done != 0:
            raise OSError(-done, "libseccomp could not export the filter")
        chunks = []
        while chunk := os.read(read_end, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def _libseccomp() -> Any:
    name = ctypes.util.find_library("seccomp")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
    lib.seccomp_arch_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib
