"""What every output says about its tournament beside the tables: the settings, how many
games were played of how many scheduled, and which referee and schema wrote it."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import metadata as packages

import referee

# docs/results-json.md: bump on any change a reader of the JSON must know of.
SCHEMA_VERSION = 1


def referee_version() -> str:
    """The installed package's version; the source's own where it is not installed."""
    try:
        return packages.version("referee")
    except packages.PackageNotFoundError:
        return referee.__version__


@dataclass(frozen=True)
class Settled:
    """Where a tournament under --until-settled stopped: the deal its ranking settled
    after (`rule`: its words), and the games of later deals, played as it stopped and
    left out of the tables."""

    rule: str
    deal: int
    not_counted: int

    def words(self, deals: int) -> str:
        extra = (f"; {self.not_counted:,} games of later deals, played before deal "
                 f"{self.deal} was complete, are not counted" if self.not_counted else "")
        return f"stopped early: {self.rule} after deal {self.deal} of {deals}{extra}"

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "deal": self.deal, "not_counted": self.not_counted}


@dataclass(frozen=True)
class Metadata:
    """A tournament's settings and state. `size_key` is "table_size" or "team_size"."""

    game: str
    game_title: str
    seed: int
    deals: int
    size_key: str
    size: int
    limits: dict[str, object]
    resources: dict[str, object]
    options: dict[str, object]
    bots: tuple[str, ...]
    references: tuple[str, ...]
    games_played: int
    games_scheduled: int
    settled: Settled | None = None  # under --until-settled, once the ranking settled
    referee_version: str = field(default_factory=referee_version)
    schema_version: int = SCHEMA_VERSION
    title: str | None = None  # the tournament's name, where its file gives one

    @property
    def heading(self) -> str:
        """What a page is headed with: the tournament's name, else the game's."""
        return self.title or f"{self.game_title} tournament results"

    @property
    def complete(self) -> bool:
        return self.games_played >= self.games_scheduled or self.settled is not None

    def notice(self) -> str | None:
        """The words that tell an incomplete tournament, or one stopped as its ranking
        settled; None for a complete one."""
        if self.settled is not None:
            return self.settled.words(self.deals)
        if self.complete:
            return None
        return f"incomplete: {self.games_played:,} of {self.games_scheduled:,} games played"

    def to_json(self) -> dict[str, object]:
        return {
            "schema_version": self.schema_version, "referee_version": self.referee_version,
            **({"title": self.title} if self.title else {}), "game": self.game, "seed": self.seed, "deals": self.deals,
            self.size_key: self.size, "limits": self.limits, "resources": self.resources,
            "options": self.options, "bots": list(self.bots),
            "references": list(self.references), "games_played": self.games_played,
            "games_scheduled": self.games_scheduled, "complete": self.complete,
            "settled": None if self.settled is None else self.settled.to_json(),
        }

    def settings(self) -> list[tuple[str, str]]:
        """The settings as (name, words) pairs, for people."""
        def words(values: dict[str, object], unset: str) -> str:
            return ", ".join(f"{key} {_word(value, unset)}"
                             for key, value in values.items()) or "none"
        played = f"{self.games_played:,} of {self.games_scheduled:,}"
        if self.settled is not None:
            played += f" (stopped: {self.settled.rule}, after deal {self.settled.deal})"
        named = [("tournament", self.title)] if self.title else []
        return [*named, ("game", self.game_title), ("bots", ", ".join(self.bots)),
                ("references", ", ".join(self.references) or "none"),
                ("deals", str(self.deals)), ("seed", str(self.seed)),
                (self.size_key.replace("_", " "), str(self.size)),
                ("time limits (s)", words(self.limits, "none")),
                ("resources", words(self.resources, "unlimited")),
                ("options", words(self.options, "default")),
                ("games played", played + ("" if self.complete else " (incomplete)")),
                ("referee", self.referee_version)]


def _word(value: object, unset: str) -> str:
    """A setting's value in words; `unset` for None (an unlimited resource, an option
    left at its default)."""
    if value is None:
        return unset
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "+".join(map(str, value)) or "none"
    return str(value)
