"""A remote seat's round trip against a local bot's, over loopback: what the network path
(the referee's CurveZMQ hall, `referee connect`, and the relay to the bot) adds to every
request, as the referee's clock counts it.

    python bench/remote_round_trip.py [REPEATS] [ASKS]

The same echo bot (a pyzmq DEALER answering each request) is seated twice through one
Lineup: as a local ZeroMQ bot (ipc, no sandbox), and as `remote:alice=...` played by a
`referee connect` process on 127.0.0.1. Each repeat times ASKS requests
(RemotePlayer.ask, the match's own call) to each, after a warm-up. Prints each side's
median and range over the repeats, in microseconds per request, then
`ratio remote_vs_local VALUE` (the medians' ratio). A real network adds its own round
trip on top: the move time counts all of it (protocols/remote.md).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.players.lineup import BotSpec, LaunchSettings, Lineup  # noqa: E402
from referee.players.player import Player  # noqa: E402
from referee.players.remote_seats import (  # noqa: E402
    RemoteSettings, close_halls, hall_for, parse_remote_seat, remote_command,
)
from referee.processes.bot_command import split_bot_command  # noqa: E402
from referee.processes.sandbox import SandboxMode, SandboxSettings  # noqa: E402
from referee.settings import TimeLimits  # noqa: E402
from referee.transport.curve_keys import write_key_pair  # noqa: E402
from referee.transport.endpoints import parse_tcp_address  # noqa: E402

ECHO_BOT = r'''
import os, zmq
s = zmq.Context().socket(zmq.DEALER)
s.connect(os.environ["REFEREE_ENDPOINT"])
s.send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} echo 1.0".encode())
while True:
    lines = s.recv().decode().split("\n")
    if "BYE" in lines:
        break
    if lines[-1].split(" ", 1)[0].endswith("?"):
        s.send(b"r7")
'''
WARM_UP = 200


def timed(player: Player, asks: int) -> float:
    """Microseconds per request over `asks` requests."""
    start = time.perf_counter()
    for _ in range(asks):
        player.ask("PLAY? r3 r9 b0 J")
    return (time.perf_counter() - start) / asks * 1e6


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    asks = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    folder = Path(tempfile.mkdtemp(prefix="remote-bench-"))
    write_key_pair("referee", folder)
    write_key_pair("alice", folder)
    bot_file = folder / "echo.py"
    bot_file.write_text(ECHO_BOT)
    bot = f"python {bot_file}"
    times = TimeLimits(move=5.0)
    address = parse_tcp_address("tcp://127.0.0.1:0", listening=True)
    seat = parse_remote_seat(f"remote:alice={folder / 'alice.pub'}")
    remote = RemoteSettings.make(address, folder / "referee.key", [seat], times)
    settings = LaunchSettings(times, sandbox=SandboxSettings(SandboxMode.OFF), remote=remote)
    with Lineup(settings) as lineup:
        local_player = lineup.launch(BotSpec(split_bot_command(bot), "local"))
        endpoint = hall_for(remote).endpoint
        relay = subprocess.Popen(
            [sys.executable, "-m", "referee", "connect", endpoint, "--key",
             str(folder / "alice.key"), "--server-key", str(folder / "referee.pub"), "--",
             bot], cwd=ROOT, stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            remote_player = lineup.launch(BotSpec(remote_command(seat.key_file.as_posix()),
                                                  "alice", seat))
            for player in (local_player, remote_player):
                timed(player, WARM_UP)
            local, far = [], []
            for _ in range(repeats):  # interleaved: machine noise hits both alike
                local.append(timed(local_player, asks))
                far.append(timed(remote_player, asks))
        finally:
            lineup.close()
            close_halls()
            relay.wait(10)
    for name, figures in (("local", local), ("remote", far)):
        print(f"{name} round trip: median {statistics.median(figures):.1f} us "
              f"(range {min(figures):.1f}-{max(figures):.1f} us, {repeats} repeats of "
              f"{asks} requests)")
    print(f"ratio remote_vs_local {statistics.median(far) / statistics.median(local):.2f}")


if __name__ == "__main__":
    main()
