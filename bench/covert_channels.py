#!/usr/bin/env python3
"""How many bits a second one sandboxed bot can send another through what the sandbox
does not isolate (issue 26: "no channel above 1 bit/s between two sandboxes").

    python bench/covert_channels.py [--seconds S] [--repeats R]

Two real sandboxes, made by the referee's own code (BotProcess.spawn with a View, as
referee/players/remote_player.py makes them: bubblewrap, a uid each, the seccomp filter,
a cgroup each with equal CPU shares and a cpuset), run bench/covert_agent.py: a sender
shapes time slots by random bits, a receiver measures each slot. Sessions:

  load        sender and receiver on different CPUs (as two tables under --jobs 2): the
              sender spins for a 1; the receiver reads /proc/stat (other CPUs' busy
              time, procs_running), /proc/loadavg and /proc/pressure/cpu
  threads     different CPUs: the sender starts 50 threads for a 1; the receiver reads
              the machine's thread count (/proc/loadavg), fork count (/proc/stat) and
              sysinfo()'s process count
  memory      different CPUs: the sender holds 200 MB, every page touched, for a 1; the
              receiver reads MemFree and MemAvailable (/proc/meminfo), sysinfo()'s
              freeram and /proc/pressure/memory
  contention  both on one CPU, as two bots at one table: the sender spins for a 1; the
              receiver counts its own loop iterations
  pages       different CPUs: the sender reads a page of a large file every sandbox sees
              (under /usr) for a 1; the receiver times one read of that page, then
              evicts it (POSIX_FADV_DONTNEED) so the page carries another bit later
  pages_once  the same without eviction: each page carries one bit, once
  flock       a lock on a file every sandbox sees (closed by the seccomp filter)
  inotify     a watch on a file every sandbox sees (closed by the seccomp filter)

The bits are random, as many ones as zeros. Decoding knows nothing of them: a slot reads
as 1 where its value is above the median of the 31 slots around it, and as a coin's
throw where it is that median (a bit rate is then 1/slot). The polarity that fits
better is taken (a real receiver would learn it from a preamble), so pure noise still
reads at an error rate a little under 0.5: the capacity's noise floor is about
0.72 bits over the session's length (printed as noise_floor), and --seconds lowers it.
Values that never change read as an error rate of 0.5 exactly. The capacity is that of a binary symmetric channel,
raw * (1 - H(error rate)). Each session runs R times (3), in turn, and each line gives
the median and the range. The machine is shared with whatever else runs: its load is
the receiver's noise, so an idle machine gives higher figures.

Prints `channel NAME bits_per_s C raw_bits_per_s R error_rate E range LO-HI` per
channel, then `ratio channel_NAME VALUE`: the median capacity over the issue's target of
1 bit/s (at most 1.0 meets it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.players.remote_player import bot_path, sandbox_env  # noqa: E402
from referee.processes.bot_command import parse_bot_command  # noqa: E402
from referee.processes.bot_process import BotProcess  # noqa: E402
from referee.processes.cgroups import CgroupRoot  # noqa: E402
from referee.processes.sandbox import View, sandbox_problem, sandbox_weakness  # noqa: E402
from referee.settings import ResourceLimits  # noqa: E402

AGENT = ROOT / "bench" / "covert_agent.py"
# Read by no one at rest, visible in every sandbox (/usr is bound read-only).
BIG_FILES = ("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
             "/usr/lib/jvm/java-17-openjdk-amd64/lib/modules")
SHARED_SMALL = os.path.join(os.path.dirname(os.__file__), "this.py")  # the tests' choice
START_MARGIN = 1.5  # seconds from the spawn to the first slot: both sandboxes are up
MEDIAN_WINDOW = 31
NOISE_FLOOR = 1 / (2 * math.log(2))  # bits: what noise alone reads as, over a session


@dataclass(frozen=True)
class Session:
    """A sender's behaviour and a receiver's probes, at one slot length."""

    name: str  # the agent's channel
    slot: float  # seconds
    seconds: float  # how long at the default --seconds 1
    same_cpu: bool = False
    arg: str = ""
    env: tuple[tuple[str, str], ...] = ()


def sessions(big_file: str) -> list[Session]:
    return [
        Session("load", 0.05, 6.0),
        Session("threads", 0.02, 3.0),
        Session("memory", 0.2, 6.0),
        Session("contention", 0.02, 3.0, same_cpu=True),
        Session("pages", 0.005, 1.0, arg=big_file),
        Session("pages", 0.005, 0.32, arg=big_file, env=(("COVERT_EVICT", "0"),)),
        Session("lock", 0.02, 1.5, arg=SHARED_SMALL),
        Session("watch", 0.02, 1.5, arg=SHARED_SMALL),
    ]


# The name printed for a probe of a session (pages without eviction: pages_once).
def channel_name(session: Session, probe: str) -> str:
    return "page_cache_once" if dict(session.env).get("COVERT_EVICT") == "0" else probe


def spawn(role: str, session: Session, start: float, bits: str, cpu: int,
          stderr: Path) -> BotProcess:
    """One agent in a sandbox of its own, its cgroup's cpuset pinned to `cpu` (the spawn
    pins a bot's cpuset to the CPUs the referee may use then, as in a --jobs worker)."""
    text = f"stdio:python {AGENT} {role} {session.name} {start!r} {session.slot!r} {bits}"
    if session.arg:
        text += f" {session.arg}"
    command = parse_bot_command(text, AGENT.parent)
    env = {**sandbox_env(), "PATH": bot_path(), **dict(session.env)}
    view = View(cwd=AGENT.parent, bot_folder=AGENT.parent)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        return BotProcess.spawn(command, env, ResourceLimits(), stderr, view)
    finally:
        os.sched_setaffinity(0, before)


def run_once(session: Session, seconds: float, rng: random.Random, workdir: Path
             ) -> tuple[str, dict[str, list[float]]]:
    """The bits sent and what the receiver measured, per probe."""
    count = max(MEDIAN_WINDOW + 1, round(session.seconds * seconds / session.slot)) // 2 * 2
    # As many ones as zeros: a receiver that sees nothing is then wrong half the time.
    shuffled = ["0", "1"] * (count // 2)
    rng.shuffle(shuffled)
    bits = "".join(shuffled)
    if session.name == "pages":
        evict(session.arg)
    start = time.time() + START_MARGIN
    cpus = sorted(os.sched_getaffinity(0))
    send_cpu = cpus[0]
    receive_cpu = send_cpu if session.same_cpu else cpus[-1]
    sender = spawn("send", session, start, bits, send_cpu, workdir / "send.err")
    try:
        receiver = spawn("receive", session, start, "x" * count, receive_cpu,
                         workdir / "receive.err")
        try:
            said = finish(receiver, start + count * session.slot + 30)
        finally:
            receiver.kill()
        finish(sender, start + count * session.slot + 30)
    finally:
        sender.kill()
    if "values" not in said:
        raise RuntimeError(f"{session.name}: the receiver said {said}; "
                           f"stderr: {(workdir / 'receive.err').read_text()[-500:]}")
    values = said["values"]
    assert isinstance(values, dict)
    return bits, values


def finish(process: BotProcess, deadline: float) -> dict[str, object]:
    """The agent's one JSON line, once it has exited (or its deadline has passed)."""
    process.wait(max(0.0, deadline - time.time()))
    out = process.stdout.read() if process.stdout is not None and process.exited() else b""
    try:
        found = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": out[-200:].decode("utf-8", "replace")}
    return found if isinstance(found, dict) else {"error": found}


def evict(path: str) -> None:
    """Start each pages session with the probed pages out of the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def decode(values: Sequence[float]) -> list[int]:
    """1 where a slot's value is above the median of the slots around it; a coin where
    it is the median (a value that never changes says nothing)."""
    half = MEDIAN_WINDOW // 2
    coin = random.Random(len(values))
    decoded = []
    for index, value in enumerate(values):
        low = max(0, min(index - half, len(values) - MEDIAN_WINDOW))
        median = statistics.median(values[low:low + MEDIAN_WINDOW])
        decoded.append(1 if value > median else 0 if value < median else coin.randint(0, 1))
    return decoded


def error_rate(bits: str, values: Sequence[float]) -> float:
    """Of the better polarity (see the module's docstring); 0.5 where the values never
    change (a channel the sandbox closes: a lock never held, no watch at all)."""
    if min(values) == max(values):
        return 0.5
    decoded = decode(values)
    wrong = sum(1 for bit, got in zip(bits, decoded) if int(bit) != got) / len(bits)
    return min(wrong, 1.0 - wrong)


def capacity(raw: float, error: float) -> float:
    """Bits per second through a binary symmetric channel with this error rate."""
    if error <= 0.0:
        return raw
    entropy = -error * math.log2(error) - (1 - error) * math.log2(1 - error)
    return raw * (1.0 - entropy)


def span(values: list[float], digits: int) -> str:
    return f"{min(values):.{digits}f}-{max(values):.{digits}f}"


Results = dict[str, list[tuple[float, float, float, float]]]
# channel -> per run: (capacity, raw rate, error rate, noise floor), in bits/s


def measure(chosen: Sequence[Session], seconds: float, repeats: int, seed: int) -> Results:
    """Each session `repeats` times, in turn, so that all see the same spells of noise."""
    rng = random.Random(seed)
    results: Results = {}
    with tempfile.TemporaryDirectory(prefix="covert-") as work:
        for _ in range(repeats):
            for session in chosen:
                bits, values = run_once(session, seconds, rng, Path(work))
                for probe, measured in values.items():
                    error = error_rate(bits, measured[:len(bits)])
                    raw = 1.0 / session.slot
                    floor = NOISE_FLOOR / (len(bits) * session.slot)
                    results.setdefault(channel_name(session, probe), []).append(
                        (capacity(raw, error), raw, error, floor))
    return results


def report(results: Results) -> None:
    for name, runs in results.items():
        caps, raws, errors, floors = ([run[i] for run in runs] for i in range(4))
        print(f"channel {name} bits_per_s {statistics.median(caps):.2f} "
              f"raw_bits_per_s {statistics.median(raws):.0f} "
              f"error_rate {statistics.median(errors):.3f} range {span(caps, 2)} "
              f"errors {span(errors, 3)} noise_floor {max(floors):.2f} n={len(runs)}")
    for name, runs in results.items():
        print(f"ratio channel_{name} {statistics.median(run[0] for run in runs):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="multiply every session's length (default 1: ~2 minutes)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--only", nargs="+", metavar="SESSION",
                        help="run only these sessions (load threads memory contention "
                             "pages lock watch)")
    args = parser.parse_args()
    problem = sandbox_problem() or sandbox_weakness()
    if problem is not None:
        sys.exit(f"bench/covert_channels.py: no whole sandbox here: {problem}")
    if CgroupRoot.find() is None or len(os.sched_getaffinity(0)) < 2:
        sys.exit("bench/covert_channels.py: needs cgroups (root) and two CPUs")
    big = next((path for path in BIG_FILES
                if os.path.exists(path) and os.path.getsize(path) > 80 << 20), None)
    if big is None:
        sys.exit(f"bench/covert_channels.py: none of {', '.join(BIG_FILES)} is here")
    chosen = [s for s in sessions(big) if args.only is None or s.name in args.only]
    with open("/proc/loadavg") as handle:
        print(f"machine load before: {handle.read().split()[0]} "
              f"on {os.cpu_count()} CPUs (the receivers' noise)")
    report(measure(chosen, args.seconds, args.repeats, args.seed))

if __name__ == "__main__":
    main()
