"""The pyzmq calls on the hot path of every decision: send, recv and poll, behind one seam.

Why: every decision is a few sends, receives and polls on each side, and with fast bots
these calls are much of its cost. pyzmq's public layer adds to each one: Socket.send checks
for features the referee and the SDK never use (copy threshold, routing ids, groups), a
Poller rebuilds its list on every poll, and enum flags cost more in arithmetic than plain
ints. So the bot SDK (bots/sdk.py) calls the Cython backend directly
(zmq.backend.Socket.send/recv, zmq.backend.zmq_poll), with plain-int flags, and only
through this module. The referee's own end of a connection no longer uses pyzmq: it speaks
ZMTP itself (referee/transport/zmtp.py).

Those calls are private: a pyzmq release may move or change them. They are used only on
the pyzmq major version they were measured with (MEASURED_MAJOR) and only where they are
all there; anywhere else FAST is False and the public API does the same job, slower. Both
sets take the same arguments, so callers never know which they got.

Measured with pyzmq 27.3.0 (libzmq 4.3.5) on CPython 3.11 and 2 vCPUs: whole Rage games
with referee and bots pinned to one CPU, as bench/rage_referee.py's first case, took a
median 94 us per decision on the backend's calls and 107 us on the public ones (5 runs
each, alternated). setup.cfg asks for pyzmq>=25,<28: 25.1.2 and 26.4.0 pass the transport
tests on the public calls. Before moving MEASURED_MAJOR, measure again.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, Literal, NamedTuple, Protocol, overload

import zmq

MEASURED_MAJOR = 27  # pyzmq 27.3.0

NOBLOCK = int(zmq.NOBLOCK)
SNDMORE = int(zmq.SNDMORE)
POLLIN = int(zmq.POLLIN)


class Send(Protocol):
    def __call__(self, socket: zmq.Socket[Any], data: bytes, flags: int = 0, /) -> Any: ...


class Recv(Protocol):
    @overload
    def __call__(self, socket: zmq.Socket[Any], flags: int = 0, /) -> bytes: ...

    @overload
    def __call__(self, socket: zmq.Socket[Any], flags: int, copy: Literal[False], /
                 ) -> zmq.Frame: ...


PollItems = Sequence[tuple[Any, int]]  # (a socket or a file descriptor, event flags)


class Poll(Protocol):
    def __call__(self, items: PollItems, timeout: int) -> list[tuple[Any, int]]:
        """The items with events, after at most `timeout` ms (-1: no limit)."""


class Calls(NamedTuple):
    """One set of the three calls; `fast` says whether it is the backend's."""

    send: Send
    recv: Recv
    poll: Poll
    fast: bool


def _public_poll(items: PollItems, timeout: int) -> list[tuple[Any, int]]:
    """zmq_poll's job through the public Poller, which takes sockets and fds alike."""
    poller = zmq.Poller()
    for item, events in items:
        poller.register(item, events)
    return poller.poll(timeout)


PUBLIC = Calls(zmq.Socket.send, zmq.Socket.recv, _public_poll, fast=False)


def backend_calls(version: tuple[object, ...], backend: ModuleType | None) -> Calls | None:
    """The backend's calls where `version` (pyzmq's) is of the measured major and
    `backend` has them all, for the public Socket class; else None."""
    if version[:1] != (MEASURED_MAJOR,) or backend is None:
        return None
    try:
        socket_class = backend.Socket
        calls = Calls(socket_class.send, socket_class.recv, backend.zmq_poll, fast=True)
    except AttributeError:
        return None
    # The backend's methods are called on pyzmq's public sockets: they must inherit them.
    if not (isinstance(socket_class, type) and issubclass(zmq.Socket, socket_class)):
        return None
    return calls


def choose(version: tuple[object, ...], backend: ModuleType | None) -> Calls:
    """The backend's calls where they were measured and are there, else the public ones."""
    return backend_calls(version, backend) or PUBLIC


CALLS = choose(zmq.pyzmq_version_info(), getattr(zmq, "backend", None))
send, recv, poll, FAST = CALLS
