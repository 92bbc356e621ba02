"""An arena of 200 contestants (issue 31, docs/arena.md "Scale"): games per second and
memory of `referee arena run`, at `--jobs 2` and on `--cluster local:2`.

    .venv/bin/python bench/arena_scale.py [--contestants 200] [--games 2000]
                                          [--modes jobs:2,cluster:local:2] [--keep DIR]

The contestants are the sample heuristic with known mistake rates (contestant i of N
makes a random move with probability i / (N - 1)), submitted as a user would (`referee
arena submit`, each passing `check --quick`, two at a time). Each mode then runs on its
own copy of that arena, from no game, until it has played --games games or more (whole
rounds), as `referee arena run DIR --games G ...`. Every second the run's process tree is
read (bench/proc_tree.py: PSS, each shared page split among its processes, and RSS).
It prints, per mode, the games, the seconds, the rounds, games per second, the peak PSS
and process count, and the rank correlation (Spearman) between the ladder and the true
order: `ratio arena_games_per_s_MODE`, `ratio arena_peak_pss_mb_MODE`,
`ratio arena_spearman_MODE`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.proc_tree import descendants, memory  # noqa: E402

EVERY = 1.0  # seconds between samples


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                          capture_output=True, text=True)


def make_arena(folder: Path, contestants: int) -> float:
    """The arena of `contestants` versions; the seconds their submits took."""
    done = referee("arena", "init", str(folder), "--game", "rage")
    assert done.returncode == 0, done.stderr
    started = time.monotonic()

    def submit(i: int) -> None:
        rate = i / (contestants - 1)
        sent = referee("arena", "submit", str(folder), f"c{i:03d}",
                       f"python bots/rage_heuristic.py --mistakes {rate:.4f}")
        assert sent.returncode == 0, sent.stdout + sent.stderr
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(submit, range(contestants)))
    return time.monotonic() - started


def run_mode(arena: Path, mode: str, games: int) -> dict[str, float]:
    kind, _, value = mode.partition(":")
    flag = ["--jobs", value] if kind == "jobs" else ["--cluster", value]
    run = subprocess.Popen([sys.executable, "-m", "referee", "arena", "run", str(arena),
                            "--games", str(games), *flag], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started, pss, procs = time.monotonic(), 0, 0
    while run.poll() is None:
        seen = memory(descendants(run.pid) + [run.pid])
        pss, procs = max(pss, seen.pss_kib), max(procs, seen.processes)
        time.sleep(EVERY)
    seconds = time.monotonic() - started
    out, err = run.communicate()
    assert run.returncode == 0, err
    rounds = err.count("round ")
    played = sum(int(line.split(" tables, ")[1].split(" games")[0])
                 for line in err.splitlines() if line.startswith("round "))
    return {"games": played, "seconds": seconds, "rounds": rounds,
            "games_per_s": played / seconds, "peak_pss_mb": pss / 1024, "processes": procs,
            "spearman": spearman(arena)}


def spearman(arena: Path) -> float:
    """Rank correlation of the ladder with the true order (c000 strongest)."""
    done = referee("arena", "standings", str(arena), "--format", "json")
    rows = json.loads(done.stdout)["tables"]["leaderboard"]["rows"]
    truth = [int(str(row["contestant"])[1:]) for row in rows]  # true rank, ladder order
    n = len(truth)
    d2 = sum((ladder - true) ** 2 for ladder, true in enumerate(truth))
    return 1 - 6 * d2 / (n * (n * n - 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contestants", type=int, default=200)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--modes", default="jobs:2,cluster:local:2")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the arenas here (and reuse a made one)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="arena-scale-"))
    made = base / "made"
    if not (made / "arena.db").exists():
        seconds = make_arena(made, args.contestants)
        print(f"{args.contestants} submits (each with check --quick, 2 at a time): "
              f"{seconds:.0f} s")
    for mode in args.modes.split(","):
        copy = base / mode.replace(":", "-")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(made, copy)
        figures = run_mode(copy, mode, args.games)
        print(f"{mode}: {figures['games']:.0f} games in {figures['rounds']:.0f} rounds, "
              f"{figures['seconds']:.0f} s, {figures['games_per_s']:.2f} games/s, peak PSS "
              f"{figures['peak_pss_mb']:.0f} MiB over {figures['processes']:.0f} "
              f"processes, Spearman {figures['spearman']:.3f}")
        name = mode.replace(":", "_")
        for key in ("games_per_s", "peak_pss_mb", "spearman"):
            print(f"ratio arena_{key}_{name} {figures[key]:.3f}")
    if args.keep is None:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
