"""What a request's time limit counts: a word of the wire (the GAME line's `clock=`) as
well as a setting (`--clock`), so it lives in the wire layer."""

from __future__ import annotations

import enum


class Clock(enum.Enum):
    """What a request's time limit counts (`--clock`): the referee's wall clock, or the
    CPU time of all the bot's processes (its cgroup's accounting), so that a bot is not
    charged for time it waited for a CPU."""

    WALL = "wall"
    CPU = "cpu"
