#!/usr/bin/env python3
"""The log's CPU ratio of several commits, before against after in one run.

    python bench/log_cpu_across_commits.py [--repeats R] [--games G] [--cpu C]
        [--bench-of COMMIT] [--logs-in DIR] COMMIT...

Each COMMIT (any name git takes: a hash, HEAD, main~5) is checked out in a temporary
worktree, and its own bench/rage_referee.py measures `log_cpu_per_game` there (`--worker
--paired`: one pinned process plays each seed with the log and without, and divides the
referee's CPU per game); with --bench-of, that commit's bench measures every commit's
code, so that a change to the bench itself does not count as one to the code. The commits
take turns, R rounds of one run each, so that every commit meets the same spells of a
shared machine: compare figures within one run only. A bench that takes --logs writes
every run's logs into one folder in bench/, removed at the end (rage_referee.py says why).
With --logs-in DIR that folder is made in DIR, which is also every run's TMPDIR, where an
older bench writes its logs: on a tmpfs (/dev/shm) the file system's cost of making a
file, which on ext4 depends on what was removed lately, is left out of every commit's.

Prints each commit's median and range, and a `ratio log_cpu_per_game@COMMIT VALUE` line
for each. The worktrees are removed at the end, also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = "bench/rage_referee.py"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def paired_ratio(tree: Path, games: int, cpu: int, logs: Path) -> float:
    """One run of the tree's paired bench, pinned to `cpu`, its logs in `logs`: log on
    over log off."""
    takes_logs = '"--logs"' in (tree / BENCH).read_text()
    done = subprocess.run(
        [sys.executable, BENCH, str(games), "--worker", "--paired",
         *(["--logs", str(logs)] if takes_logs else [])],
        cwd=tree, capture_output=True, text=True, env={**os.environ, "TMPDIR": str(logs)},
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    if done.returncode != 0:  # a commit older than the paired bench, say
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"log_cpu_across_commits: {tree.name}'s bench failed: {last}")
    on, off = map(float, done.stdout.split()[-2:])
    return on / off


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)))
    parser.add_argument("--bench-of", default=None,
                        help="the commit whose bench/rage_referee.py measures every commit")
    parser.add_argument("--logs-in", type=Path, default=ROOT / "bench",
                        help="where the logs' folder is made (default: bench/)")
    args = parser.parse_args()
    hashes = [git("rev-parse", "--short", commit) for commit in args.commits]
    if len(set(hashes)) < len(hashes):
        sys.exit("log_cpu_across_commits: two of the commits are the same: "
                 + " ".join(f"{c}={h}" for c, h in zip(args.commits, hashes)))
    ratios: dict[str, list[float]] = {commit: [] for commit in args.commits}
    bench = None if args.bench_of is None else git("show", f"{args.bench_of}:{BENCH}")
    with tempfile.TemporaryDirectory(prefix="log-cpu-") as scratch, \
            tempfile.TemporaryDirectory(prefix=".logs-", dir=args.logs_in) as logs:
        trees = {commit: Path(scratch) / short for commit, short in zip(args.commits, hashes)}
        try:
            for commit, tree in trees.items():
                git("worktree", "add", "--detach", str(tree), commit)
                if bench is not None:
                    (tree / BENCH).write_text(bench + "\n")
            for _ in range(args.repeats):
                for commit, tree in trees.items():
                    ratios[commit].append(paired_ratio(tree, args.games, args.cpu,
                                                       Path(logs)))
        finally:
            for tree in trees.values():
                if tree.exists():
                    git("worktree", "remove", "--force", str(tree))
            git("worktree", "prune")
    for commit, short in zip(args.commits, hashes):
        runs = ratios[commit]
        print(f"{commit} ({short}): log on over log off {statistics.median(runs):.3f} "
              f"[{min(runs):.3f}-{max(runs):.3f}], {len(runs)} runs on cpu {args.cpu}, "
              f"logs in {args.logs_in}")
    for commit in args.commits:
        print(f"ratio log_cpu_per_game@{commit} {statistics.median(ratios[commit]):.3f}")


if __name__ == "__main__":
    main()
