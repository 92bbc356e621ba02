"""IdleKeepAlive: serving between a worker's games, never during one, nothing once stopped.

(With real heartbeating bots: test_idle_heartbeats.py.)"""

from __future__ import annotations

import threading
import time

from tests.referee.fault_bots.support import wait_until
from tournaments.idle_keep_alive import IdleKeepAlive


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
