"""How long a bot may take over one request: by the wall clock, or by its CPU time.

A request's clock starts when the request is handed to the transport. By the wall clock
the reply is waited for once, until its deadline. By CPU time the wait runs in slices
(`CpuClock.next_wait`); when a slice ends without a reply, the clock says whether to wait
on. That works the same over ZeroMQ and stdio, since each channel makes one last read at
every deadline it is given.
"""

from __future__ import annotations

import os
import time

from referee.processes.cgroups import BotCgroup
from referee.settings import TimeLimits, wall_cap

# Shortest slice between two looks at the bot's CPU time: bounds the referee's polling,
# and how far past its allowance a bot using every CPU can get.
MIN_SLICE = 0.01
# Every CPU of the machine: a bot may widen its own affinity to all of them.
_CPUS = os.cpu_count() or 1


def wall_missed(request: str, times: TimeLimits, bank: float) -> str:
    """--clock wall: one wait, until move + bank + tolerance seconds have passed (the
    remote player does that arithmetic inline, per decision). Why a reply to `request`
    did not come in time, for the timeout fault."""
    return f"no reply to {request} within {times.move:g} s + {bank:.3f} s of time bank"


class CpuClock:
    """--clock cpu: the bot may use `allowance` CPU seconds, counted over all its processes
    by its cgroup, so time it spent waiting for a CPU is not charged; a bot that sleeps
    meets the wall-clock cap (settings.wall_cap)."""

    def __init__(self, cgroup: BotCgroup, allowance: float) -> None:
        self._cgroup = cgroup
        self._allowance = allowance
        self._cpu_start = cgroup.cpu_seconds()
        self.start = time.monotonic()
        self.cap = wall_cap(allowance)
        self.deadline = self.start + self.cap
        self._slices = 0

    def next_wait(self) -> float | None:
        now = time.monotonic()
        self._slices += 1
        left = self._allowance - (self.used() if self._slices > 1 else 0.0)
        if left <= 0 or now >= self.deadline:
            return None
        # Spread over every CPU, `left` CPU seconds take at least left / _CPUS seconds:
        # no slice ends after the allowance is spent, but for MIN_SLICE.
        return min(self.deadline, now + max(MIN_SLICE, left / _CPUS))

    def used(self) -> float:
        """CPU seconds the bot's processes have used since the request was sent."""
        return self._cgroup.cpu_seconds() - self._cpu_start

    def overrun(self, move: float) -> float:
        # No bot uses more CPU time than wall time on every CPU: a quick reply is not
        # worth a look at its cgroup.
        if (time.monotonic() - self.start) * _CPUS <= move:
            return 0.0
        return self.used() - move

    def missed(self, request: str, times: TimeLimits, bank: float) -> str:
        used = self.used()
        if used >= self._allowance:
            return (f"no reply to {request} within {times.move:g} s + {bank:.3f} s of time "
                    f"bank of CPU time (used {used:.3f} s)")
        return (f"no reply to {request} within the wall-clock cap of {self.cap:g} s "
                f"(--clock cpu; CPU time used {used:.3f} s)")
