"""Ctrl-C and SIGTERM held over the start of a pool's workers, then acted on.

A process pool forks its workers when the first game is submitted. A stop that lands in
that moment was lost or worse: Python runs a signal's handler at its next chance, which
may be inside a fork's handlers, and there it prints the KeyboardInterrupt and ignores
it (the run went on to its end, exit 0); a child just forked still has the referee's
handlers until its initializer runs, and one hung the referee's exit, joined for ever.
Blocking the signals in one thread would not do: the kernel gives them to another."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

_STOPS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stops_held() -> Iterator[None]:
    """For the block, SIGINT and SIGTERM are only noted; after it, the first noted is
    given to the handler that was there (raising KeyboardInterrupt, as a stop does)."""
    noted: list[int] = []
    before: dict[int, Any] = {signum: signal.getsignal(signum) for signum in _STOPS}

    def note(signum: int, frame: FrameType | None) -> None:
        noted.append(signum)

    for signum, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, note)
    try:
        yield
    finally:
        for signum in _STOPS:
            signal.signal(signum, before[signum])
        if noted:
            _act_on(noted[0], before[noted[0]])


def _act_on(signum: int, handler: object) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signum)
