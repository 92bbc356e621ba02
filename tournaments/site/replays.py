"""The replay pages of a site: each game's log read once, its page(s) built with
`referee view`'s machinery (referee/viewer/), the steps of its faults found in them;
games in parallel worker processes where there are enough of them to pay."""

from __future__ import annotations

import os
from html import escape
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import ConfigError
from referee.registry.game_logs import load_log
from referee.viewer.page import SPECTATOR, build, html
from referee.viewer.page_faults import add_stderr, fault_steps
from tournaments.site.layout import GameReplays, Replay, ReplayMode, replay_page

PARALLEL_FROM = 40  # fewer games than this are done in this process: starting workers costs more
_CHUNK = 8  # games per task sent to a worker
_BACK = ('<nav class="site" style="padding: 6px 18px 0; font-size: 13px">'
         '<a href="../index.html">← {}all results</a></nav>')


@dataclass(frozen=True)
class ReplayJob:
    """One game to write the replay pages of."""

    game_id: str
    log: Path
    seats: int
    # Per faulted seat, the last lines of its stderr in the game (GameRecord.fault_stderr).
    stderr: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # The tournament's name, where it has one, in the link back to its results: an arena
    # round's replays name the arena round, which their own "Round 3" is not.
    title: str | None = None


@dataclass(frozen=True)
class ReplayDone:
    """The pages written for a game, their bytes, or why there are none."""

    game_id: str
    replays: GameReplays
    size: int = 0
    missing: str | None = None


def write_replays(jobs: Sequence[ReplayJob], mode: ReplayMode, folder: Path,
                  workers: int | None = None) -> Iterator[ReplayDone]:
    """Each game's replay pages written under `folder` (the site's DIR), in `jobs`'
    order; in `workers` processes (default: one per core) for many games."""
    if mode is ReplayMode.NONE:
        return
    count = workers if workers is not None else os.cpu_count() or 1
    if count <= 1 or len(jobs) < PARALLEL_FROM:
        yield from (write_game(job, mode, folder) for job in jobs)
        return
    with ProcessPoolExecutor(count) as pool:
        yield from pool.map(write_game, jobs, [mode] * len(jobs), [folder] * len(jobs),
                            chunksize=_CHUNK)


def write_game(job: ReplayJob, mode: ReplayMode, folder: Path) -> ReplayDone:
    """The game's pages: its log loaded once, then the organiser's page, a spectator's,
    or one per seat. A log that is gone or does not read leaves the game without a
    replay."""
    try:
        records = load_log(job.log)
        seats: list[int | None] = [None] if mode.per_game else list(range(job.seats))
        whole = SPECTATOR if mode is ReplayMode.SPECTATOR else None  # the game's own page
        pages = {seat: build(records, whole if seat is None else seat) for seat in seats}
    except ConfigError as error:
        return ReplayDone(job.game_id, GameReplays(), missing=str(error))
    replays, size = GameReplays(), 0
    for seat, page in pages.items():
        add_stderr(page, job.stderr, whole if seat is None else seat)
        href = replay_page(job.game_id, seat)
        named = "" if job.title is None else escape(job.title) + ": "
        text = html(page, _BACK.format(named)).encode()
        (folder / href).write_bytes(text)
        size += len(text)
        replays.pages[seat] = Replay(href, fault_steps(page))
    return ReplayDone(job.game_id, replays, size)
