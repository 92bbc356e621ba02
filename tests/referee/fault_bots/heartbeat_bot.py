#!/usr/bin/env python3
"""A bot whose ZeroMQ library sends heartbeats: `heartbeat_bot.py [BOOT THINK]`.

libzmq's DEALER with ZMQ_HEARTBEAT_IVL 20 ms and ZMQ_HEARTBEAT_TIMEOUT 250 ms: it drops
its connection when a PING goes unanswered that long, and, its endpoint being gone after
the HELLO, cannot come back (the referee then times it out). It sleeps BOOT seconds
before it connects, and THINK seconds before its first reply; it answers `X? opt1 ...`
with `opt1`, and ends at BYE. Told what to do by its arguments, as a sandbox passes no
environment on. Started as `stdio:...` it speaks stdio instead (a slow seat of another
transport), with no heartbeats.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator


def zmq_link() -> tuple[Iterator[str], Callable[[str], None]]:
    import zmq

    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.HEARTBEAT_IVL, 20)
    socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, 250)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(os.environ["REFEREE_ENDPOINT"])

    def lines() -> Iterator[str]:
        while True:
            yield from bytes(socket.recv()).decode().split("\n")

    return lines(), lambda line: socket.send(line.encode())


def stdio_link() -> tuple[Iterator[str], Callable[[str], None]]:
    def send(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return (line.rstrip("\n") for line in sys.stdin), send


def main(boot: float = 0.0, think: float = 0.0) -> None:
    time.sleep(boot)
    lines, send = stdio_link() if os.environ["REFEREE_ENDPOINT"] == "stdio" else zmq_link()
    send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} heartbeat 1.0")
    for line in lines:
        words = line.split()
        if line == "BYE":
            return
        if words and words[0].endswith("?"):
            time.sleep(think)
            think = 0.0
            send(words[1] if len(words) > 1 else "ok")


if __name__ == "__main__":
    main(*(float(arg) for arg in sys.argv[1:3]))
