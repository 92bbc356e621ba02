#!/usr/bin/env python3
"""A Rage bot over stdio that plays the first legal option, with one quirk:
`rage_quirks.py MODE [ARG...]`. Independent of the project's code, as an outside bot is.

  good             no quirk
  byecode N        exits with code N on BYE
  child S          starts `sleep S` (S: a number, so a test can find it) and leaves it
                   behind on BYE
  chatty K         after its K-th reply, in the same write, a line nobody asked for
  slow S K         sleeps S seconds before each of its first K replies
  proto P          says HELLO in protocol version P
  lingering S      sleeps S seconds on BYE before it exits with code 0
"""

import os
import subprocess
import sys
import time


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(mode: str, args: list[str]) -> int:
    protocol = args[0] if mode == "proto" else "2"
    send(f"HELLO {protocol} {os.environ['REFEREE_TOKEN']} rage_quirks-{mode} 1.0")
    if mode == "child":
        subprocess.Popen(["sleep", args[0]])
    answered = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "BYE":
            if mode == "lingering":
                time.sleep(float(args[0]))
            return int(args[0]) if mode == "byecode" else 0
        if words[0] in ("BID?", "PLAY?"):
            if mode == "slow" and answered < int(args[1]):
                time.sleep(float(args[0]))
            answered += 1
            extra = "\nchatter" if mode == "chatty" and answered == int(args[0]) else ""
            send(words[1] + extra)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
