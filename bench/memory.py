"""Peak memory and processes of a class's tournament: 30 bots, `--jobs 8`.

    .venv/bin/python bench/memory.py [--games N] [--jobs J] [--sandbox on|off]
                                     [--persistent-bots]

Makes a class of 30 Rage bots, each in its own folder (copies of the sample bots, random,
heuristic and first, under 30 names, as students would hand them in), and runs
`referee tournament rage` on them, as a user would, at the default tables of 4 (every
table of 4 of the 30, each in 4 rotations: 109,620 games a deal, so `--max-games` is
raised). Every ~0.2 s it reads the whole process tree under the referee (bench/
proc_tree.py): the sum of PSS (each shared page split among its processes: the memory
the tree really holds) and of RSS, and how many processes there are, bots among them.
After N games have begun (a few hundred: past the bots' first start, into the steady
state in which each worker swaps bots in and out) it stops the run with Ctrl-C (SIGINT),
as a user would, and prints the peaks.

The design's bound (tournaments/run/fixture_play.py, BotPool): a worker keeps at most two tables'
worth of idle bots (IDLE_TABLES), so with the table it seats at most 3 x table size bot
processes, however many bots the class has: jobs x 3 x 4 bots in all. That holds for
sandboxed bots too (the default), which are reused for deals they have not played, each
with its sandbox's own processes (bubblewrap's two).
`ratio peak_pss_mb X` and `ratio peak_processes Y` are the peaks; `bound bot_processes
Z` the design's bound on the bots, which the peak of bot processes must not pass.

The sampling itself costs CPU (smaps_rollup of ~100 processes: ~0.1 s a sample under
load), which the games on a small machine feel: `sampler_cpu_share` says how much of one
CPU it took over the run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.proc_tree import Memory, descendants, memory  # noqa: E402
from tournaments.run.idle_bots import IDLE_TABLES  # noqa: E402
from tournaments.run.fixture_play import LOG_SUFFIX  # noqa: E402

BOTS = 30
TABLE = 4  # Rage's default table for 30 bots
SAMPLES = ("rage_random.py", "rage_heuristic.py", "rage_first.sh")
EVERY = 0.2  # seconds between samples


def make_class(folder: Path) -> list[str]:
    """30 bots, each a copy of a sample bot in its own folder: their `name=command`s."""
    entries = []
    for number in range(1, BOTS + 1):
        sample = SAMPLES[number % len(SAMPLES)]
        student = folder / f"student{number:02d}"
        student.mkdir(parents=True)
        shutil.copy2(ROOT / "bots" / sample, student / sample)
        run = f"stdio:{student / sample}" if sample.endswith(".sh") else \
            f"python {student / sample}"
        entries.append(f"student{number:02d}={run}")
    for path in (folder, *folder.rglob("*")):  # sandboxed bots run as uid 60000
        path.chmod(0o755)
    return entries


@dataclass
class Peaks:
    """The largest figures seen over the samples."""

    pss_kib: int = 0
    first_game: float | None = None  # seconds from the start to the first game's log
    rss_kib: int = 0
    processes: int = 0
    bots: int = 0
    samples: int = 0
    series: list[tuple[float, int, int]] = field(default_factory=list)  # (s, MiB, procs)

    def add(self, seconds: float, seen: Memory, bots: int) -> None:
        self.pss_kib = max(self.pss_kib, seen.pss_kib)
        self.rss_kib = max(self.rss_kib, seen.rss_kib)
        self.processes = max(self.processes, seen.processes)
        self.bots = max(self.bots, bots)
        self.samples += 1
        self.series.append((seconds, seen.pss_kib // 1024, seen.processes))


def bot_processes(pids: list[int], folder: Path) -> int:
    """The processes among `pids` that run one of the class's bots: their program, or
    the script their interpreter runs, is in the class's folder. Only those two words:
    the referee and each worker hold every bot's command in their own command line
    (`student01=python .../rage_random.py`), and bwrap the bot's, and counting them
    made 1 + jobs bots too many."""
    return sum(runs_bot(pid, folder) for pid in pids)


def runs_bot(pid: int, folder: Path) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False  # gone
    mark = str(folder).encode() + b"/"
    return any(word.startswith(mark) for word in argv[:2])


def games_begun(logs: Path) -> int:
    """Games begun so far: a game's log opens when it starts (reading the db while the
    run commits could wait on its lock). The suffix is the tournament's own: counting
    "*.jsonl" after logs became .jsonl.gz saw no game, and every run went to --timeout."""
    return len(list(logs.glob("*" + LOG_SUFFIX))) if logs.is_dir() else 0


def watch(run: subprocess.Popen[bytes], folder: Path, logs: Path, games: int,
          timeout: float) -> tuple[Peaks, float]:
    """Sample the run's tree until `games` games have begun, then stop it with SIGINT;
    the peaks and the seconds it ran."""
    peaks, start = Peaks(), time.monotonic()
    while run.poll() is None and (begun := games_begun(logs)) < games:
        if time.monotonic() - start > timeout:
            break
        if begun and peaks.first_game is None:
            peaks.first_game = time.monotonic() - start
        pids = descendants(run.pid)
        peaks.add(time.monotonic() - start, memory(pids), bot_processes(pids, folder))
        time.sleep(EVERY)
    seconds = time.monotonic() - start
    if run.poll() is None:
        run.send_signal(signal.SIGINT)
    return peaks, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--sandbox", choices=("on", "off"), default="on")
    parser.add_argument("--persistent-bots", action="store_true",
                        help="sandboxed bots play many games (the referee's option)")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)  # sandboxed bots run as uid 60000
        entries = make_class(folder / "class")
        db = folder / "class.sqlite"
        command = [sys.executable, "-m", "referee", "tournament", "rage", "--jobs",
                   str(args.jobs), "--db", str(db), "--max-games", "200000",
                   "--sandbox", args.sandbox,
                   *(["--persistent-bots"] if args.persistent_bots else []), *entries]
        run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": tmp})
        sampler = time.process_time()
        peaks, seconds = watch(run, folder / "class", folder / "class-logs", args.games,
                               args.timeout)
        sampler = time.process_time() - sampler
        _, err = run.communicate(timeout=120)
        begun = games_begun(folder / "class-logs")
    report(args, peaks, seconds, begun, run.returncode, err.decode(errors="replace"))
    print(f"ratio sampler_cpu_share {sampler / seconds:.2f}")


def report(args: argparse.Namespace, peaks: Peaks, seconds: float, begun: int,
           code: int, err: str) -> None:
    last = [line for line in err.splitlines() if line.strip()][-1:] or ["(nothing)"]
    persistent = " --persistent-bots" if args.persistent_bots else ""
    first = "no game" if peaks.first_game is None else f"first game at {peaks.first_game:.1f} s"
    print(f"{BOTS} bots, tables of {TABLE}, --jobs {args.jobs}, --sandbox {args.sandbox}"
          f"{persistent}: {begun} games begun in {seconds:.1f} s ({first}), "
          f"{peaks.samples} samples; stopped with SIGINT: exit {code} "
          f"({last[0].strip()[:120]})")
    if begun < args.games:  # the peaks then stand for a shorter run than asked
        print(f"warning: only {begun} of --games {args.games} began: stopped by "
              f"--timeout {args.timeout:g} s or the run's own end")
    quarters = [peaks.series[len(peaks.series) * q // 4:len(peaks.series) * (q + 1) // 4]
                for q in range(4)]
    if all(quarters):  # growth from quarter to quarter would show a leak
        print("by quarter of the run, median PSS (MiB) and processes: " + ", ".join(
            f"{statistics.median(s[1] for s in part):.0f} and "
            f"{statistics.median(s[2] for s in part):.0f}" for part in quarters))
    tables = IDLE_TABLES + 1  # workers keep bots between games (tournaments/run/idle_bots.py)
    bound = args.jobs * tables * TABLE
    print(f"peak PSS {peaks.pss_kib / 1024:.0f} MiB, peak RSS {peaks.rss_kib / 1024:.0f} "
          f"MiB, peak processes {peaks.processes} (bots {peaks.bots}; the design's bound "
          f"on bots: jobs x {tables} x table = {bound}: "
          f"{'kept' if peaks.bots <= bound else 'PASSED'})")
    print(f"ratio peak_pss_mb {peaks.pss_kib / 1024:.1f}")
    print(f"ratio peak_rss_mb {peaks.rss_kib / 1024:.1f}")
    print(f"ratio peak_processes {peaks.processes}")
    print(f"ratio peak_bot_processes {peaks.bots}")
    print(f"bound bot_processes {bound}")
    per_bot = 1 if args.sandbox == "off" else 3  # a sandbox adds bwrap's two processes
    print(f"bound processes {1 + 2 * args.jobs + per_bot * bound} (the referee, its "
          f"workers and their sentinels, {per_bot} per bot)")


if __name__ == "__main__":
    main()
