#!/usr/bin/env python3
"""Where one decision's time goes: the legs of a referee <-> bot round trip, beside the
same legs of the bare round trip in ../shared/anchors/zmq_floor.py.

    python bench/decision_legs.py [GAMES]

The referee runs with its default polling: with more than one CPU it polls briefly
before it sleeps (referee/transport/busy_wait.py), which shortens the way back. The
bots run without a sandbox: they write their stamps into a folder of ours, which a
sandbox hides (bench/sandbox.py measures what the sandbox costs per decision).

Both sides stamp time.perf_counter() (one clock for every process on the machine):
the referee around each send of a frame and when it has each line back; the deciding
bot (the sample random bot, its SDK connection wrapped) when it has each frame and as
it starts each send. Samples are matched by order, never by time: on one connection the
n-th frame the referee sends is the n-th the bot receives, and the n-th line the bot
sends is the n-th the referee receives (ZeroMQ keeps order; the SDK takes one frame per
receive). Every request gets a sample. Printed per leg, median, mean and the 10th-90th
percentile range in microseconds:

  send call   the referee's send (it wakes ZeroMQ's I/O thread)
  out         send returned -> the bot has the frame; negative when the bot has it
              before the send call has returned
  bot         the bot's own work: lines handled, reply chosen
  back        the bot starts its send -> the referee has the reply line
  referee     the referee's own work: reply -> its next request sent

and the round trip (request sent -> reply in, the first four legs). Ends with
`ratio decision_roundtrip_vs_zmq_roundtrip VALUE`: the medians of the round trip,
ours over the anchor's (lower is better).
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
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocols.wire import is_request  # noqa: E402
from referee.games.rage.rules import RageConfig  # noqa: E402
from referee.games.rage.match import RageMatch  # noqa: E402
from referee.players.lineup import LaunchSettings, Lineup, bot_specs  # noqa: E402
from referee.processes.sandbox import SandboxMode, SandboxSettings  # noqa: E402
from referee.transport.zmq_channel import ZmqChannel  # noqa: E402

ANCHOR_PYTHON = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
LEGS = ("send call", "out", "bot", "back", "referee", "round trip")

# The random bot, its connection wrapped to stamp every frame received and every send,
# and which send (if any) answered which frame. File: endpoint, send stamps, then one
# "received reply-index" line per frame (-1: no reply).
STAMPED_BOT = """
import atexit, os, runpy, sys, time
sys.path.insert(0, {root!r})
from bots.zmtp_dealer import DealerConnection as Connection
sent, frames = [], []
recv_lines, send = Connection.recv_lines, Connection.send
def stamped_recv(self):
    lines = recv_lines(self); frames.append([time.perf_counter(), -1]); return lines
def stamped_send(self, line):
    sent.append(time.perf_counter())
    if frames and frames[-1][1] < 0: frames[-1][1] = len(sent) - 1
    send(self, line)
Connection.recv_lines, Connection.send = stamped_recv, stamped_send
def save():
    with open(os.path.join({out!r}, f"bot-{{os.getpid()}}"), "w") as f:
        f.write(os.environ["REFEREE_ENDPOINT"] + "\\n" + " ".join(map(str, sent)) + "\\n")
        f.writelines(f"{{got}} {{reply}}\\n" for got, reply in frames)
atexit.register(save)
runpy.run_path({bot!r}, run_name="__main__")
"""

# The anchor's bare loop with the same stamps: one bot, every frame a request.
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


@dataclass(frozen=True)
class Sample:
    """One request's stamps: send started and returned, bot got it and started its
    reply, referee got the reply."""

    start: float
    sent: float
    got: float
    replied: float
    back: float


@dataclass
class BotStamps:
    """One bot's record: its send stamps, and per frame (received, reply index or -1)."""

    sent: list[float]
    frames: list[tuple[float, int]]


def read_bot(path: str) -> tuple[str, BotStamps]:
    with open(path) as file:
        endpoint = file.readline().strip()
        sent = [float(word) for word in file.readline().split()]
        frames = [(float(got), int(reply)) for got, reply in map(str.split, file)]
    return endpoint, BotStamps(sent, frames)


def match_channel(sends: Sequence[tuple[float, float, bool]], recvs: Sequence[float],
                  bot: BotStamps) -> list[Sample]:
    """A channel's requests with the bot's stamps, paired by order (see the docstring)."""
    samples = []
    for (start, sent, asks), (got, reply) in zip(sends, bot.frames):
        if asks and 0 <= reply < min(len(bot.sent), len(recvs)):
            samples.append(Sample(start, sent, got, bot.sent[reply], recvs[reply]))
    return samples


def legs_of(samples: Sequence[Sample], request_starts: Sequence[float]) -> dict[str, list[float]]:
    """The legs of every sample; `request_starts` (sorted): when the referee started
    sending each request, to find the one after a reply."""
    legs: dict[str, list[float]] = {leg: [] for leg in LEGS}
    for s in samples:
        legs["send call"].append(s.sent - s.start)
        legs["out"].append(s.got - s.sent)
        legs["bot"].append(s.replied - s.got)
        legs["back"].append(s.back - s.replied)
        legs["round trip"].append(s.back - s.start)
        following = bisect.bisect_right(request_starts, s.back)
        if following < len(request_starts):
            legs["referee"].append(request_starts[following] - s.back)
    return legs


class Recorder:
    """Stamps the referee's sends and received lines, per channel endpoint."""

    def __init__(self) -> None:
        self.sends: dict[str, list[tuple[float, float, bool]]] = defaultdict(list)
        self.recvs: dict[str, list[float]] = defaultdict(list)
        self.request_starts: list[float] = []

    def install(self) -> None:
        send_lines, recv = ZmqChannel.send_lines, ZmqChannel.recv
        recorder = self

        def stamped_send(self: ZmqChannel, lines: Sequence[str],
                         deadline: float | None = None) -> None:
            start = time.perf_counter()
            send_lines(self, lines, deadline)
            asks = bool(lines) and is_request(lines[-1])
            recorder.sends[self.endpoint].append((start, time.perf_counter(), asks))
            if asks:
                recorder.request_starts.append(start)

        def stamped_recv(channel: ZmqChannel, deadline: float) -> str:
            line = recv(channel, deadline)  # a line only: a timeout took nothing
            recorder.recvs[channel.endpoint].append(time.perf_counter())
            return line

        ZmqChannel.send_lines = stamped_send  # type: ignore[method-assign]
        ZmqChannel.recv = stamped_recv  # type: ignore[method-assign, assignment]


def referee_legs(games: int) -> dict[str, list[float]]:
    recorder = Recorder()
    recorder.install()
    with tempfile.TemporaryDirectory() as out:
        wrapper = Path(out) / "stamped_bot.py"
        wrapper.write_text(STAMPED_BOT.format(root=str(ROOT), out=out,
                                              bot=str(ROOT / "bots" / "rage_random.py")))
        launch = LaunchSettings(sandbox=SandboxSettings(SandboxMode.OFF))
        with Lineup(launch) as lineup:
            players = lineup.launch_all(bot_specs([f"python {wrapper}"] * 4))
            for seed in range(games):
                RageMatch(players, RageConfig(4), seed, launch.times).run()
        # The lineup has waited for its bots' exits, so their atexit files are written.
        bots = dict(read_bot(path) for path in glob.glob(f"{out}/bot-*"))
    samples = [sample for endpoint, bot in bots.items()
               for sample in match_channel(recorder.sends[endpoint],
                                           recorder.recvs[endpoint], bot)]
    requests = sum(asks for sends in recorder.sends.values() for *_, asks in sends)
    print(f"referee: {len(samples)} samples of {requests} requests, from {len(bots)} bots; "
          f"{misordered(samples)} out of order")
    return legs_of(samples, recorder.request_starts)


def misordered(samples: Sequence[Sample]) -> int:
    """Samples whose stamps contradict causality: a pairing bug, were there any."""
    return sum(not (s.start <= s.got <= s.replied <= s.back) or s.start > s.sent
               for s in samples)


def anchor_legs() -> dict[str, list[float]] | None:
    if not Path(ANCHOR_PYTHON).exists():
        return None
    out = subprocess.run([ANCHOR_PYTHON, "-c", ANCHOR], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    stamps = [tuple(map(float, line.split())) for line in out if not line.startswith("BOT")]
    words = next(line for line in out if line.startswith("BOT")).split()[1:]
    bot = [(float(a), float(b)) for a, b in zip(words[::2], words[1::2])]
    samples = [Sample(s[0], s[1], got, replied, s[2])
               for s, (got, replied) in zip(stamps, bot)]
    print(f"anchor: {len(samples)} samples of {len(stamps)} requests; "
          f"{misordered(samples)} out of order")
    return legs_of(samples, [s[0] for s in stamps])


def show(label: str, legs: dict[str, list[float]]) -> None:
    total = sum(statistics.median(v) for leg, v in legs.items() if v and leg != "round trip")
    print(f"{label} (sum of the legs' medians {total * 1e6:.0f} us)")
    for leg, values in legs.items():
        deciles = statistics.quantiles(values, n=10)
        print(f"  {leg:10s} median {statistics.median(values) * 1e6:6.1f} "
              f"mean {statistics.mean(values) * 1e6:6.1f} us  "
              f"(10-90%: {deciles[0] * 1e6:.1f} to {deciles[-1] * 1e6:.1f}; n {len(values)})")


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    ours = referee_legs(games)
    show("referee, 4 random bots", ours)
    anchor = anchor_legs()
    if anchor is None:
        print(f"anchor skipped: needs {ANCHOR_PYTHON} with pyzmq")
        print("ratio decision_roundtrip_vs_zmq_roundtrip n/a")
        return
    show("anchor (zmq_floor's ipc loop)", anchor)
    ratio = (statistics.median(ours["round trip"])
             / statistics.median(anchor["round trip"]))
    print(f"ratio decision_roundtrip_vs_zmq_roundtrip {ratio:.2f}")


if __name__ == "__main__":
    main()
