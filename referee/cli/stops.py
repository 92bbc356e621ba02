"""Ctrl-C and SIGTERM for the `referee` process: the first stop is acted on; while it is,
a second is noted and changes nothing, and a third ends the process at once.

Both arrive as a KeyboardInterrupt (SIGTERM's named, so that the exit code can tell them
apart), which every command turns into its stop: finished games stored, bots killed,
one line and exit 130 or 143. From then on the process is only ending, and a second stop
could only spoil that: Python runs a handler inside its exit hooks, which print the
KeyboardInterrupt as a traceback, and once it has put the default handlers back, a
second Ctrl-C ended the process by the signal (-2 to a parent, not 130) after the line
that promised 130. A person presses Ctrl-C twice; so did a test run (CI, stop 37).

While the stop runs, the handlers stay Python's own, which only count: an ignored signal
that is already pending when it is ignored makes Python print "Signal N ignored due to
race condition" as a traceback. Only at the very end (`ending`, just before the exit)
are both ignored, which alone holds through the interpreter's own exit. A stop that
hangs (a bug) still ends at the third signal, by the first one's exit code, at once: the
sentinel (referee/processes/sentinel.py) and the bots' parent-death signal kill what is
left.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

SIGTERM_NAME = "SIGTERM"  # the KeyboardInterrupt our SIGTERM handler raises carries it
_STOPS = (signal.SIGINT, signal.SIGTERM)
_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}  # referee/cli/exit_codes.py's
_stops: list[int] = []  # the stops received while the first is acted on, it first


def listen_for_stops() -> None:
    """Install the handlers (main thread, at start-up). A Ctrl-C ignored from the start
    stays ignored: a program started with `&` by a script ignores it, as the user asked."""
    _stops.clear()
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _terminated)


def ending() -> None:
    """The process exits now: every later stop is ignored, through Python's own exit."""
    for signum in _STOPS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, signal.SIG_IGN)


def by_sigterm(stop: BaseException) -> bool:
    """Whether `stop` (click's Abort wraps a KeyboardInterrupt) came from our SIGTERM."""
    cause = stop if isinstance(stop, KeyboardInterrupt) else stop.__cause__
    return isinstance(cause, KeyboardInterrupt) and cause.args == (SIGTERM_NAME,)


def _interrupted(signum: int, frame: FrameType | None) -> None:
    if _acted_on(signum):
        raise KeyboardInterrupt


def _terminated(signum: int, frame: FrameType | None) -> None:
    """SIGTERM stops a run as Ctrl-C does: finished games stay stored, bots are killed."""
    if _acted_on(signum):
        raise KeyboardInterrupt(SIGTERM_NAME)


def _acted_on(signum: int) -> bool:
    """Whether this stop raises its KeyboardInterrupt: yes unless an earlier one's is being
    handled now. One that Python swallowed (raised in a finalizer, which prints and
    ignores it) is handled nowhere: the next stop is acted on as a first. While one is
    handled, a third stop exits at once, by the first one's code."""
    if not _stops or not _stopping_now():
        _stops[:] = [signum]
        return True
    _stops.append(signum)
    if len(_stops) == 2:
        os.write(2, b"referee: stopping already; a third Ctrl-C or SIGTERM ends it at once\n")
    else:
        os._exit(_CODES.get(signal.Signals(_stops[0]), 130))
    return False


def _stopping_now() -> bool:
    """Whether a stop's KeyboardInterrupt is being handled, or unwound, in this thread
    (also as the context of what the stop became, e.g. the runner's Interrupted)."""
    error = sys.exc_info()[1]
    while error is not None:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__context__
    return False
