#!/usr/bin/env python3
"""What a remote contestant who floods costs the referee in memory: a 3-player Rage game
(`referee play`, seed 7) with two remote seats and a local bot, once with both remote
contestants on `referee connect` and a random bot, once with alice a raw pyzmq peer that
floods from its HELLO on, connecting again each time it is cut off, until the game ends
(tests/remote/bots/flood_peer.py: LOG lines, or relay notes).

    python bench/remote_flood_memory.py [REPEATS]

libzmq queues what the referee's drain thread has not read yet, without bound (RCVHWM
0: referee/transport/remote_hall.py says why); a seat that sends 10,000 messages its game
would not read is cut off. Prints the referee's peak resident memory (VmHWM, looked at
every 0.05 s) for each game, medians and ranges over REPEATS (default 3), and `ratio
remote_flood_peak_memory_vs_quiet VALUE` for the worse of the two floods.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.transport.curve_keys import write_key_pair  # noqa: E402

RANDOM = f"python {ROOT / 'bots' / 'rage_random.py'}"
FLOOD_PEER = ROOT / "tests" / "remote" / "bots" / "flood_peer.py"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
PERSISTENT = 1000  # cuts the flooding peer takes before it gives up: it connects again


def peak_megabytes(pid: int, process: subprocess.Popen[bytes]) -> float:
    """The peak resident memory of `pid` until it ends."""
    status, peak = Path(f"/proc/{pid}/status"), 0
    while process.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            break
        time.sleep(0.05)
    return peak / 1024


def one_game(alice: str) -> float:
    """The referee's peak memory in MB over one game; `alice`: "quiet", or the flood's
    message ("LOG flood", "note")."""
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        for name in ("referee", "alice", "bob"):
            write_key_pair(name, here)
        port = free_port()
        game = subprocess.Popen(
            [sys.executable, "-m", "referee", "play", "rage", "remote:alice=alice.pub",
             "remote:bob=bob.pub", RANDOM, "--listen", f"tcp://127.0.0.1:{port}",
             "--sandbox", "off", "--seed", "7", "--move-time", "2"],
            cwd=here, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        relay = ["-m", "referee", "connect", f"tcp://127.0.0.1:{port}", "--server-key",
                 "referee.pub"]
        others = [subprocess.Popen([sys.executable, *relay, "--key", "bob.key", "--", RANDOM],
                                   cwd=here, env=ENV, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)]
        alice_args = ([*relay, "--key", "alice.key", "--", RANDOM] if alice == "quiet" else
                      [str(FLOOD_PEER), str(port), "alice.key", "referee.pub", alice,
                       str(PERSISTENT)])
        others.append(subprocess.Popen([sys.executable, *alice_args], cwd=here, env=ENV,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        try:
            peak = peak_megabytes(game.pid, game)
            if game.wait(60) != 0:
                sys.exit(f"remote_flood_memory: the game ({alice}) ended with {game.returncode}")
        finally:
            for process in (game, *others):
                process.kill()
                process.wait()
    return peak


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main(repeats: int) -> None:
    kinds = ("quiet", "LOG flood", "note")
    peaks: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(repeats):
        for kind in kinds:
            peaks[kind].append(one_game(kind))
    for kind in kinds:
        runs = peaks[kind]
        print(f"alice {kind}: the referee's peak memory {statistics.median(runs):.0f} MB "
              f"[{min(runs):.0f}-{max(runs):.0f}], {repeats} games")
    worst = max(statistics.median(peaks["LOG flood"]), statistics.median(peaks["note"]))
    print(f"ratio remote_flood_peak_memory_vs_quiet "
          f"{worst / statistics.median(peaks['quiet']):.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
