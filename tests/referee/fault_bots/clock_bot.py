#!/usr/bin/env python3
"""A bot that takes its time before every reply: `clock_bot.py MODE SECONDS`.

  sleep   sleeps SECONDS (wall-clock time, no CPU)
  spin    busy-loops until it has used SECONDS of CPU time
  child   starts a child that busy-loops SECONDS of CPU time, and sleeps until it ends

Then it answers `X? opt1 ...` with `opt1`. Told what to do by its arguments, as a
sandbox passes no environment on. Speaks ZeroMQ, or stdio when REFEREE_ENDPOINT=stdio.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from misbehave import Link, StdioLink, ZmqLink, answer, hello


def spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def take_time(mode: str, seconds: float) -> None:
    if mode == "sleep":
        time.sleep(seconds)
    elif mode == "spin":
        spin(seconds)
    elif mode == "child":
        subprocess.run([sys.executable, __file__, "burn", str(seconds)], check=True)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


def main() -> int:
    mode, seconds = sys.argv[1], float(sys.argv[2])
    if mode == "burn":  # the child of `child`
        spin(seconds)
        return 0
    endpoint = os.environ["REFEREE_ENDPOINT"]
    link: Link = StdioLink() if endpoint == "stdio" else ZmqLink(endpoint)
    link.send(hello("good", os.environ["REFEREE_TOKEN"]))
    while (line := link.recv()) != "BYE":
        if line.split(" ", 1)[0].endswith("?"):
            take_time(mode, seconds)
            link.send(answer(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
