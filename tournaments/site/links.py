"""The links of a results page: a bot's name to its page, a game to its replay, a fault
to its step in the replay. Hrefs are the site's own file names, relative to the page."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from referee.errors import ConfigError
from tournaments.output.tables import Cell, Column, ResultTable
from tournaments.site.layout import MANIFEST, GameReplays, Manifest

_FAULT_TABLES = ("faults", "bot_faults")


class SiteLinks:
    """A Linker (tournaments/output/html_page.py) for pages `prefix` away from DIR
    ("" for the index, "../" for a bot's page)."""

    def __init__(self, prefix: str, bot_pages: Mapping[str, str],
                 replays: Mapping[str, GameReplays]) -> None:
        self.prefix, self.bot_pages, self.replays = prefix, bot_pages, replays

    def __call__(self, table: ResultTable, row: tuple[Cell, ...],
                 column: Column) -> str | None:
        cell = row[table.columns.index(column)]
        if column.key == "bot":
            page = self.bot_pages.get(str(cell))
            return None if page is None else self.prefix + page
        if column.key in ("game", "fault", "step"):
            return self._replay(table, row, column)
        return None

    def _replay(self, table: ResultTable, row: tuple[Cell, ...],
                column: Column) -> str | None:
        keys = table.keys
        if "game" not in keys:
            return None
        replays = self.replays.get(str(row[keys.index("game")]))
        seat = row[keys.index("seat")] if "seat" in keys else None
        if replays is None or not isinstance(seat, int | None):
            return None
        faulted = table.name in _FAULT_TABLES or (column.key == "fault" and
                                                  row[keys.index("fault")] != "none")
        if column.key == "fault" and not faulted:
            return None
        href = replays.link(seat, fault=faulted)
        return None if href is None else self.prefix + href


def published_links(folder: Path) -> SiteLinks:
    """Links to the pages of the site published in `folder`, as the path was given (a
    page saved where that path leads there links right). ConfigError where no site is:
    its manifest lists the bots' pages, the replays and the steps of the faults."""
    manifest = Manifest.read(folder)
    if manifest is None:
        raise ConfigError(f"{folder} holds no site of `referee publish` (no readable "
                          f"{MANIFEST}): publish one there first")
    return SiteLinks(folder.as_posix().rstrip("/") + "/", manifest.bots, manifest.replays)
