"""Which of a worker's started bots may take a seat: the pool's reuse rules, apart from
the processes (tournaments/run/fixture_play.py starts and closes those).

A worker keeps at most one process per seat key (bot index, copy at the table), and, for
each, the deals it has played. Between games at most IDLE_TABLES tables' worth (of the
largest table so far) stay idle; the least recently used beyond that are closed. With
`once_per_deal` (sandboxed bots without --persistent-bots) a process never plays a
second fixture of a deal: an idle process that has played the deal of the game to seat
is closed instead, and a new one started, so neither it nor its /tmp can tell the hands
of another rotation, table or team of that deal.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

SeatKey = tuple[int, int]  # (bot index, which copy of that bot at the table, from 0)
IDLE_TABLES = 2  # a worker's idle bots: at most this many of its largest table
B = TypeVar("B")


class IdleBots(Generic[B]):
    """The idle bots (`B`: a player, anything in tests) of one worker, least recently used
    first, and the deals played by each key's process, idle or seated."""

    def __init__(self, once_per_deal: bool) -> None:
        self.once_per_deal = once_per_deal
        self._idle: OrderedDict[SeatKey, B] = OrderedDict()
        self._deals: dict[SeatKey, frozenset[int]] = {}
        self._limit = 0  # IDLE_TABLES times the largest table seen so far

    def __len__(self) -> int:
        return len(self._idle)

    def seat(self, key: SeatKey, deal: int) -> tuple[B | None, B | None]:
        """The idle bot of `key` for a game of `deal`, if it may play it, now seated; and
        the idle bot to close because it has played `deal` already. (None, None): there
        was none; the caller starts one and tells `started`."""
        bot = self._idle.pop(key, None)
        if bot is None:
            return None, None
        if self.once_per_deal and deal in self._deals.get(key, frozenset()):
            del self._deals[key]
            return None, bot
        self._deals[key] = self._deals.get(key, frozenset()) | {deal}
        return bot, None

    def started(self, key: SeatKey, deal: int) -> None:
        """A new process of `key` is seated for a game of `deal`."""
        self._deals[key] = frozenset({deal})

    def deals(self, key: SeatKey) -> frozenset[int]:
        """The deals the current process of `key` has played (none if it has none)."""
        return self._deals.get(key, frozenset())

    def keep(self, key: SeatKey, bot: B) -> None:
        """`bot` played its game and may play on: idle, the most recently used."""
        self._idle[key] = bot

    def drop(self, key: SeatKey) -> B | None:
        """Forget `key`'s process (it is closed or about to be); its idle bot, if any."""
        self._deals.pop(key, None)
        return self._idle.pop(key, None)

    def trim(self, table: int) -> list[B]:
        """The least recently used idle bots beyond IDLE_TABLES tables of the largest
        table so far (`table` seats now), forgotten: the caller closes them."""
        self._limit = max(self._limit, IDLE_TABLES * table)
        extra = []
        while len(self._idle) > self._limit:
            key, bot = self._idle.popitem(last=False)
            self._deals.pop(key, None)
            extra.append(bot)
        return extra

    def clear(self) -> list[B]:
        """Every idle bot, forgotten: the caller closes them."""
        idle = list(self._idle.values())
        self._idle.clear()
        self._deals.clear()
        return idle
