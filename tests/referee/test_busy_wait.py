"""The busy-wait policy (referee/transport/busy_wait.py): poll a short while before sleeping, and
only while it pays. Real channels that poll are tested in test_transport.py."""

from __future__ import annotations

import os
import time

import pytest

from referee.transport import busy_wait
from referee.transport.busy_wait import DEFAULT_BUDGET, BusyWait


class Ready:
    """A readiness check that turns true on its `after`-th call (never, if None)."""

    def __init__(self, after: int | None = None) -> None:
        self.after = after
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.after is not None and self.calls >= self.after


FAR = 60.0  # seconds: a deadline no wait in these tests should come near


def far() -> float:
    return time.monotonic() + FAR


def test_polls_until_ready() -> None:
    ready = Ready(after=3)
    BusyWait(1.0).poll(ready, far())
    assert ready.calls == 3


def test_polls_no_longer_than_the_budget() -> None:
    ready = Ready()
    start = BusyWait(0.002).poll(ready, far())
    spent = time.monotonic() - start
    assert ready.calls > 1
    assert 0.002 <= spent < FAR / 2  # it stops at its budget, not at the deadline


def test_polls_no_later_than_the_deadline() -> None:
    ready = Ready()
    BusyWait(1.0).poll(ready, time.monotonic())
    assert ready.calls == 1  # one look, then the deadline has come


def test_a_wait_longer_than_the_budget_stops_polling_until_a_short_one() -> None:
    policy = BusyWait(0.001)
    start = policy.poll(Ready(after=1), far())
    time.sleep(0.01)  # the line came late: the bot is slow
    policy.learn(start)
    slow = Ready(after=1)
    start = policy.poll(slow, far())
    assert slow.calls == 0
    policy.learn(start)  # this line came at once: fast again
    fast = Ready(after=1)
    policy.poll(fast, far())
    assert fast.calls == 1


def test_a_zero_budget_never_polls() -> None:
    policy = BusyWait(0.0)
    for _ in range(2):
        ready = Ready(after=1)
        policy.learn(policy.poll(ready, far()))
        assert ready.calls == 0


def test_a_negative_budget_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        BusyWait(-0.001)


@pytest.mark.parametrize("cpus, expected", [({0}, 0.0), ({0, 1}, DEFAULT_BUDGET)])
def test_by_default_polls_only_with_more_than_one_cpu(
        cpus: set[int], expected: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """On one CPU (a pinned tournament worker) polling would hold off the bot itself."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cpus)
    assert busy_wait.default_budget() == expected
    assert BusyWait().budget == expected
