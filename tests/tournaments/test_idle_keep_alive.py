"""IdleKeepAlive: serving between a worker's games, never during one, nothing once stopped.

(With real heartbeating bots: test_idle_heartbeats.py.)"""

from __future__ import annotations

import threading
import time

import pytest

from tests.referee.fault_bots.support import wait_until
from tournaments.run.idle_keep_alive import IdleKeepAlive


class Served:
    """A serve() that counts its calls and notes any made while the owner was busy."""

    def __init__(self) -> None:
        self.calls = 0
        self.busy = False
        self.while_busy = 0
        self.threads: set[threading.Thread] = set()

    def __call__(self, now: float) -> None:
        self.calls += 1
        self.while_busy += self.busy
        self.threads.add(threading.current_thread())


def test_it_serves_between_busy_blocks_and_never_during_one() -> None:
    served = Served()
    keep_alive = IdleKeepAlive(served)
    with keep_alive.busy():
        pass
    try:
        assert wait_until(lambda: served.calls >= 3, 10.0)
        assert threading.current_thread() not in served.threads
        for _ in range(3):
            with keep_alive.busy():
                served.busy = True
                before = served.calls
                time.sleep(0.3)  # six of its intervals
                assert served.calls == before
                served.busy = False
            assert wait_until(lambda: served.calls > before, 10.0)
        assert served.while_busy == 0
    finally:
        keep_alive.stop()


def test_a_pool_that_keeps_no_bot_starts_no_thread_and_serves_nothing() -> None:
    """--fresh-bots: every bot is closed after its game, so there is nothing to serve."""
    served = Served()
    keep_alive = IdleKeepAlive(served, needed=False)
    before = set(threading.enumerate())
    for _ in range(3):
        with keep_alive.busy():
            pass
    time.sleep(0.3)  # six of its intervals
    assert served.calls == 0
    assert not [t for t in set(threading.enumerate()) - before
                if t.name == "referee-idle-keep-alive"]
    keep_alive.stop()


def test_nothing_is_served_once_stopped_and_stopping_is_idempotent() -> None:
    served = Served()
    keep_alive = IdleKeepAlive(served)
    with keep_alive.busy():
        pass
    assert wait_until(lambda: served.calls >= 1, 10.0)
    keep_alive.stop()
    keep_alive.stop()
    calls = served.calls
    assert not any(thread.is_alive() for thread in served.threads)
    with keep_alive.busy():  # a pool closed mid-way starts no thread again
        pass
    time.sleep(0.3)
    assert served.calls == calls


def test_nothing_runs_before_the_first_game_ends() -> None:
    served = Served()
    keep_alive = IdleKeepAlive(served)
    time.sleep(0.2)
    keep_alive.stop()
    assert served.calls == 0


def test_busy_waits_for_a_serving_in_progress() -> None:
    """The two threads never use the bots at once: a busy() entered while a serving
    runs returns only once that serving has ended."""
    serving, ended = threading.Event(), threading.Event()

    def slow(now: float) -> None:
        ended.clear()
        serving.set()
        time.sleep(0.2)
        ended.set()

    keep_alive = IdleKeepAlive(slow)
    with keep_alive.busy():
        pass
    try:
        assert serving.wait(10.0)
        with keep_alive.busy():
            assert ended.is_set()
    finally:
        keep_alive.stop()


def test_a_serving_that_fails_is_raised_at_the_next_busy() -> None:
    """A referee bug in a serving is not left silent (the bots would lose their
    connections and be charged for it): the next game's busy() raises it."""
    calls: list[float] = []

    def broken(now: float) -> None:
        calls.append(now)
        raise OSError("a broken hub")

    keep_alive = IdleKeepAlive(broken)
    with keep_alive.busy():
        pass
    try:
        assert wait_until(lambda: len(calls) == 1, 10.0)
        time.sleep(0.2)
        assert len(calls) == 1  # the serving ended there
        with pytest.raises(RuntimeError, match="a broken hub"):
            with keep_alive.busy():
                pass
    finally:
        keep_alive.stop()
