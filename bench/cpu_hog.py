#!/usr/bin/env python3
"""Does a CPU hog get innocent bots timed out? At its table, and at the next one.

    python bench/cpu_hog.py [--games G] [--deals D] [--referee PATH] [--hog N]

The hog (tests/referee/fault_bots/zoo/channel_bot.py `hog N`) starts N spinning
processes, each in a session of its own, asking for every CPU. The innocent bots
(`burn 0.25 8`) use a quarter of their 1 s move time, in CPU, on their first 8 requests
of a game.

- At the table: G games of `referee play rage` (seeds 1..G), seats hog, innocent, random.
- At the next table: `referee tournament --jobs 2` of the hog and three innocents at
  tables of 3, D deals; the games without the hog ran beside games with it, on the other
  worker's CPU.

`--referee` runs another checkout's referee (its `.venv/bin/referee`), to compare before
and after in one run. Prints the innocents' faults and the games they rest on, and

  ratio hog_innocent_faults_table VALUE   innocent faults per game at the hog's table
  ratio hog_innocent_faults_next VALUE    innocent faults per game without the hog
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHANNEL = ROOT / "tests" / "referee" / "fault_bots" / "zoo" / "channel_bot.py"
RANDOM = ROOT / "bots" / "rage_random.py"


def at_the_table(referee: str, games: int, hog: int, box: Path) -> tuple[int, int]:
    """(innocent faults, games) over `games` games with the hog at the table."""
    faults = 0
    for seed in range(1, games + 1):
        done = subprocess.run(
            [referee, "play", "rage", "--seed", str(seed), "--move-time", "1",
             f"python {box / 'channel_bot.py'} hog {hog}",
             f"python {box / 'channel_bot.py'} burn 0.25 8", f"python {RANDOM}"],
            cwd=box, capture_output=True, text=True, timeout=600, check=False)
        faults += sum(1 for line in done.stderr.splitlines()
                      if line.startswith("referee: fault: seat ")
                      and not line.startswith("referee: fault: seat 0 "))
    return faults, games


def at_the_next_table(referee: str, deals: int, hog: int, box: Path) -> tuple[int, int]:
    """(innocent faults, games) in the games without the hog, under --jobs 2."""
    bots = [f"hog=python channel_bot.py hog {hog}",
            *(f"{name}=python channel_bot.py burn 0.25 8" for name in "abc")]
    subprocess.run([referee, "tournament", "rage", "--deals", str(deals), "--jobs", "2",
                    "--table-size", "3", "--move-time", "1", "--db", "results/h.sqlite",
                    *bots], cwd=box, capture_output=True, timeout=3600, check=False)
    with sqlite3.connect(box / "results" / "h.sqlite") as db:
        records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games")]
    apart = [r for r in records if "hog" not in r["bots"]]
    return sum(len(r["faults"]) for r in apart), len(apart)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--deals", type=int, default=7)
    parser.add_argument("--hog", type=int, default=200)
    parser.add_argument("--referee", default=str(Path(sys.executable).parent / "referee"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cpu-hog-", dir="/var/tmp") as folder:
        box = Path(folder)
        box.chmod(0o755)  # the sandboxes' users read the bot there
        shutil.copy(CHANNEL, box / "channel_bot.py")
        table = at_the_table(args.referee, args.games, args.hog, box)
        nearby = at_the_next_table(args.referee, args.deals, args.hog, box)
    print(f"at the table: {table[0]} innocent faults in {table[1]} games")
    print(f"at the next table (--jobs 2): {nearby[0]} innocent faults in {nearby[1]} games")
    print(f"ratio hog_innocent_faults_table {table[0] / max(table[1], 1):.3f}")
    print(f"ratio hog_innocent_faults_next {nearby[0] / max(nearby[1], 1):.3f}")


if __name__ == "__main__":
    main()
