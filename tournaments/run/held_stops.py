"""Ctrl-C and SIGTERM held over the start of a pool's workers, then acted on.

A process pool forks its workers when the first game is submitted. A stop that lands in
that moment was lost or worse: Python runs a signal's handler at its next chance, which
may be inside a fork's handlers, and there it prints the KeyboardInterrupt and ignores
it (the run went on to its end, exit 0); a child just forked still has the referee's
handlers until its initializer runs, and one hung the referee's exit, joined for ever.
Blocking the signals in one thread would not do: the kernel gives them to another.

A child forked during the hold must not keep its noting handler: a SIGTERM (the pool's,
or end_running_games') would be noted and lost, and the worker, alive, would wait for
ever on the call queue's lock that a sibling killed there held. Until its initializer
puts its own, it ignores Ctrl-C and dies at once of SIGTERM: it holds nothing yet."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

_STOPS = (signal.SIGINT, signal.SIGTERM)
_holding = False  # in this process, now


def _forked_while_held() -> None:
    global _holding
    if _holding:  # the child holds nothing: not the parent's hold either
        _holding = False
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


os.register_at_fork(after_in_child=_forked_while_held)


@contextmanager
def stops_held() -> Iterator[None]:
    """For the block, SIGINT and SIGTERM are only noted; after it, the first noted is
    given to the handler that was there (raising KeyboardInterrupt, as a stop does)."""
    noted: list[int] = []
    before: dict[int, Any] = {signum: signal.getsignal(signum) for signum in _STOPS}

    def note(signum: int, frame: FrameType | None) -> None:
        noted.append(signum)

    global _holding
    for signum, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, note)
    _holding = True
    try:
        yield
    finally:
        _holding = False
        for signum in _STOPS:
            signal.signal(signum, before[signum])
        if noted:
            _act_on(noted[0], before[noted[0]])


def _act_on(signum: int, handler: object) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signum)
