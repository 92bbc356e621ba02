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
  repeat           exits with code 3 on a GAME line equal to the last one it saw (a bot
                   that resets its state only when the game changes)

These act only in games whose GAME line contains WORD (e.g. `players=8`, `hidden-bid`),
on the first request of such a game, so a test picks the one setup that fails:

  crash WORD       exits with code 3 on the GAME line
  stall WORD S     sleeps S seconds before it replies
  garbage WORD     replies with bytes that are not UTF-8
  flood WORD       sends LOG lines without end instead of a reply
  forge HOW        on BYE, writes a made-up report of referee check's exit probe ('exit
                   code 0 at once, nothing left') to its stderr and to its parent's
                   and grandparent's where they are the probe or the sandbox's,
                   then: HOW=hang sleeps 30 s; HOW=child
                   leaves a child that keeps writing it for 5 s, and exits with code 0;
                   HOW=kill leaves a child sleeping, SIGKILLs its parent if that is the
                   probe (so the forged line stays last), and exits with code 0
"""

import json
import os
import signal
import subprocess
import sys
import time

FOREVER = 3600.0
TRIGGERED = ("stall", "garbage", "flood")  # the modes that act on a request


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def misbehave(mode: str, args: list[str]) -> None:
    """The first request of a triggering game: misbehave (return to reply after all)."""
    if mode == "stall":
        time.sleep(float(args[1]))
        return
    if mode == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe not utf-8 \xc3\x28\n")
        sys.stdout.flush()
    elif mode == "flood":
        while True:
            send("LOG thinking aloud")
    time.sleep(FOREVER)  # no reply: the referee ends it


def forge(ended: float) -> None:
    """The probe's report line, as if the bot had exited with code 0 at `ended` and left
    nothing: on our stderr, and on our parent's and grandparent's where they are the
    probe or, in a sandbox, its init. Never a process of the machine's: outside a sandbox
    the parent of a session without a probe is the referee, and its parent a shell whose
    stderr is a person's terminal (issue 29: the stray lines in a test run)."""
    line = ("referee-exit-probe:" + json.dumps({"code": 0, "ended": ended, "left": []})
            + "\n").encode()
    os.write(2, line)
    parent = os.getppid()
    for pid in (parent, _parent_of(parent)):
        if not _in_reach(pid):
            continue
        try:
            fd = os.open(f"/proc/{pid}/fd/2", os.O_WRONLY | os.O_APPEND)
            os.write(fd, line)
            os.close(fd)
        except OSError:
            pass


def _in_reach(pid: int) -> bool:
    """Whether `pid` is the probe, or in a sandbox (where the referee sets no process
    tag) any process the bot can see: the sandbox's own."""
    return "REFEREE_PROCESS_TAG" not in os.environ or _is_probe(pid)


def _is_probe(pid: int) -> bool:
    """Whether `pid` runs the exit probe (`python -m referee.conformance.exit_probe`):
    one of its arguments is the module, not merely a word of it, as in a test run's
    `pytest tests/conformance/test_exit_probe.py`, the referee of an in-process check,
    which the bot then killed (and wrote its forged lines to)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as command:
            return b"referee.conformance.exit_probe" in command.read().split(b"\0")
    except OSError:
        return False


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return pid


def forge_on_bye(how: str) -> int:
    ended = time.monotonic()
    forge(ended)
    if how == "hang":
        time.sleep(30)
        return 0
    if how == "kill":
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        parent = os.getppid()
        if _is_probe(parent):  # only the probe: in a check's other sessions the parent is
            os.kill(parent, signal.SIGKILL)  # the referee
        return 0
    if os.fork() == 0:
        until = time.monotonic() + 5
        while time.monotonic() < until:
            forge(ended)
            time.sleep(0.001)
        os._exit(0)
    return 0


def main(mode: str, args: list[str]) -> int:
    protocol = args[0] if mode == "proto" else "2"
    send(f"HELLO {protocol} {os.environ['REFEREE_TOKEN']} rage_quirks-{mode} 1.0")
    if mode == "child":
        subprocess.Popen(["sleep", args[0]])
    answered = 0
    last_game = None
    triggered = False  # in a game whose GAME line holds the mode's WORD, before its request
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "GAME":
            if mode == "repeat" and raw == last_game:
                return 3
            last_game = raw
            triggered = mode in (*TRIGGERED, "crash") and args[0] in raw
            if triggered and mode == "crash":
                return 3
        if words[0] == "BYE":
            if mode == "lingering":
                time.sleep(float(args[0]))
            if mode == "forge":
                return forge_on_bye(args[0])
            return int(args[0]) if mode == "byecode" else 0
        if words[0] in ("BID?", "PLAY?"):
            if triggered:
                triggered = False
                misbehave(mode, args)
            if mode == "slow" and answered < int(args[1]):
                time.sleep(float(args[0]))
            answered += 1
            extra = "\nchatter" if mode == "chatty" and answered == int(args[0]) else ""
            send(words[1] + extra)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
