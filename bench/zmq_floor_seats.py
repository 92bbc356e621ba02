"""The anchor's bare ZeroMQ round trip (../shared/anchors/zmq_floor.py), served to N echo
bots in turn instead of one: what a table of N bots costs at the floor.

    python bench/zmq_floor_seats.py SEATS ROUND_TRIPS

The same echo bot and the same ROUTER loop as the anchor, sending one short line and
waiting for the reply, but each request goes to the next of SEATS bot processes, as a
game's requests go round its table. On one CPU that is the like-for-like floor of a
4-player game: each process wakes once per SEATS requests, after the others have run,
so its code and data are no longer in the caches as the one-bot anchor's always are.
Prints `zmq ipc round trip, N seats: X us` (median of 5 batches), as the anchor prints.
It runs under the anchor's interpreter (bench/rage_referee.py passes $ANCHOR_PYTHON):
it imports nothing of ours.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

import zmq

BOT = r'''
import sys, zmq
ctx = zmq.Context(); s = ctx.socket(zmq.DEALER); s.connect(sys.argv[1])
s.send(b"HELLO")
while True:
    m = s.recv()
    if m == b"QUIT": break
    s.send(b"r7")
'''


def round_trip(endpoint: str, seats: int, trips: int) -> float:
    """Microseconds per round trip over `seats` bots in turn (median of 5 batches)."""
    router = zmq.Context.instance().socket(zmq.ROUTER)
    router.bind(endpoint)
    bots = [subprocess.Popen([sys.executable, "-c", BOT, endpoint]) for _ in range(seats)]
    idents = [router.recv_multipart()[0] for _ in bots]
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for trip in range(trips // 5):
            router.send_multipart([idents[trip % seats], b"PLAY? r3 r9 b0 J"])
            router.recv_multipart()
        batches.append((time.perf_counter() - start) / (trips // 5) * 1e6)
    for ident in idents:
        router.send_multipart([ident, b"QUIT"])
    for bot in bots:
        bot.wait()
    router.close()
    return statistics.median(batches)


def main() -> None:
    seats = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    trips = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    folder = tempfile.mkdtemp()
    micros = round_trip("ipc://" + os.path.join(folder, "s"), seats, trips)
    print(f"zmq ipc round trip, {seats} seats: {micros:.1f} us")


if __name__ == "__main__":
    main()
