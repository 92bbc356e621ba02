#!/usr/bin/env python3
"""A bot whose HELLO is malformed, its one-time token in it: `bad_hello.py HELLO FILE`.

HELLO is the line to send, `{token}` standing for the token the referee gave
($REFEREE_TOKEN), which is first appended to FILE (so a test can look for it in every
output). Then it reads until its input ends. Speaks ZeroMQ or, when
REFEREE_ENDPOINT=stdio, its standard streams (misbehave.py's links).
"""

from __future__ import annotations

import os
import sys
import time

from misbehave import Link, StdioLink, ZmqLink


def main() -> int:
    hello, tokens = sys.argv[1], sys.argv[2]
    token = os.environ["REFEREE_TOKEN"]
    with open(tokens, "a") as f:
        f.write(token + "\n")
    endpoint = os.environ["REFEREE_ENDPOINT"]
    link: Link = StdioLink() if endpoint == "stdio" else ZmqLink(endpoint)
    link.send(hello.replace("{token}", token).encode())
    if isinstance(link, StdioLink):
        while True:
            link.recv()  # exits at the end of its input
    time.sleep(30)  # killed by then
    return 0


if __name__ == "__main__":
    sys.exit(main())
