#!/usr/bin/env python3
"""A bot that handshakes, answers properly, then misbehaves: `misbehave.py MODE [N]`.

It answers each request `X? opt1 opt2 ...` with `opt1` (or `ok` without options) until the
N-th request (default 1), where it misbehaves per MODE:

  good      never misbehaves          sleep     sleeps forever instead of replying
  exit      exits with code 3         garbage   replies with bytes that are not UTF-8
  overlong  a 10,000-character reply  flood     endless LOG lines instead of a reply
  spew      replies, then endless non-LOG lines
  twice     two replies               slow      sleeps $FAULT_SLEEP seconds before each reply
  logs      sends $FAULT_LOGS LOG lines (default 3) before each reply
  child     starts a child that sleeps forever, writes its pid to $FAULT_CHILD_PIDFILE,
            and keeps answering properly
  escape    the same, but the child leaves the bot's process group (a session of its own)
  nohello   never sends HELLO         badtoken  HELLO with a wrong token
  oldproto  HELLO with protocol 0

If $FAULT_PIDFILE is set, it first writes its pid there (for tests of failed launches).
Speaks ZeroMQ (DEALER to $REFEREE_ENDPOINT) or, when REFEREE_ENDPOINT=stdio, its standard
streams. Deliberately independent of the project's code: it is what an outside bot sees.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Protocol

FOREVER = 3600.0


class Link(Protocol):
    def send(self, data: bytes) -> None: ...
    def recv(self) -> str: ...


class ZmqLink:
    def __init__(self, endpoint: str) -> None:
        import zmq

        self._socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 1000)
        self._socket.connect(endpoint)
        self._lines: list[str] = []  # the rest of the last frame's lines, next one last

    def send(self, data: bytes) -> None:
        self._socket.send(data)

    def recv(self) -> str:
        if not self._lines:
            self._lines = bytes(self._socket.recv()).decode().split("\n")[::-1]
        return self._lines.pop()


class StdioLink:
    def send(self, data: bytes) -> None:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()

    def recv(self) -> str:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        return line.decode().rstrip("\n")


def hello(mode: str, token: str) -> bytes:
    protocol = "0" if mode == "oldproto" else "2"
    if mode == "badtoken":
        token = "0" * 32
    return f"HELLO {protocol} {token} misbehave-{mode} 1.0".encode()


def answer(request: str) -> bytes:
    words = request.split()
    return (words[1] if len(words) > 1 else "ok").encode()


def start_child(new_session: bool = False) -> None:
    child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({FOREVER})"],
                             start_new_session=new_session)
    with open(os.environ["FAULT_CHILD_PIDFILE"], "w") as f:
        f.write(str(child.pid))


def misbehave(mode: str, link: Link, request: str) -> None:
    """Do the N-th request's misbehaviour; return to answer it properly after all."""
    if mode == "sleep":
        time.sleep(FOREVER)
    elif mode == "exit":
        sys.stdout.flush()
        os._exit(3)
    elif mode == "garbage":
        link.send(b"\xff\xfe not utf-8 \xc3\x28")
    elif mode == "overlong":
        link.send(b"x" * 10_000)
    elif mode == "flood":
        for i in range(10**9):
            link.send(f"LOG flood {i}".encode())
    elif mode == "twice":
        link.send(answer(request))  # and the proper one follows
        return
    elif mode in ("child", "escape"):
        start_child(new_session=mode == "escape")
        return
    elif mode == "spew":
        link.send(answer(request))
        for i in range(10**9):
            link.send(f"chatter {i}".encode())
    else:
        return
    time.sleep(FOREVER)  # after a misbehaviour that is not a reply: never answer


def before_reply(mode: str, link: Link) -> None:
    if mode == "slow":
        time.sleep(float(os.environ.get("FAULT_SLEEP", "0.5")))
    elif mode == "logs":
        for i in range(int(os.environ.get("FAULT_LOGS", "3"))):
            link.send(f"LOG thinking {i}".encode())


def main() -> int:
    mode = sys.argv[1]
    nth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    endpoint = os.environ["REFEREE_ENDPOINT"]
    link: Link = StdioLink() if endpoint == "stdio" else ZmqLink(endpoint)
    print(f"misbehave {mode} {nth} starting", file=sys.stderr, flush=True)
    if "FAULT_PIDFILE" in os.environ:
        with open(os.environ["FAULT_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    if mode == "nohello":
        time.sleep(FOREVER)
    link.send(hello(mode, os.environ["REFEREE_TOKEN"]))
    count = 0
    while True:
        line = link.recv()
        if line == "BYE":
            return 0
        if not line.split(" ", 1)[0].endswith("?"):
            continue
        count += 1
        if count == nth:
            misbehave(mode, link, line)
        before_reply(mode, link)
        link.send(answer(line))


if __name__ == "__main__":
    sys.exit(main())
