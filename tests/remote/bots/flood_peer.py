"""A hostile remote contestant without `referee connect`: a raw pyzmq DEALER with the
seat's own key. Seated, it says HELLO, then floods the referee with MESSAGE, reading
nothing but the referee's END, and hangs up when it comes, when the referee has cut its
connection off CUTS times (its DEALER connects again by itself in between, and floods
on), or after LIMIT_S.
argv: PORT SECRET_KEY_FILE SERVER_PUBLIC_KEY_FILE MESSAGE [CUTS]; MESSAGE `note` floods
relay notes (JOIN) rather than lines; CUTS is 1 unless given."""

import sys
import time
from pathlib import Path

import zmq

from referee.transport.curve_keys import read_public_key, read_secret_key

LIMIT_S = 20.0
BURST = 100  # messages sent between two looks for END


def main(port: str, key: str, server: str, message: str, most_cuts: str = "1") -> None:
    keys = read_secret_key(Path(key))
    context = zmq.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.curve_secretkey, dealer.curve_publickey = keys.secret, keys.public
    dealer.curve_serverkey = read_public_key(Path(server))
    dealer.sndhwm, dealer.linger = 100_000, 0  # what is queued at the end is dropped
    cuts = dealer.get_monitor_socket(zmq.EVENT_DISCONNECTED)
    dealer.connect(f"tcp://127.0.0.1:{port}")
    dealer.send_multipart([b"RELAY", b"JOIN flood"])
    flood = [b"RELAY", b"JOIN flood"] if message == "note" else [message.encode()]
    seated, sent, end, cut = False, 0, time.monotonic() + LIMIT_S, 0
    while time.monotonic() < end:
        while cuts.poll(0):
            cuts.recv_multipart()
            cut += 1
            if cut >= int(most_cuts):
                print(f"flooded {sent} messages; cut off {cut} time(s)", file=sys.stderr)
                return
        while dealer.poll(0):
            heard = dealer.recv_multipart()
            if heard == [b"RELAY", b"START"] and not seated:
                seated = True
                dealer.send(b"HELLO 2 curve flood 1.0")
            elif heard == [b"RELAY", b"END"]:
                print(f"flooded {sent} messages; cut off {cut} time(s); the referee is "
                      "done", file=sys.stderr)
                return
        for _ in range(BURST if seated else 0):
            try:
                dealer.send_multipart(flood, zmq.NOBLOCK)
                sent += 1
            except zmq.Again:
                time.sleep(0.001)
                break
    print(f"flooded {sent} messages; cut off {cut} time(s); no END", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:6])
