"""A tournament's result tables as its run ends and as `referee results` shows them
later: the same tables, from the records of its results db, with where its bots came from."""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from referee.errors import ConfigError
from tournaments.output.bot_report import (
    all_faults, fault_list, fault_summary, remote_bots, replaced_games,
)
from tournaments.output.bots_table import bots_table, left_out_table
from tournaments.output.public import public_metadata, public_records, public_tables
from tournaments.output.formats import OutputFormat
from tournaments.output.html_page import Linker
from tournaments.output.metadata import Metadata, Settled
from tournaments.output.render import Rendered, render
from tournaments.output.student_report import student_tables
from tournaments.output.tables import ResultTable, build_tables
from tournaments.schedule.fixtures import fixture_deals, fixtures_for
from tournaments.spec.definition import TournamentSpec
from tournaments.stats.settle import counted_games
from tournaments.store.provenance import BotProvenance
from tournaments.store.records import GameRecord
from tournaments.store.results_db import LeftOut, ResultStore


def results_tables(db_path: Path, fmt: OutputFormat, bot: str | None = None,
                   faults: bool = False, table: str | None = None,
                   stream: TextIO | None = None, links: Linker | None = None,
                   public: bool = False) -> str:
    """The tables of a results db made earlier (finished or not) and its bots; with
    `bot`, that bot's provenance and games instead, and with `faults`, every fault
    (ConfigError for an unknown bot or table). What belongs on standard error goes to
    `stream` (by default, there). An HTML page links its cells as `links` says; a
    `public` one (serve --public) shows what tournaments/output/public.py lets anyone
    see."""
    err = stream if stream is not None else sys.stderr
    with opened(lambda: ResultStore.open_existing(db_path), db_path) as store:
        records, folder = store.records(), db_path.resolve().parent
        if bot is None and not faults:
            return rendered_results(store, records, fmt, table, err, links, public)
        # A bot's games and the faults: every game stored, counted or not.
        tables: list[ResultTable] = []
        remote = remote_bots(store.spec.bots)
        if bot is not None:  # the student's page, the teacher's way: with the files
            tables += [*student_tables(records, bot, store.spec.bot_names,
                                       store.spec.game.contest, folder,
                                       own_folder(store, bot), paths=True, remote=remote),
                       bots_table(store.spec, store.bots(), only=bot, people=fmt.for_people),
                       *replaced_games(store.replaced(bot), bot, folder,
                                       store.spec.game.contest, remote)]
        if faults:
            tables.append(all_faults(records, folder, remote, machines=not fmt.for_people))
        return _written(render(tables, metadata(store.spec, len(records)), fmt, table,
                               links), err)


_SUFFIX = {OutputFormat.TEXT: ".txt", OutputFormat.MARKDOWN: ".md",
           OutputFormat.HTML: ".html", OutputFormat.JSON: ".json", OutputFormat.CSV: ".csv"}


def write_reports(db_path: Path, fmt: OutputFormat, folder: Path) -> list[Path]:
    """`referee results DB --reports DIR`: one page per student (each candidate) to hand
    back, DIR/NAME.txt (.md, .html, .json by format): its summary, failures and
    games, no file of the organiser's machine (tournaments/output/student_report.py).
    ConfigError for a folder that cannot be written."""
    with opened(lambda: ResultStore.open_existing(db_path), db_path) as store:
        records, spec = store.records(), store.spec
        seated = Counter(index for fixture in fixtures_for(spec, _ANY_SECRET)
                         for index in set(fixture.seats))  # fixtures, once for the class
        pages = {}
        for index in spec.candidates:
            bot = spec.bot_names[index]
            tables = student_tables(records, bot, spec.bot_names, spec.game.contest,
                                    db_path.resolve().parent, own_folder(store, bot),
                                    paths=False)
            rendered = render(tables, student_metadata(spec, records, bot, seated[index]),
                              fmt)
            pages[bot] = rendered.out
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for bot, page in pages.items():
            path = folder / (bot + _SUFFIX[fmt])
            path.write_text(page, encoding="utf-8")
            written.append(path)
    except OSError as error:
        raise ConfigError(f"cannot write the reports in {folder}: "
                          f"{error.strerror or error}") from None
    return written


def student_metadata(spec: TournamentSpec, records: Sequence[GameRecord], bot: str,
                     scheduled: int) -> Metadata:
    """The settings a page to hand back shows: the student and the bots it met, and its
    own games played of its `scheduled` ones; the class's list and game count would tell
    every student who else is in the class."""
    mine = [record for record in records if bot in record.bots]
    met = {name for record in mine for name in record.bots}
    return replace(metadata(spec, len(mine)), games_scheduled=scheduled,
                   bots=tuple(name for name in spec.bot_names if name in met or name == bot),
                   references=tuple(name for name in _reference_names(spec) if name in met))


_ANY_SECRET = bytes(32)  # which fixtures seat a bot does not depend on the deals' secret


def own_folder(store: ResultStore, bot: str) -> Path | None:
    """The folder a student's bot runs from, as its page names its files: the one its
    entry declares, else its script's, else its program's (None: not recorded)."""
    entry = next((entry for entry in store.spec.bots if entry.name == bot), None)
    if entry is None:
        return None  # no such bot: bot_games says so, naming those there are
    if entry.dir is not None:
        return Path(entry.dir)
    recorded = store.bots().get(bot)
    if recorded is None:
        return None
    return Path(recorded.script or recorded.executable).parent


def opened(opener: Callable[[], ResultStore], path: Path) -> ResultStore:
    """The store, with a file system or SQLite failure as a one-line ConfigError."""
    try:
        return opener()
    except (OSError, sqlite3.Error) as error:
        raise ConfigError(f"cannot use {path} as a results db: {error}") from None


def standings(store: ResultStore) -> str:
    """The ranking table of the games stored so far, as text."""
    records, settled = counted(store.spec, store.records())
    ranking = result_tables(store.spec, records, OutputFormat.TEXT)[:1]
    return render(ranking, metadata(store.spec, len(records), settled), OutputFormat.TEXT).out


def rendered_results(store: ResultStore, records: Sequence[GameRecord], fmt: OutputFormat,
                     table: str | None, err: TextIO, links: Linker | None = None,
                     public: bool = False) -> str:
    """The tournament's tables of `records` (the store's) and where its bots came from:
    the same after a run and from `referee results`. Under --until-settled, the games
    of the deals up to the one the ranking settled after."""
    games, settled = counted(store.spec, records)
    shown = public_records(games) if public else games
    tables = result_tables(store.spec, shown, fmt, store.bots(), store.left_out())
    settings = metadata(store.spec, len(games), settled)
    if public:
        tables, settings = public_tables(tables), public_metadata(settings)
    rendered = render(tables, settings, fmt, table, links)
    return _written(rendered, err)


def counted(spec: TournamentSpec, records: Sequence[GameRecord]
            ) -> tuple[list[GameRecord], Settled | None]:
    """The games the tables count (tournaments/stats/settle.py), and where a tournament
    under --until-settled stopped."""
    if spec.settle is None:
        return list(records), None
    games, deal = counted_games(spec.settle, fixture_deals(spec), _ranked_names(spec), records)
    if deal is None:
        return games, None
    return games, Settled(spec.settle.words(), deal, len(records) - len(games))


def result_tables(spec: TournamentSpec, records: Sequence[GameRecord], fmt: OutputFormat,
                  bots: Mapping[str, BotProvenance] | None = None,
                  left_out: Sequence[LeftOut] = ()) -> list[ResultTable]:
    """The tournament's tables, the ranking first, then the bots, and the games a changed
    class left out; a page to publish lists every fault, bot by bot, too."""
    tables = build_tables(spec.game, records, spec.bot_names, _reference_names(spec))
    if any(record.faults for record in records):  # each failure once, and where it was
        tables.append(fault_summary(records))
    tables.append(bots_table(spec, bots or {}, people=fmt.for_people))
    tables += left_out_table(left_out)
    return tables + ([fault_list(records)] if fmt is OutputFormat.HTML else [])


def _written(rendered: Rendered, err: TextIO) -> str:
    """Standard output's part; the rest is written to `err` now."""
    err.write(rendered.err)
    return rendered.out


def _reference_names(spec: TournamentSpec) -> list[str]:
    return [spec.bot_names[index] for index in spec.references]


def _ranked_names(spec: TournamentSpec) -> list[str]:
    return [spec.bot_names[index] for index in spec.candidates]


def metadata(spec: TournamentSpec, games_played: int,
             settled: Settled | None = None) -> Metadata:
    """What the outputs say beside the tables: the settings, and how far the run got."""
    return Metadata(
        game=spec.game.name, game_title=spec.game.title, seed=spec.seed, deals=spec.deals,
        size_key=spec.size_key, size=spec.size,
        limits={**spec.time_limits.to_json(), "clock": spec.time_limits.clock.value},
        resources=dict(spec.resource_limits.to_json()), options=spec.options.to_json(),
        bots=spec.bot_names, references=tuple(_reference_names(spec)),
        games_played=games_played, games_scheduled=spec.games, title=spec.title,
        settled=settled)
