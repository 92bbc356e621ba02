"""Greeting bots together: every bot of a table is started first, then all their HELLOs
are awaited in one wait, so the bots boot side by side instead of one after another.

Each bot keeps its own start-up deadline, counted from its own start, so a slow or silent
bot costs the others nothing and is the only one charged. The start-up time is meant for
a bot booting alone: n bots booting together on c CPUs (those this process may use) get
it stretched by n / c, the least share of a CPU each one then has, so that no bot is
charged for its neighbours' boots. The wait watches every bot's
line, exit and (ZeroMQ) connections at once: a bot that floods its endpoint before its
HELLO is caught while another bot is still being waited for.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from referee.errors import BotFault
from referee.players.remote_player import RemotePlayer
from referee.transport.channel import wait_any


def greet_all(players: Sequence[RemotePlayer]) -> dict[int, BotFault]:
    """Complete the handshake of every started player; returns the faults by index in
    `players` (those players are closed). Any other exception propagates: the caller
    closes every player."""
    share = len(players) / _cpus()
    for player in players:
        player.share_start(share)
    waiting = dict(enumerate(players))
    faults: dict[int, BotFault] = {}
    while waiting:
        for index, player in list(waiting.items()):
            try:
                if not player.try_greet():
                    continue
            except BotFault as fault:
                faults[index] = fault
            del waiting[index]
        if waiting:
            wait_any([player.channel for player in waiting.values()],
                     min(player.hello_deadline for player in waiting.values()))
    return faults


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
