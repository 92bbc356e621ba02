#!/usr/bin/env python3
"""Where one decision's time goes: the legs of a referee <-> bot round trip, beside the
same legs of the bare round trip in ../shared/anchors/zmq_floor.py.

    python bench/decision_legs.py [GAMES]

The referee runs with its default settings: with more than one CPU it polls briefly
before it sleeps (referee/transport/busy_wait.py), which shortens the way back.

Both sides stamp time.perf_counter() (one clock for every process on the machine):
the referee around its send and when it has the reply line, the deciding bot (the
sample random bot, its SDK connection wrapped) when it has the frame and before it
replies. Printed per leg, median and mean in microseconds:

  send call   the referee's send (it wakes ZeroMQ's I/O thread)
  out         send returned -> the bot has the frame
  bot         the bot's own work: lines handled, reply chosen
  back        the bot starts its send -> the referee has the reply line
  referee     the referee's own work: reply -> next request sent
"""

from __future__ import annotations

import bisect
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.transport import zmq_channel as transport  # noqa: E402
from referee.games.rage import RageConfig  # noqa: E402
from referee.players.lineup import LaunchSettings, Lineup, bot_specs  # noqa: E402
from referee.matches.rage_match import RageMatch  # noqa: E402

ANCHOR_PYTHON = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
LEGS = ("send call", "out", "bot", "back", "referee")

# The random bot, its connection wrapped to stamp (frame received, reply starts) pairs.
STAMPED_BOT = """
import atexit, os, runpy, sys, time
sys.path.insert(0, {root!r})
from bots import sdk
stamps, got = [], []
recv_lines, send = sdk.ZmqConnection.recv_lines, sdk.ZmqConnection.send
def stamped_recv(self):
    lines = recv_lines(self); got.append(time.perf_counter()); return lines
def stamped_send(self, line):
    if got: stamps.append((got.pop(), time.perf_counter()))
    send(self, line)
sdk.ZmqConnection.recv_lines, sdk.ZmqConnection.send = stamped_recv, stamped_send
def save():
    with open(os.path.join({out!r}, f"bot-{{os.getpid()}}"), "w") as f:
        f.writelines(f"{{a}} {{b}}\\n" for a, b in stamps)
atexit.register(save)
runpy.run_path({bot!r}, run_name="__main__")
"""

# The anchor's bare loop with the same stamps.
ANCHOR = """
import subprocess, sys, tempfile, time, zmq
BOT = '''
import sys, time, zmq
s = zmq.Context().socket(zmq.DEALER); s.connect(sys.argv[1]); s.send(b"HELLO")
stamps = []
while s.recv() != b"QUIT":
    t = time.perf_counter(); stamps.append((t, time.perf_counter())); s.send(b"r7")
open(sys.argv[2], "w").write(" ".join(f"{a} {b}" for a, b in stamps))
'''
d = tempfile.mkdtemp(); ep = f"ipc://{d}/s"
r = zmq.Context().socket(zmq.ROUTER); r.bind(ep)
p = subprocess.Popen([sys.executable, "-c", BOT, ep, f"{d}/bot"])
ident = r.recv_multipart()[0]
stamps = []
for _ in range(8000):
    t0 = time.perf_counter(); r.send_multipart([ident, b"PLAY? r3 r9 b0 J"]); t1 = time.perf_counter()
    r.recv_multipart(); stamps.append((t0, t1, time.perf_counter()))
r.send_multipart([ident, b"QUIT"]); p.wait()
for a, b, c in stamps:
    print(a, b, c)
print("BOT", open(f"{d}/bot").read())
"""


def legs_of(sends: list[tuple[float, float]], replies: list[float],
            bot: list[tuple[float, float]]) -> dict[str, list[float]]:
    """Match each send to the bot's next frame and the referee's next reply line."""
    legs: dict[str, list[float]] = {leg: [] for leg in LEGS}
    got = [b[0] for b in bot]
    for i, (start, sent) in enumerate(sends):
        j = bisect.bisect_left(got, sent)
        k = bisect.bisect_left(replies, bot[j][1]) if j < len(bot) else len(replies)
        if k == len(replies) or (i + 1 < len(sends) and replies[k] > sends[i + 1][0]):
            continue  # no reply to this send (a GAME line, an END...)
        legs["send call"].append(sent - start)
        legs["out"].append(bot[j][0] - sent)
        legs["bot"].append(bot[j][1] - bot[j][0])
        legs["back"].append(replies[k] - bot[j][1])
        if i + 1 < len(sends):
            legs["referee"].append(sends[i + 1][0] - replies[k])
    return legs


def referee_legs(games: int) -> dict[str, list[float]]:
    sends: list[tuple[float, float]] = []
    replies: list[float] = []
    hub_send, channel_recv = transport.ZmqHub.send, transport.ZmqChannel.recv

    def stamped_send(hub: transport.ZmqHub, rid: bytes, frame: bytes) -> None:
        start = time.perf_counter()
        hub_send(hub, rid, frame)
        sends.append((start, time.perf_counter()))

    def stamped_recv(channel: transport.ZmqChannel, deadline: float) -> str:
        line = channel_recv(channel, deadline)
        replies.append(time.perf_counter())
        return line

    transport.ZmqHub.send = stamped_send  # type: ignore[method-assign]
    transport.ZmqChannel.recv = stamped_recv  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as out:
        wrapper = Path(out) / "stamped_bot.py"
        wrapper.write_text(STAMPED_BOT.format(root=str(ROOT), out=out,
                                              bot=str(ROOT / "bots" / "rage_random.py")))
        launch = LaunchSettings()
        with Lineup(launch) as lineup:
            players = lineup.launch_all(bot_specs([f"python {wrapper}"] * 4))
            sends.clear()
            replies.clear()
            for seed in range(games):
                RageMatch(players, RageConfig(4), seed, launch.times).run()
        time.sleep(0.3)  # the bots save their stamps as they exit
        bot = sorted(tuple(map(float, line.split()))  # type: ignore[misc]
                     for path in glob.glob(f"{out}/bot-*") for line in open(path))
    return legs_of(sends, replies, bot)


def anchor_legs() -> dict[str, list[float]] | None:
    if not Path(ANCHOR_PYTHON).exists():
        return None
    out = subprocess.run([ANCHOR_PYTHON, "-c", ANCHOR], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    stamps = [tuple(map(float, line.split())) for line in out if not line.startswith("BOT")]
    words = next(line for line in out if line.startswith("BOT")).split()[1:]
    bot = [(float(a), float(b)) for a, b in zip(words[::2], words[1::2])]
    return legs_of([(s[0], s[1]) for s in stamps], [s[2] for s in stamps], bot)


def show(label: str, legs: dict[str, list[float]]) -> None:
    total = sum(statistics.median(v) for v in legs.values() if v)
    print(f"{label} (sum of medians {total * 1e6:.0f} us)")
    for leg, values in legs.items():
        print(f"  {leg:10s} median {statistics.median(values) * 1e6:6.1f} "
              f"mean {statistics.mean(values) * 1e6:6.1f} us  (n {len(values)})")


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    show("referee, 4 random bots", referee_legs(games))
    anchor = anchor_legs()
    if anchor is None:
        print(f"anchor skipped: needs {ANCHOR_PYTHON} with pyzmq")
    else:
        show("anchor (zmq_floor's ipc loop)", anchor)


if __name__ == "__main__":
    main()
