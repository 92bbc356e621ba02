"""A Rage bot that does no more than the anchor's echo bot: for each frame it finds the
request and replies with its first legal option (requests list them: protocols/rage.md).

bench/rage_referee.py seats four of these beside the sample bots, so that the referee's
cost per decision can be set beside the bare round trip with bots that, like the
anchor's, cost almost nothing: the sample bots' own work (the SDK's state, a generator
reseeded from each hand) is theirs, not the referee's. Plain pyzmq, as the anchor's bot.
"""

import os
import sys

import zmq


def main() -> int:
    socket = zmq.Context().socket(zmq.DEALER)
    socket.connect(os.environ["REFEREE_ENDPOINT"])
    socket.send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} first 1".encode())
    while True:
        frame = socket.recv()
        for line in frame.split(b"\n"):
            word = line.split(b" ", 2)
            if word[0].endswith(b"?"):
                socket.send(word[1])
            elif word[0] == b"BYE":
                return 0


if __name__ == "__main__":
    sys.exit(main())
