#!/usr/bin/env python3
"""`referee publish`: time and size of the site of a 1,000-game tournament.

    .venv/bin/python bench/publish_site.py [DB]

Without DB it first plays one (Rage, the four sample bots of bots/ at one table, 250
deals of 4 seat rotations: 1,000 games, unsandboxed) in a temporary folder. Then it
publishes DB's site with each --replays mode, the replays written in one process and in
one per core, and prints each run's wall and CPU seconds (this process and its workers),
pages and megabytes. Last, on the first 100 games, seat mode's work per game with the
log read once per game (as publish does) against once per page (a `referee view --seat`
per page): `ratio seat_pages_one_load X` is the second's seconds over the first's.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.registry.game_logs import load_log
from referee.viewer.page import build, html
from tournaments.site.layout import ReplayMode
from tournaments.site.publish import publish
from tournaments.site.replays import ReplayJob, write_game

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["python bots/rage_random.py", "python bots/rage_heuristic.py"] * 2
SAMPLE = 100


def tournament(folder: Path) -> Path:
    db = folder / "rage.sqlite"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "referee", "tournament", "rage", *BOTS,
                    "--deals", "250", "--sandbox", "off", "--db", str(db)],
                   cwd=ROOT, check=True, capture_output=True)
    print(f"played 1000 games in {time.perf_counter() - started:.0f} s")
    return db


def cpu_seconds() -> float:
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(db: Path, folder: Path, mode: ReplayMode, workers: int) -> float:
    shutil.rmtree(folder, ignore_errors=True)
    cpu = cpu_seconds()
    done = publish(db, folder, mode, workers)
    print(f"publish --replays {mode.value} --jobs {workers}: {done.seconds:.1f} s wall, "
          f"{cpu_seconds() - cpu:.1f} s CPU, {done.pages} pages, {done.size / 1e6:.1f} MB"
          f"{f', {len(done.missing)} games without a replay' if done.missing else ''}")
    print(f"ratio publish_{mode.value}_jobs{workers}_seconds {done.seconds:.2f}")
    return done.seconds


def one_load_against_one_per_page(db: Path, folder: Path) -> None:
    logs = sorted((db.parent / f"{db.stem}-logs").glob("*.jsonl*"))[:SAMPLE]
    jobs = [ReplayJob(log.name, log, 4) for log in logs]
    (folder / "games").mkdir(parents=True, exist_ok=True)
    started = time.process_time()
    for job in jobs:
        write_game(job, ReplayMode.SEAT, folder)
    once = time.process_time() - started
    started = time.process_time()
    for job in jobs:
        for seat in range(job.seats):
            (folder / f"{seat}.html").write_text(html(build(load_log(job.log), seat)))
    per_page = time.process_time() - started
    print(f"seat pages of {len(jobs)} games: {once / len(jobs) * 1000:.0f} ms CPU a game "
          f"with one log load, {per_page / len(jobs) * 1000:.0f} ms with one per page")
    print(f"ratio seat_pages_one_load {per_page / once:.2f}")


def main(args: list[str]) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="publish-bench-"))
    try:
        db = Path(args[0]) if args else tournament(scratch)
        cores = os.cpu_count() or 1
        for mode in (ReplayMode.ALL, ReplayMode.SEAT, ReplayMode.NONE):
            for workers in ((1, cores) if mode is not ReplayMode.NONE else (1,)):
                run(db, scratch / "site", mode, workers)
        one_load_against_one_per_page(db, scratch / "sample")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
