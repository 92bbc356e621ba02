#!/usr/bin/env python3
"""A stdio bot for the site's tests: it answers each request with its first option, and
at its third request writes CRASH_STDERR to its stderr and exits with code 3."""

from __future__ import annotations

import os
import sys

CRASH_STDERR = "boom <b>at</b> request 3"


def main() -> int:
    print(f"HELLO 2 {os.environ['REFEREE_TOKEN']} crash 1.0", flush=True)
    asked = 0
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["BYE"]:
            return 0
        if not words or not words[0].endswith("?"):
            continue
        asked += 1
        if asked == 3:
            print(CRASH_STDERR, file=sys.stderr, flush=True)
            return 3
        print(words[1] if len(words) > 1 else "none", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
