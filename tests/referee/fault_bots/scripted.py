#!/usr/bin/env python3
"""A bot that does, request by request, what its script says: `scripted.py GAME SCRIPT`.

GAME is `rage` or `thegame`: a proper answer is what the sample random bot of that game
answers (bots/rage_random.py, bots/thegame_random.py), so a game runs its whole length.
SCRIPT is comma-separated actions, the n-th for the n-th request (then `ok` for every
request after it, or the last action again if it ends with `*`: `log,pace*`); a first action starting with `@` is done right after the HELLO:
`@log` a LOG line, `@junk` a line that is no reply, `@utf8` bytes that are not UTF-8;
or instead of it: `@gone` exits with code 5.

  ok        the proper answer               bad       a well-formed but wrong reply (99)
  log       a LOG line, then the answer     postlog   the answer, then a LOG line
  logs      17 LOG lines, then the answer (one more than a request allows)
  biglogs   16 LOG lines of 4 KB of random text, then the answer (all a request allows)
  pace      the answer after PACE seconds (a game that lasts, well within its time)
  twice     the answer twice                after     the answer, then a line that is none
  afterutf8 the answer, then bytes that are not UTF-8
  afterutf8now  the same in one write (stdio: read together, whatever the load)
  later     the answer, then again SLOW/10 seconds later (maybe read as the next reply)
  junk      a line that is no answer        empty     an empty line
  utf8      bytes that are not UTF-8        hello     a HELLO line again
  long      a 5,000-byte line               huge      a 20,000-byte line (past a frame)
  multi     a LOG line and the answer in one write (one ZeroMQ frame: a framing fault)
  frames    the answer in a ZeroMQ message of two frames (stdio: ended by "\r\n")
  odd       a LOG line of characters JSON escapes, then the answer
  oddreply  that line as the reply
  slow      the answer after SLOW seconds (past a 1 s move time)
  exit      exits with code 3               exitafter the answer, then exits with code 0
  close     closes its stdout (ZeroMQ: its socket), answers nothing more
  mute      reads on, never answers again

Speaks ZeroMQ or, when REFEREE_ENDPOINT=stdio, its standard streams (misbehave.py's links).
"""

from __future__ import annotations

import os
import random
import string
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository: bots/

from misbehave import FOREVER, Link, StdioLink, ZmqLink  # noqa: E402

SLOW = 1.5  # seconds: past the tests' move time of 1 s and its tolerance
PACE = 0.05  # seconds: a game of paced replies lasts seconds, each well within its time
MAX_LOG_LINES = 16  # protocols.wire.MAX_LOG_LINES_PER_REQUEST
MAX_LINE_BYTES = 4096  # protocols.wire.MAX_LINE_BYTES
TOO_MANY_LOGS = 17  # protocols.wire.MAX_LOG_LINES_PER_REQUEST + 1
NOT_UTF8 = b"\xff\xfe not utf-8 \xc3\x28"
# UTF-8 that JSON must escape, and characters str.splitlines() splits at
PRINTABLE = (string.ascii_letters + string.digits + string.punctuation + " ").encode()
ODD = "\u00fc \u2028 \" \\ \x1c \x85 \x7f \x00 }]".encode()
Brain = Callable[[str], "str | None"]


def brain(game: str) -> Brain:
    """The sample random bot of `game`: its on_line gives the proper answer."""
    if game == "rage":
        from bots.rage_random import RandomBot as RageBot
        return RageBot().on_line
    from bots.thegame_random import RandomBot as TheGameBot
    return TheGameBot().on_line


def first_actions(link: Link, action: str) -> None:
    """A line right after the HELLO, before the game's first line, as `@action` says."""
    lines = {"@log": b"LOG before the game", "@junk": b"junk before the game",
             "@utf8": NOT_UTF8}
    link.send(lines[action])


def act(action: str, link: Link, answer: bytes) -> None:
    """Do `action` for one request whose proper answer is `answer`."""
    sends: dict[str, list[bytes]] = {
        "ok": [answer], "log": [b"LOG thinking", answer], "postlog": [answer, b"LOG done"],
        "logs": [b"LOG %d" % i for i in range(TOO_MANY_LOGS)] + [answer],
        "twice": [answer, answer], "after": [answer, b"chatter"],
        "afterutf8": [answer, NOT_UTF8], "bad": [b"99"],
        # The same in one write (one stdio read, whatever the load; over ZeroMQ one frame
        # of two lines, a framing fault): the bytes are there before the seat's next batch.
        "afterutf8now": [answer + b"\n" + NOT_UTF8],
        "junk": [b"what is this"], "empty": [b""], "utf8": [NOT_UTF8],
        "hello": [b"HELLO 2 " + b"0" * 32 + b" again 1.0"],
        "long": [b"x" * 5000], "huge": [b"y" * 20000],
        "multi": [b"LOG together\n" + answer],
        "odd": [b"LOG " + ODD, answer], "oddreply": [ODD],
    }
    if action in sends:
        for data in sends[action]:
            link.send(data)
    elif action == "frames":
        frames(link, answer)
    elif action == "later":
        link.send(answer)
        time.sleep(SLOW / 10)
        link.send(answer)
    elif action == "slow":
        time.sleep(SLOW)
        link.send(answer)
    elif action == "pace":
        time.sleep(PACE)
        link.send(answer)
    elif action == "biglogs":
        for _ in range(MAX_LOG_LINES):
            link.send(b"LOG " + random_text(MAX_LINE_BYTES - 4))
        link.send(answer)
    elif action == "exit":
        os._exit(3)
    elif action == "exitafter":
        link.send(answer)
        os._exit(0)
    elif action == "close":
        close(link)
        mute(link)
    elif action == "mute":
        mute(link)
    else:
        raise SystemExit(f"scripted.py: unknown action {action!r}")


def random_text(size: int) -> bytes:
    """Printable ASCII that does not compress, quotes and backslashes included (JSON
    escapes them: the log's bytes grow)."""
    return bytes(random.choice(PRINTABLE) for _ in range(size))


def frames(link: Link, answer: bytes) -> None:
    """The answer as a ZeroMQ message of two frames (a framing fault); over stdio, ended
    by "\r\n" (allowed)."""
    if isinstance(link, ZmqLink):
        link._socket.send_multipart([answer, b"more"])
    else:
        link.send(answer + b"\r")


def close(link: Link) -> None:
    """Close the way replies go: stdout, or the ZeroMQ socket (then never read again)."""
    if isinstance(link, StdioLink):
        os.close(1)
        return
    assert isinstance(link, ZmqLink)
    link._socket.close(linger=0)
    time.sleep(FOREVER)


def mute(link: Link) -> None:
    """Read on to the end (BYE, or end of input), answering nothing."""
    while link.recv() != "BYE":
        pass
    os._exit(0)


def main() -> int:
    game, script = sys.argv[1], [a for a in sys.argv[2].split(",") if a]
    endpoint = os.environ["REFEREE_ENDPOINT"]
    link: Link = StdioLink() if endpoint == "stdio" else ZmqLink(endpoint)
    if script[:1] == ["@gone"]:
        return 5
    on_line = brain(game)
    link.send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} scripted 1.0".encode())
    if script and script[0].startswith("@"):
        first_actions(link, script.pop(0))
    last = script[-1][:-1] if script and script[-1].endswith("*") else "ok"
    actions = iter([action.rstrip("*") for action in script])
    while (line := link.recv()) != "BYE":
        reply = on_line(line)
        if line.split(" ", 1)[0].endswith("?"):
            act(next(actions, last), link, (reply or "").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
