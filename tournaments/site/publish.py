"""`referee publish DB DIR`: write a tournament's results site into DIR.

DIR may hold other files: publishing writes index.html, bots/, games/ and the manifest
(.referee-site.json), and removes only the files that the manifest of an earlier
publish lists (so the site is replaced, and files the user put there stay).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee.errors import ConfigError
from tournaments.output.formats import OutputFormat
from tournaments.output.public import (
    games_shown, public_metadata, public_records, public_tables,
)
from tournaments.output.results import metadata, opened, result_tables
from tournaments.site.layout import (
    BOTS, GAMES, INDEX, GameReplays, Manifest, ReplayMode, bot_page, replay_page,
)
from tournaments.site.pages import bot_page as bot_html, index_page
from tournaments.site.replays import ReplayJob, write_replays
from tournaments.spec.definition import TournamentSpec
from tournaments.store.provenance import BotProvenance
from tournaments.store.records import GameRecord
from tournaments.store.results_db import ResultStore


@dataclass
class Published:
    """What a publish wrote: pages, bytes, seconds, and the games left without a replay
    (and why)."""

    folder: Path
    pages: int = 0
    size: int = 0
    seconds: float = 0.0
    missing: list[str] = field(default_factory=list)
    withheld: int = 0  # a public site's games without a replay (public.py's games_shown)
    withheld_why: str = ""


def publish(db_path: Path, folder: Path, mode: ReplayMode = ReplayMode.ALL,
            workers: int | None = None, up: tuple[str, str] | None = None,
            title: str | None = None, public: bool = False) -> Published:
    """The site of the results db `db_path` in `folder`. ConfigError for a db that is
    none (or of something else) and for a folder that cannot be written. `up`: (href,
    words) of a page above it, linked from its front page; `title`, the tournament's
    name on its pages, instead of the one its db holds; `public`: what anyone may see
    (tournaments/output/public.py): the tables without stderr, lines, card-naming
    details or paths, and no replay of a game withheld (the replays' `mode` says what
    the others show)."""
    started = time.perf_counter()
    with opened(lambda: ResultStore.open_existing(db_path), db_path) as store:
        spec, records, provenance = store.spec, store.records(), store.bots()
    if title is not None:
        spec = replace(spec, title=title)
    _prepare(folder)
    logs = db_path.resolve().parent
    # A public site shows no game of a deal still to be played in full (public.py).
    shown = games_shown(spec, {r.fixture_id for r in records})
    withheld = {r.fixture_id for r in records
                if public and shown.why_not(r.fixture_id) is not None}
    jobs = [ReplayJob(r.fixture_id, logs / r.log_path, len(r.bots), r.fault_stderr(),
                      spec.title)
            for r in records if r.log_path is not None and r.fixture_id not in withheld]
    names = list(spec.bot_names)
    bot_pages = {name: bot_page(names, name) for name in names}
    planned = [INDEX, *bot_pages.values(), *_replay_files(jobs, mode)]
    try:
        _replace(folder, Manifest(planned, bot_pages))  # how it is written: once it is
        done = Published(folder, withheld=len(withheld), withheld_why=shown.why_withheld)
        replays: dict[str, GameReplays] = {}
        for result in write_replays(jobs, mode, folder, workers):
            if result.missing is not None:
                done.missing.append(f"{result.game_id}: {result.missing}")
                continue
            replays[result.game_id] = result.replays
            done.pages += len(result.replays.pages)
            done.size += result.size
        texts = _pages(spec, records, provenance, bot_pages, replays, mode, up, public)
        for path, text in texts.items():
            data = text.encode()
            (folder / path).write_bytes(data)
            done.pages, done.size = done.pages + 1, done.size + len(data)
        Manifest(planned, bot_pages, replays, mode.value, public).write(folder)
    except OSError as error:
        raise ConfigError(f"cannot write the site in {folder}: "
                          f"{error.strerror or error}") from None
    done.seconds = time.perf_counter() - started
    return done


def _pages(spec: TournamentSpec, records: Sequence[GameRecord],
           provenance: Mapping[str, BotProvenance], bot_pages: Mapping[str, str],
           replays: Mapping[str, GameReplays], mode: ReplayMode,
           up: tuple[str, str] | None, public: bool) -> dict[str, str]:
    """The index and the bots' pages, by file name: the tables once, for all of them."""
    if public:
        records = public_records(records)
    tables = result_tables(spec, records, OutputFormat.HTML, provenance)
    settings = metadata(spec, len(records))
    shown, settings = (public_tables(tables), public_metadata(settings)) if public else \
        (tables, settings)
    texts = {INDEX: index_page(shown, settings, bot_pages, replays, mode, up)}
    rankings = [tables[0], *[table for table in tables if table.name == "references"]]
    for name, page in bot_pages.items():
        texts[page] = bot_html(name, spec, records, rankings, provenance, bot_pages,
                               replays, public)
    return texts


def _prepare(folder: Path) -> None:
    """The folder made (and its parents) and checked writable, before any page."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} is a file, not a folder: give a folder for the site")
    try:
        (folder / BOTS).mkdir(parents=True, exist_ok=True)
        (folder / GAMES).mkdir(exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot make the site's folder {folder}: "
                          f"{error.strerror or error}") from None


def _replay_files(jobs: list[ReplayJob], mode: ReplayMode) -> list[str]:
    if mode.per_game:
        return [replay_page(job.game_id, None) for job in jobs]
    if mode is ReplayMode.SEAT:
        return [replay_page(job.game_id, seat) for job in jobs for seat in range(job.seats)]
    return []


def _replace(folder: Path, planned: Manifest) -> None:
    """The files an earlier publish listed, removed (only those, inside the folder);
    then the manifest of this one, written before its pages, so that a publish stopped
    halfway is still cleaned up by the next."""
    earlier = Manifest.read(folder)
    for name in earlier.files if earlier is not None else []:
        path = folder / name
        if path.is_symlink() or path.is_file():  # a link itself, never what it names
            path.unlink()
    planned.write(folder)
