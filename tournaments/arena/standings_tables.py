"""`referee arena standings`: the leaderboard and each contestant's history, as result
tables, written in any of the formats tournaments write (text, markdown, csv, json,
html)."""

from __future__ import annotations

import json
import re
from html import escape
from collections.abc import Sequence

from protocols.faults import FaultKind
from tournaments.arena.leaderboard import Standing
from referee import words
from tournaments.arena.store import CHANGED, REFUSED, RETIRED, Settings, Version
from tournaments.output.csv_table import csv_table
from tournaments.output.formats import OutputFormat
from tournaments.output.html_page import document, section
from tournaments.output.json_doc import tables_json
from tournaments.output.tables import Column, FaultCounts, Interval, ResultTable
from tournaments.output.text import text_report
from tournaments.stats.estimates import Z_975

_RATING = (Column("mu", "mu"), Column("95% interval", "interval"), Column("Score", "score"))
_FAULTS = (Column("Faulted games", "faulted_games", 0), Column("Faults", "faults"))


def leaderboard_table(standings: Sequence[Standing]) -> ResultTable:
    """The active versions, ranked by their conservative score."""
    columns = (Column("Rank", "rank", 0), Column("Contestant", "contestant"),
               Column("Version", "version", 0), Column("Games", "games", 0),
               Column("Tables", "tables", 0), *_RATING, *_FAULTS)
    rows = tuple((s.rank, s.version.name, s.version.version, s.games, s.tables,
                  *_rating_cells(s), *_fault_cells(s))
                 for s in standings if s.rank is not None)
    return ResultTable("leaderboard", "Leaderboard: the active versions, ranked by score = "
                       "mu - 3 sigma (their openskill rating, mu ± sigma)", columns, rows)


def history_table(standings: Sequence[Standing], public: bool = False) -> ResultTable:
    """Every version of every contestant, in order: what each played and how it rated;
    `public`: why a version was set aside without the words of its check's evidence."""
    columns = (Column("Contestant", "contestant"), Column("Version", "version", 0),
               Column("Status", "status"), Column("Submitted", "submitted"),
               Column("sha256", "sha256"), Column("Command line sha256",
                                                   "command_line_sha256"),
               Column("Games", "games", 0), *_RATING, *_FAULTS,
               Column("Why not seated", "why"))
    ordered = sorted(standings, key=lambda s: (s.version.name, s.version.version))
    rows = tuple((s.version.name, s.version.version, s.version.status, s.version.submitted,
                  s.version.sha256[:12], s.version.command_line_sha256[:12], s.games,
                  *_rating_cells(s), *_fault_cells(s),
                  why_not_seated(s.version, public))
                 for s in ordered)
    return ResultTable("history", "History (every version of every contestant)", columns,
                       rows)


def why_not_seated(version: Version, public: bool = False) -> str:
    """What set a version aside, in a line: the first failure of a refused version's
    check, why a changed one was, that a retired one was replaced; empty if active. A
    `public` line names the failed check alone: its evidence quotes the commands it ran
    (paths of the organiser's machine), the bot's stderr and the cards of its games."""
    if version.status == REFUSED:
        failed = [line for line in version.report.splitlines() if line.startswith("FAIL ")]
        parts = re.split(r"\s{2,}", failed[0].removeprefix("FAIL").strip()) if failed else []
        if public:
            return "failed its check" + (f": {parts[0]}" if parts else "")
        if len(parts) == 3:  # a check's name, its seconds, its evidence
            return _short(f"failed its check: {parts[0]}: {parts[2]}")
        return _short("failed its check" + (f": {' '.join(parts)}" if parts else ""))
    if version.status == RETIRED:
        return "replaced by a later version"
    if version.status == CHANGED:
        return "its files changed since it was submitted" if public else _short(version.report)
    return ""


def _short(text: str, most: int = 160) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _rating_cells(standing: Standing) -> tuple[float | Interval | None, ...]:
    if not standing.games:
        return None, None, None  # no game yet: the prior says nothing of the version
    mu, sigma = standing.rating
    return mu, Interval(mu - Z_975 * sigma, mu + Z_975 * sigma), standing.score


def _fault_cells(standing: Standing) -> tuple[int, FaultCounts]:
    kinds = dict(standing.fault_kinds)
    return standing.faulted_games, FaultCounts(tuple(kinds.get(kind.value, 0)
                                                     for kind in FaultKind))


def render_standings(tables: Sequence[ResultTable], settings: Settings, title: str,
                     fmt: OutputFormat, games: int) -> str:
    """The tables in `fmt`; CSV, one table, writes the last (the history, where asked)."""
    heading = (f"{title}: {settings.game}, tables of {settings.table_size}, "
               f"{words.counted(games, 'game')} counted")
    if fmt is OutputFormat.CSV:
        return csv_table(tables[-1])
    if fmt is OutputFormat.JSON:
        arena = {"title": title, "game": settings.game, "table_size": settings.table_size,
                 "games": games}
        return json.dumps({"arena": arena, "tables": tables_json(tables)}, indent=2,
                          ensure_ascii=False, allow_nan=False) + "\n"
    if fmt is OutputFormat.HTML:
        return document(heading, [f"<h1>{escape(heading)}</h1>",
                                  *(section(table) for table in tables)])
    return text_report(tables, fmt.value, None, heading)
