"""The seccomp filter every sandboxed bot runs under: what no bot needs and what would let
one sandbox reach another.

Each rule closes a channel that a second hunt for hostile bots found open between
sandboxes (namespaces do not separate these; the files every sandbox sees are the same
inodes):

- the kernel's keyrings (add_key, request_key, keyctl): a user keyring outlives the bot,
  the game and the referee, so a bot could leave a dealt hand there for the next rotation
  of the same deal. ENOSYS, as on a kernel built without keys.
- file locks (flock, fcntl's F_SETLK family, F_SETLEASE): a lock on a read-only file
  that every sandbox sees (the Python library) carried kilobytes a second. They succeed
  without locking: a bot's own locks then never exclude anything, which only a bot that
  locks between its own processes could notice.
- file watches (inotify, fanotify, fcntl's F_NOTIFY): an open or read of a shared file
  in one sandbox raised an event in another. ENOSYS (EINVAL for F_NOTIFY).
- the shared page cache: reads that tell whether a page is cached (preadv2 with
  RWF_NOWAIT) are EOPNOTSUPP, as on a file system without them; advice that would evict
  a shared file's pages (posix_fadvise, madvise's MADV_COLD and MADV_PAGEOUT) succeeds
  without acting, as advice may. A bot can still time its reads, but each page of the
  shared files then carries a bit once (docs/sandbox.md).

As root, bwrap makes a bot's sandbox without a user namespace of its own (setpriv makes
the bot an unprivileged uid instead), and bwrap's --disable-userns needs one. So a root
referee's filter also forbids new user namespaces: unshare and clone fail with EPERM when
asked for CLONE_NEWUSER, and clone3, whose flags a filter cannot read, with ENOSYS (the C
library then falls back to clone). As another user bwrap's --disable-userns does that, and
the filter must leave bwrap its own user namespace.

Installed in the child before it execs bwrap, the filter holds for every process of the
sandbox. libseccomp compiles it, once per process and kind: it knows each architecture's
system call numbers, also those of 32-bit programs on a 64-bit kernel. Where libseccomp is
missing there is no filter (sandbox_filter() gives None, sandbox_filter_problem() says why),
and the sandbox says so (referee.processes.sandbox.sandbox_weakness).
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
_ACT_ERRNO = 0x00050000  # | errno; errno 0 makes the call succeed without running
_CMP_EQ = 4  # enum scmp_compare
_CMP_MASKED_EQ = 7
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2
_BPF_INSTRUCTION_BYTES = 8  # struct sock_filter
_SCMP_ERROR = -1  # __NR_SCMP_ERROR: a name libseccomp does not know at all
# The 32-bit system call tables a 64-bit kernel also offers: covered too, not killed.
_COMPAT_ARCHES = {"x86_64": ("x86", "x32"), "aarch64": ("arm",)}
# fcntl commands that lock (F_SETLK, F_SETLKW, their 32-bit *64 forms, the OFD ones).
_LOCKING_FCNTL = (6, 7, 13, 14, 37, 38)
_F_SETLEASE, _F_NOTIFY = 1024, 1026
_RWF_NOWAIT = 0x8
_MADV_COLD, _MADV_PAGEOUT = 20, 21
_MADVISE_ADVICE_ARG = 2  # madvise(addr, length, advice)
_PREADV2_FLAGS_ARG = 5  # preadv2(fd, iov, iovcnt, pos_l, pos_h, flags)


class _ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


class _SockFprog(ctypes.Structure):
    """struct sock_fprog."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class SandboxFilter:
    """A compiled filter, installed by a forked child before exec (install() allocates
    nothing, as is safe there)."""

    def __init__(self, program: bytes, userns: bool) -> None:
        self.program = program
        self.userns = userns  # forbids new user namespaces (a root referee's filter)
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // _BPF_INSTRUCTION_BYTES,
                                 ctypes.cast(self._buffer, ctypes.c_void_p))
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def install(self) -> None:
        """From now on, this process and every one it starts are under the filter. A user
        other than root may install one only with no_new_privs, which bwrap's unprivileged
        mode does not mind."""
        if os.geteuid() != 0 and self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot set no_new_privs for the filter")
        if self._prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(self._fprog),
                       0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot install the sandbox's seccomp filter")


INSTALL_HINT = "Debian and Ubuntu: apt-get install libseccomp2"


def sandbox_filter(userns: bool) -> SandboxFilter | None:
    """The filter for this machine, forbidding new user namespaces too if `userns`; None
    where libseccomp is missing or cannot build it."""
    built = _filter_or_problem(userns)
    return built if isinstance(built, SandboxFilter) else None


def sandbox_filter_problem() -> str | None:
    """Why this machine has no filter, or None if it has one."""
    built = _filter_or_problem(True)
    return built if isinstance(built, str) else None


@functools.cache
def _filter_or_problem(userns: bool) -> SandboxFilter | str:
    """The filter, built once per process, or why there is none."""
    lib = _libseccomp()
    if lib is None:
        return f"libseccomp is not installed; {INSTALL_HINT}"
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        return "libseccomp could not start a filter"
    try:
        return _built(lib, ctx, userns)
    except OSError as error:
        return f"libseccomp could not build it: {error.strerror or error}; {INSTALL_HINT}"
    finally:
        lib.seccomp_release(ctx)


def _built(lib: Any, ctx: int, userns: bool) -> SandboxFilter:
    for arch in _COMPAT_ARCHES.get(os.uname().machine, ()):
        token = lib.seccomp_arch_resolve_name(arch.encode())
        if token:
            lib.seccomp_arch_add(ctx, token)  # a kernel without it: nothing to cover
    _shared_state_rules(lib, ctx)
    if userns:
        newuser = _ArgCmp(0, _CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)
        for name in ("unshare", "clone"):
            _rule(lib, ctx, _ACT_ERRNO | errno.EPERM, name, newuser)
        _rule(lib, ctx, _ACT_ERRNO | errno.ENOSYS, "clone3")
    return SandboxFilter(_export(lib, ctx), userns)


def _shared_state_rules(lib: Any, ctx: int) -> None:
    """Close the channels between sandboxes that the module's docstring lists."""
    for name in ("add_key", "request_key", "keyctl",
                 "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init"):
        _rule(lib, ctx, _ACT_ERRNO | errno.ENOSYS, name)
    _rule(lib, ctx, _ACT_ERRNO | 0, "flock")
    for name in ("fcntl", "fcntl64"):
        for command in _LOCKING_FCNTL:
            _rule(lib, ctx, _ACT_ERRNO | 0, name, _ArgCmp(1, _CMP_EQ, command, 0))
        _rule(lib, ctx, _ACT_ERRNO | errno.EPERM, name, _ArgCmp(1, _CMP_EQ, _F_SETLEASE, 0))
        _rule(lib, ctx, _ACT_ERRNO | errno.EINVAL, name, _ArgCmp(1, _CMP_EQ, _F_NOTIFY, 0))
    nowait = _ArgCmp(_PREADV2_FLAGS_ARG, _CMP_MASKED_EQ, _RWF_NOWAIT, _RWF_NOWAIT)
    _rule(lib, ctx, _ACT_ERRNO | errno.EOPNOTSUPP, "preadv2", nowait)
    for name in ("fadvise64", "fadvise64_64", "arm_fadvise64_64"):
        _rule(lib, ctx, _ACT_ERRNO | 0, name)
    for advice in (_MADV_COLD, _MADV_PAGEOUT):
        _rule(lib, ctx, _ACT_ERRNO | 0, "madvise",
              _ArgCmp(_MADVISE_ADVICE_ARG, _CMP_EQ, advice, 0))


def _rule(lib: Any, ctx: int, action: int, name: str, arg: _ArgCmp | None = None) -> None:
    # A negative number other than _SCMP_ERROR is a call this architecture lacks (fcntl64
    # on x86_64): libseccomp applies it to the 32-bit tables that have it.
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number == _SCMP_ERROR:  # too old to know it: no filter rather than a leaky one
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
