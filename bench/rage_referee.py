#!/usr/bin/env python3
"""Decisions per second through the whole referee: 4 sample random bots over ZeroMQ ipc.

Each game is played as tournaments play it (tournaments/run/fixture_play.py): the game's definition
runs it with its game log on (gzip, timestamps too: docs/game-log.md), the log opened (looking
for a watcher, referee/logs/live.py: nobody watches here) and its header written per game. The same games without a log are measured beside it, so the log's
overhead per game is printed: the referee process's CPU and the log's bytes.

Bot start-up is excluded: the bots (sandboxed where the machine allows, the default)
are started once and play GAMES games in a row (the protocol's new-game message). The
cost of one decision is set beside the bare ZeroMQ round trip of
../shared/anchors/zmq_floor.py, run with the anchor interpreter ($ANCHOR_PYTHON, default
/tmp/anchors/bin/python; see shared/anchors/README).

    python bench/rage_referee.py [GAMES] [--repeats R] [--one-cpu-only]

Ours and the anchor alternate, R runs each (default 3), and the medians are compared
(ranges in brackets): on a small VM the cost of waking a process on the other CPU comes
and goes, and alternating exposes both to the same spells. Three comparisons:

- one CPU: each side, with all its processes and threads, pinned to one CPU (as
  tournament workers run), with the log and without it. No wake-up crosses CPUs; what
  is left is the work done per decision. The referee does not poll there
  (referee/transport/busy_wait.py), so its CPU is its work: the log's CPU per game is
  taken from here.
- unpinned: the referee as it runs by default, polling briefly before it sleeps; with
  the log and without it.
- unpinned, no polling (--busy-wait-us 0): every wait sleeps, as the anchor's does.

One CPU is also measured like for like: four bench/first_bot.py bots, which do no more
than the anchor's echo bot (find the request, send its first option), against
bench/zmq_floor_seats.py, the anchor's loop served to four echo bots in turn. On one CPU
each process of a table wakes once in four requests, its caches cold, as the one-bot
anchor's never are: that costs the bare round trip itself a third more or so.

The log's CPU is also measured paired: one process, pinned, plays each seed twice in a
row, once with the log and once without (which first alternates), with the same bots,
after a game of each to warm up. Measured apart, each figure is a fresh process's 20
games, and the two moved by up to a tenth from run to run on this machine, swamping the
log's share; paired, both sides meet the same spells.

Ends with `ratio rage_decision_vs_zmq_roundtrip VALUE` (unpinned, default settings, log
on; lower is better), the same without the log, `ratio
rage_decision_one_cpu_vs_zmq_roundtrip` (one CPU, sample bots, log on, against the
anchor), `ratio rage_decision_first_bots_one_cpu_vs_4seat_roundtrip` (one CPU, log on,
first-option bots against the four-seat anchor; issue 14's target is 1.5), and
`ratio log_cpu_per_game VALUE` (one CPU, paired: referee CPU per game, log on over log
off; issue 14's target is 1.15, issue 27's 1.10).

The logs are written where a tournament writes them, in a folder of their own that grows
while the games run (`--logs DIR`: made by the bench's first process in bench/, for all
its runs, and removed at the end), not in the system's temporary folder. Making a file
costs what the file system makes it cost, and on an ext4 without a journal (this project's
VMs) making one scans past every inode freed in the last minute or more, in its folder's
block group: in /tmp, where every test run makes and removes thousands of files, that was
0.4 to 1 ms a game against 0.2 ms in a folder of our own, half the log's cost
(docs/game-log.md). The folder and its file system are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.matches.game import Options  # noqa: E402
from referee.logs.live import open_log  # noqa: E402
from referee.matches.logged_game import write_header  # noqa: E402
from referee.players.lineup import LaunchSettings, Lineup, bot_specs  # noqa: E402
from referee.games.rage.definition import RAGE  # noqa: E402

ANCHOR = ROOT.parent / "shared" / "anchors" / "zmq_floor.py"
ANCHOR_PYTHON = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
ANCHOR_ROUND_TRIPS = "20000"
SEATS_ANCHOR = ROOT / "bench" / "zmq_floor_seats.py"  # the anchor's loop over N bots
BOTS = {"random": ROOT / "bots" / "rage_random.py",  # the sample bots' cheapest
        "first": ROOT / "bench" / "first_bot.py"}  # no more work than the anchor's bot
PLAYERS = 4
DECISIONS_PER_GAME = PLAYERS * sum(range(1, 11)) + PLAYERS * 10  # plays + bids


@dataclass(frozen=True)
class Figures:
    """One run of GAMES games: wall time per decision, the referee process's CPU per
    game, and the log's bytes per game (0 without a log)."""

    us_per_decision: float
    cpu_ms_per_game: float
    log_bytes_per_game: float


def referee_figures(games: int, logged: bool, busy_wait: float | None = None,
                    bot: str = "random") -> Figures:
    """`games` whole games by the same 4 bots, in this process; opening, heading and
    closing each game's log is part of the game, as in a tournament worker."""
    launch = LaunchSettings(busy_wait=busy_wait)
    elapsed = cpu = 0.0
    size = 0
    with Lineup(launch) as lineup, logs_folder() as logs:
        play = game_player(lineup, launch, bot, logs)
        for seed in range(games):
            wall, used, written = play(seed, logged)
            elapsed, cpu, size = elapsed + wall, cpu + used, size + written
    return Figures(elapsed / (games * DECISIONS_PER_GAME) * 1e6, cpu / games * 1e3,
                   size / games)


LOGS_HOME: Path | None = None  # --logs: the folder of all this bench's runs


@contextlib.contextmanager
def logs_folder() -> Iterator[Path]:
    """This process's logs: a folder of its own in LOGS_HOME, left for the bench's first
    process to remove (a folder removed here would make the next run's files slower to
    make: see the docstring); without --logs, a temporary one in bench/."""
    if LOGS_HOME is None:
        with tempfile.TemporaryDirectory(prefix=".logs-", dir=ROOT / "bench") as made:
            yield Path(made)
        return
    own = LOGS_HOME / str(os.getpid())
    own.mkdir()
    yield own


def file_system(folder: Path) -> str:
    """The type of the file system `folder` is on (from /proc/mounts), or "unknown"."""
    try:
        mounts = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return "unknown"
    folder = folder.resolve()
    found = [(len(fields[1]), fields[2]) for fields in mounts
             if len(fields) > 2 and folder.is_relative_to(fields[1])]
    return max(found)[1] if found else "unknown"


def game_player(lineup: Lineup, launch: LaunchSettings, bot: str, logs: Path
                ) -> Callable[[int, bool], tuple[float, float, int]]:
    """play(seed, logged): one whole game by the same 4 bots, with its log or without;
    its wall and CPU seconds and the log's bytes."""
    specs = bot_specs([f"python {BOTS[bot]}"] * PLAYERS)
    config = RAGE.configure(PLAYERS, Options.of(RAGE, {}))
    players = lineup.launch_all(specs)

    def play(seed: int, logged: bool) -> tuple[float, float, int]:
        path = logs / f"game{seed}-{logged}.jsonl.gz"  # as tournaments write it
        start, cpu_start = time.perf_counter(), time.process_time()
        log = open_log(path, True, logs) if logged else None  # as tournaments: a watcher?
        write_header(log, RAGE, config, seed, launch.times, specs, players)
        result = RAGE.run(players, config, seed, launch.times, log)
        if log is not None:
            log.close()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        assert not result.faults, result.faults
        return wall, cpu, path.stat().st_size if logged else 0

    return play


def paired_log_cpu(games: int) -> tuple[float, float]:
    """Referee CPU ms per game with the log and without, each seed played both ways in a
    row in this process (which way first alternates), after a game of each."""
    launch = LaunchSettings()
    cpu = {True: 0.0, False: 0.0}
    with Lineup(launch) as lineup, logs_folder() as logs:
        play = game_player(lineup, launch, "random", logs)
        play(games, True)
        play(games, False)
        for seed in range(games):
            for logged in (seed % 2 == 0, seed % 2 == 1):
                cpu[logged] += play(seed, logged)[1]
    return cpu[True] / games * 1e3, cpu[False] / games * 1e3


def run_paired(games: int, cpu: int) -> tuple[float, float]:
    """paired_log_cpu in a fresh process pinned to `cpu`."""
    done = subprocess.run([sys.executable, __file__, str(games), "--worker", "--paired",
                           *logs_option()],
                          capture_output=True, text=True, check=True,
                          preexec_fn=pinned_to(cpu))
    on, off = map(float, done.stdout.split()[-2:])
    return on, off


def paired(games: int, repeats: int, cpu: int) -> float:
    """The paired log ratio's median over `repeats` processes; printed with its range."""
    runs = [run_paired(games, cpu) for _ in range(repeats)]
    ratios = [on / off for on, off in runs]
    print(f"one CPU (cpu {cpu}), paired: referee CPU {spread([on for on, _ in runs], 2)} ms "
          f"per game with the log, {spread([off for _, off in runs], 2)} without; log on "
          f"over log off {spread(ratios, 3)}")
    return statistics.median(ratios)


def logs_option() -> list[str]:
    return [] if LOGS_HOME is None else ["--logs", str(LOGS_HOME)]


def pinned_to(cpu: int | None) -> Callable[[], None] | None:
    """A preexec_fn putting the child (and all it starts) on one CPU, or None."""
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def run_ours(games: int, cpu: int | None, variant: Variant) -> Figures:
    """One measurement in a fresh process (so both sides start alike)."""
    polling = [] if variant.busy_wait_us is None else ["--busy-wait-us",
                                                       str(variant.busy_wait_us)]
    log = [] if variant.logged else ["--no-log"]
    done = subprocess.run([sys.executable, __file__, str(games), "--worker", *log, *polling,
                           "--bot", variant.bot, *logs_option()],
                          capture_output=True, text=True, check=True,
                          preexec_fn=pinned_to(cpu))
    return Figures(*map(float, done.stdout.split()[-3:]))


def run_anchor(cpu: int | None, seats: int = 1) -> float | None:
    """One run of the anchor (or, for `seats` bots, its loop over them in turn): the
    ipc round trip in microseconds."""
    script = [str(ANCHOR)] if seats == 1 else [str(SEATS_ANCHOR), str(seats)]
    done = subprocess.run([ANCHOR_PYTHON, *script, ANCHOR_ROUND_TRIPS],
                          capture_output=True, text=True, check=True,
                          preexec_fn=pinned_to(cpu))
    found = re.search(r"zmq ipc\s+round trip(?:, \d+ seats)?:\s+([\d.]+) us", done.stdout)
    return float(found.group(1)) if found else None


def spread(values: Sequence[float], digits: int = 0) -> str:
    """`median [min-max]` of a few runs."""
    return (f"{statistics.median(values):.{digits}f} "
            f"[{min(values):.{digits}f}-{max(values):.{digits}f}]")


@dataclass(frozen=True)
class Variant:
    """One way of running our side within a comparison."""

    name: str
    logged: bool = True
    busy_wait_us: int | None = None
    bot: str = "random"  # a key of BOTS


def compare(label: str, games: int, repeats: int, cpu: int | None,
            variants: Sequence[Variant], seats: int = 1
            ) -> tuple[float | None, dict[str, tuple[float, float]]]:
    """Alternate every variant and the anchor (served to `seats` bots); print the
    medians. Return the anchor's median (None without one) and per variant (median us
    per decision, median referee CPU ms per game)."""
    ours: dict[str, list[Figures]] = {variant.name: [] for variant in variants}
    floor: list[float] = []
    for _ in range(repeats):
        for variant in variants:
            ours[variant.name].append(run_ours(games, cpu, variant))
        anchor = run_anchor(cpu, seats) if ANCHOR.exists() and Path(ANCHOR_PYTHON).exists() \
            else None
        if anchor is not None:
            floor.append(anchor)
    bare = statistics.median(floor) if floor else None
    if bare is not None:
        print(f"{label}: zmq ipc round trip{f', {seats} seats' if seats > 1 else ''} "
              f"{spread(floor, 1)} us")
    results: dict[str, tuple[float, float]] = {}
    for name, runs in ours.items():
        wall = [run.us_per_decision for run in runs]
        cpu_ms = [run.cpu_ms_per_game for run in runs]
        mine = statistics.median(wall)
        ratio = f"; ratio {mine / bare:.2f}" if bare else ""
        print(f"{label}, {name}: referee {spread(wall, 1)} us per decision "
              f"({1e6 / mine:,.0f} decisions/s), referee CPU {spread(cpu_ms, 1)} ms per game, "
              f"log {spread([run.log_bytes_per_game for run in runs])} bytes per game{ratio}")
        results[name] = (mine, statistics.median(cpu_ms))
    return bare, results


def ratio_line(name: str, value: float | None, digits: int = 2) -> str:
    return f"ratio {name} " + ("n/a" if value is None else f"{value:.{digits}f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one-cpu-only", action="store_true",
                        help="only the one-CPU comparison and the log's CPU ratio "
                             "(quicker, to iterate on the log)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-log", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--busy-wait-us", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--bot", choices=sorted(BOTS), default="random", help=argparse.SUPPRESS)
    parser.add_argument("--paired", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--logs", type=Path, default=None,
                        help="the folder the logs go in (default: a new one in bench/)")
    args = parser.parse_args()
    global LOGS_HOME
    if args.worker:
        LOGS_HOME = args.logs
        work(args)
        return
    with contextlib.ExitStack() as stack:
        LOGS_HOME = args.logs or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix=".logs-", dir=ROOT / "bench")))
        print(f"logs in {LOGS_HOME} ({file_system(LOGS_HOME)})")
        measure(args)


def work(args: argparse.Namespace) -> None:
    """One worker process's figures, on its last line."""
    if args.paired:
        print("paired {:.4f} {:.4f}".format(*paired_log_cpu(args.games)))
        return
    polling = None if args.busy_wait_us is None else args.busy_wait_us / 1e6
    figures = referee_figures(args.games, not args.no_log, polling, args.bot)
    print(f"figures {figures.us_per_decision:.3f} {figures.cpu_ms_per_game:.3f} "
          f"{figures.log_bytes_per_game:.1f}")


def measure(args: argparse.Namespace) -> None:
    """Every comparison, each run in fresh worker processes; the ratio lines."""
    if not (Path(ANCHOR_PYTHON).exists() and ANCHOR.exists()):
        print(f"anchor skipped: needs {ANCHOR_PYTHON} with pyzmq and {ANCHOR}")
    logged, unlogged = Variant("log on"), Variant("no log", logged=False)
    cpus = sorted(os.sched_getaffinity(0))
    # Pinned, the referee never polls: its CPU is its work, so the log's CPU shows there.
    one_cpu, pinned = compare(f"one CPU (cpu {cpus[-1]})", args.games, args.repeats,
                              cpus[-1], [logged, unlogged])
    seats4, first = compare(f"one CPU (cpu {cpus[-1]}), like for like", args.games,
                            args.repeats, cpus[-1], [Variant("first-option bots, log on",
                                                             bot="first")], seats=PLAYERS)
    cpu_ratio = paired(args.games * 2, args.repeats, cpus[-1])
    if args.one_cpu_only:
        print(ratio_line("log_cpu_per_game", cpu_ratio, 3))
        return
    bare, default = compare("unpinned", args.games, args.repeats, None, [logged, unlogged])
    compare("unpinned, no polling", args.games, args.repeats, None,
            [Variant("log on", busy_wait_us=0)])
    (on_us, on_cpu), (off_us, off_cpu) = pinned["log on"], pinned["no log"]
    print(f"the log's overhead (one CPU medians, apart): {on_cpu - off_cpu:+.1f} ms referee "
          f"CPU per game ({on_cpu / off_cpu:.3f}x), {on_us - off_us:+.1f} us wall per decision")
    (on_us, _), (off_us, _) = default["log on"], default["no log"]
    print(f"the log's overhead (unpinned medians): {on_us - off_us:+.1f} us wall per decision")
    print(ratio_line("rage_decision_vs_zmq_roundtrip", bare and on_us / bare))
    print(ratio_line("rage_decision_nolog_vs_zmq_roundtrip", bare and off_us / bare))
    print(ratio_line("rage_decision_one_cpu_vs_zmq_roundtrip",
                     one_cpu and pinned["log on"][0] / one_cpu))
    print(ratio_line("rage_decision_first_bots_one_cpu_vs_4seat_roundtrip",
                     seats4 and first["first-option bots, log on"][0] / seats4))
    print(ratio_line("log_cpu_per_game", cpu_ratio, 3))


if __name__ == "__main__":
    main()
