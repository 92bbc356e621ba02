"""Serving a worker's kept bots while it waits for its next game.

A bot whose ZeroMQ library sends heartbeats drops its connection when a PING goes
unanswered too long, and then faults in its next game. During a game every wait of the
referee's reads the other bots' connections now and then (ZmqHub.keep_alive); between
two games a pool or cluster worker runs none, however long its next task takes to come.
So a thread does it then, every half KEEP_ALIVE_SLICE, from the end of one game to the
start of the next. The two threads never use the bots at once: the worker's thread
takes them back with `busy()`, which waits for a serving in progress to end. An error
in a serving (a referee bug) ends the serving and is raised by the next `busy()`, rather
than leave the bots to be charged for connections they lost.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from referee.transport.channel import KEEP_ALIVE_SLICE

_INTERVAL = KEEP_ALIVE_SLICE / 2  # the game's last serving may be a slice old


class IdleKeepAlive:
    """Calls `serve(now)` every _INTERVAL seconds from the end of the first `busy()` block,
    except while another runs. Not `needed` (a pool that keeps no bot between games): no
    thread, and `busy()` only marks the blocks."""

    def __init__(self, serve: Callable[[float], None], needed: bool = True) -> None:
        self._serve = serve
        self._lock = threading.Lock()  # held by whichever thread uses the bots
        self._idle = threading.Event()
        self._stopping = threading.Event()
        if not needed:
            self._stopping.set()  # as if stopped from the start: _resume starts nothing
        self._thread: threading.Thread | None = None
        self._failed: Exception | None = None  # what ended the serving, to raise

    @contextmanager
    def busy(self) -> Iterator[None]:
        """The caller uses the bots: no serving until the block ends."""
        with self._lock:
            self._idle.clear()
            failed, self._failed = self._failed, None
        if failed is not None:
            self._resume()
            raise RuntimeError(f"serving the idle bots failed: {failed!r}") from failed
        try:
            yield
        finally:
            self._resume()

    def stop(self) -> None:
        """No more serving (before the bots are closed). Idempotent."""
        with self._lock:
            self._stopping.set()
            self._idle.set()  # wakes the thread, to see it is stopping
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _resume(self) -> None:
        if self._stopping.is_set():
            return
        if self._thread is None or not self._thread.is_alive():
            thread = threading.Thread(target=self._run, daemon=True,
                                      name="referee-idle-keep-alive")
            try:
                thread.start()
            except RuntimeError:  # no thread to be had: the bots go unserved, as before
                return
            self._thread = thread
        self._idle.set()

    def _run(self) -> None:
        while self._idle.wait() and not self._stopping.wait(_INTERVAL):
            with self._lock:
                if self._stopping.is_set():
                    return
                if self._idle.is_set():
                    try:
                        self._serve(time.monotonic())
                    except Exception as error:
                        self._failed = error
                        return
