"""The allowed range of every number a user sets, for the command line and tournament files.

Both `referee.cli` (click option types) and `tournaments.spec.definition` (TOML values, checked in
`TournamentSpec`) take their limits from here, so a value refused in one is refused in
the other, with the same words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

UNLIMITED = "unlimited"  # the word for "no limit" (None) where a bound allows it


@dataclass(frozen=True)
class Bound:
    """An allowed range of numbers: whole or real, from `least` (excluded if `above`) to
    `most`, in `unit`; with `unlimited`, the word "unlimited" (None) is allowed too."""

    least: float
    most: float
    unit: str = ""
    integer: bool = True
    above: bool = False
    unlimited: bool = False

    def describe(self) -> str:
        """What is allowed, e.g. 'a finite number of seconds > 0 and <= 86400'."""
        unit = f" of {self.unit}" if self.unit else ""
        kind = f"a whole number{unit}" if self.integer else f"a finite number{unit}"
        if self.above:
            words = f"{kind} > {_show(self.least)} and <= {_show(self.most)}"
        else:
            words = f"{kind} from {_show(self.least)} to {_show(self.most)}"
        return f'{words}, or "{UNLIMITED}"' if self.unlimited else words

    def check(self, value: object) -> int | float | None:
        """`value` itself if it is allowed; otherwise ValueError saying what is."""
        if value is None and self.unlimited:
            return None
        if not self._in_range(value):
            raise ValueError(f"must be {self.describe()}, not {value!r}")
        assert isinstance(value, (int, float))
        return value

    def parse(self, text: str) -> int | float | None:
        """A command-line word as an allowed value; ValueError if it is not one."""
        word = text.strip()
        if self.unlimited and word == UNLIMITED:
            return None
        try:
            value: int | float = int(word) if self.integer else float(word)
        except ValueError:
            raise ValueError(f"must be {self.describe()}, not {text!r}") from None
        return self.check(value)

    def _in_range(self, value: object) -> bool:
        if type(value) is int:  # not bool, which is an int subclass
            number: float = value
        elif type(value) is float and not self.integer:
            number = value
        else:
            return False
        if not math.isfinite(number) or number > self.most:
            return False
        return number > self.least if self.above else number >= self.least


def _show(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


DAY = 86400

# Seconds.
STARTUP_SECONDS = Bound(0, DAY, "seconds", integer=False, above=True)
MOVE_SECONDS = Bound(0, DAY, "seconds", integer=False, above=True)
BANK_SECONDS = Bound(0, DAY, "seconds", integer=False)
TOLERANCE_SECONDS = Bound(0, 60, "seconds", integer=False)  # transport jitter forgiven

# Per bot process. Below 16 MiB not even a shell starts; 1 TiB is more than any machine
# we run on, and stays far below what setrlimit can take in bytes.
MEMORY_MIB = Bound(16, 1024 * 1024, "MiB", unlimited=True)
CPU_SECONDS = Bound(1, 30 * DAY, "seconds", unlimited=True)
PROCESSES = Bound(1, 100_000, "processes", unlimited=True)

SEED = Bound(0, 2**63 - 1)  # SQLite's signed 64-bit INTEGER
BUSY_WAIT_US = Bound(0, 100_000, "microseconds")
GAME_SIZE = Bound(1, 64, "seats")  # on the command line; each game allows its own seats

# Tournaments. The schedule of a million games already takes about a GiB of memory and
# some seconds to build; that is far beyond any tournament the tables are meant for.
DEALS = Bound(1, 100_000, "deals")
JOBS = Bound(1, 1024, "workers")
MAX_GAMES = 1_000_000
MAX_GAMES_OPTION = Bound(1, MAX_GAMES, "games")
DISQUALIFY_AFTER = Bound(1, MAX_GAMES, "faulted games")
STANDINGS_EVERY = Bound(1, MAX_GAMES, "games")
PLACEMENT = Bound(0, 10_000, "tables")  # an arena's placement tables per new version
TOP = Bound(1, 10_000, "bots")  # --until-settled --top: the first K bots
