"""The index and the bots' pages of a results site: the result tables of
`referee results --format html`, with links to the bots' pages and the replays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from html import escape
from pathlib import Path

from tournaments.output.bot_report import bot_games, fault_list, fault_summary, seats_of
from tournaments.output.bots_table import bots_table
from tournaments.output.html_page import document, html_page, section
from tournaments.output.metadata import Metadata
from tournaments.output.public import public_tables
from tournaments.output.student_report import summary_table
from tournaments.output.tables import Cell, Column, ResultTable
from tournaments.site.layout import INDEX, GameReplays, ReplayMode
from tournaments.site.links import SiteLinks
from tournaments.spec.definition import TournamentSpec
from tournaments.store.provenance import BotProvenance
from tournaments.store.records import GameRecord

_REPLAYS_SAID = {
    ReplayMode.ALL: "Replays show every hand (the organiser's view).",
    ReplayMode.SEAT: "Each replay shows one seat's view: only what that seat was shown.",
    ReplayMode.SPECTATOR: "Replays show each game as a spectator saw it: no hand, and "
                          "each decision only as the move it made.",
    ReplayMode.NONE: "This site has no replays.",
}


def index_page(tables: Sequence[ResultTable], metadata: Metadata,
               bot_pages: Mapping[str, str], replays: Mapping[str, GameReplays],
               mode: ReplayMode, up: tuple[str, str] | None = None) -> str:
    """The site's front page: settings, standings, crosstable, bots, faults, linked;
    `up`, (href, words) of the page this site sits under (an arena's round: the arena's)."""
    above = "" if up is None else \
        f'<p><a id="up" href="{escape(up[0])}">\u2191 {escape(up[1])}</a></p>'
    nav = (f'<nav class="site">{above}<p>{escape(_REPLAYS_SAID[mode])} Bots: '
           + " · ".join(f'<a href="{escape(page)}">{escape(bot)}</a>'
                        for bot, page in bot_pages.items()) + "</p></nav>")
    return html_page(tables, metadata, SiteLinks("", bot_pages, replays), before=nav)


def bot_page(bot: str, spec: TournamentSpec, records: Sequence[GameRecord],
             rankings: Sequence[ResultTable], provenance: Mapping[str, BotProvenance],
             bot_pages: Mapping[str, str], replays: Mapping[str, GameReplays],
             public: bool = False) -> str:
    """One bot's page: its row of the ranking, its report's summary (its places and
    faults by kind) and its failures by cause (where they cluster), as `referee results
    --bot` gives them, where it came from, its games and its faults, each linked to its
    replay (a fault to its step). `rankings`: the ranking table, and in a gauntlet the
    references' table; `public`: the tables as a public page shows them (its records
    made public already: tournaments/output/public.py)."""
    links = SiteLinks("../", bot_pages, replays)
    causes = fault_summary(records, only=bot)
    tables = [_only(rankings, bot), summary_table(bot, seats_of(records, bot),
                                                  spec.game.contest),
              *([causes] if causes.rows else []),
              bots_table(spec, provenance, only=bot, people=True),
              bot_games(records, bot, spec.bot_names, Path("."), spec.game.contest,
                        paths=False),
              _bot_faults(records, bot, replays)]
    shown = public_tables(tables) if public else tables
    title = f"{spec.title or spec.game.title + ' tournament'}: {bot}"
    body = [f'<nav class="site"><a href="../{INDEX}">← all results</a></nav>',
            f"<h1>{escape(title)}</h1>", *(section(table, links) for table in shown)]
    return document(title, body)


def _only(rankings: Sequence[ResultTable], bot: str) -> ResultTable:
    """The bot's row of the ranking table, or of the references' (a reference bot's)."""
    for table in rankings:
        rows = tuple(row for row in table.rows if row[1] == bot)  # rank, then bot
        if rows:
            return replace(table, rows=rows)
    return replace(rankings[0], rows=())


def _bot_faults(records: Sequence[GameRecord], bot: str,
                replays: Mapping[str, GameReplays]) -> ResultTable:
    """The bot's faults (fault_list's rows), each with the step of its replay where it
    is; n/a without a replay."""
    every = fault_list(records)
    rows: list[tuple[Cell, ...]] = []
    for row in every.rows:
        if row[0] != bot:
            continue
        game, seat = str(row[1]), row[2]
        page = replays[game].for_seat(seat if isinstance(seat, int) else None) \
            if game in replays else None
        step = None if page is None or not isinstance(seat, int) else page.fault_steps.get(seat)
        rows.append(row[1:] + (step,))
    columns = every.columns[1:] + (Column("replay step", "step"),)
    return ResultTable("bot_faults", f"Faults of {bot} ({len(rows)})", columns, tuple(rows))
