#!/usr/bin/env python3
"""A well-behaved ZeroMQ bot whose library sends heartbeats: libzmq's DEALER with a PING
every 20 ms, which drops the connection after 200 ms without an answer. It answers each
request `X? opt1 ...` with `opt1` and exits at BYE. Deliberately independent of the
project's code."""

from __future__ import annotations

import os

import zmq

socket = zmq.Context.instance().socket(zmq.DEALER)
socket.setsockopt(zmq.HEARTBEAT_IVL, 20)
socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, 200)
socket.setsockopt(zmq.LINGER, 0)
socket.connect(os.environ["REFEREE_ENDPOINT"])
socket.send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} heartbeat 1.0".encode())
while True:
    for line in socket.recv().decode().split("\n"):
        words = line.split()
        if words and words[0] == "BYE":
            raise SystemExit(0)
        if words and words[0].endswith("?"):
            socket.send((words[1] if len(words) > 1 else "ok").encode())
