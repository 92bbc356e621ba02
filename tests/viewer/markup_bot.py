#!/usr/bin/env python3
"""A stdio bot for the viewer's tests: `markup_bot.py [N]`. Before each reply it sends a
LOG line full of markup; it answers each request `X? opt1 ...` with its first option
(`none` without options), and its N-th reply (default: never) is markup, which the game
refuses: a fault whose offending line is markup."""

from __future__ import annotations

import os
import sys

MARKUP_LOG = "LOG <script>document.title='pwned'</script><b>bold</b> & <img src=x>"
MARKUP_REPLY = "<i>x</i>"


def main() -> int:
    bad_at = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    out = sys.stdout
    out.write(f"HELLO 2 {os.environ['REFEREE_TOKEN']} markup 1.0\n")
    out.flush()
    asked = 0
    for line in sys.stdin:
        words = line.split()
        if not words or not words[0].endswith("?"):
            if words[:1] == ["BYE"]:
                return 0
            continue
        asked += 1
        reply = MARKUP_REPLY if asked == bad_at else (words[1] if len(words) > 1 else "none")
        if words[0] == "TURN?":
            reply = "none"  # never a legal turn: only used with bad_at for The Game
        out.write(f"{MARKUP_LOG}\n{reply}\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
