#!/usr/bin/env python3
"""A stdio bot whose crash leaves as costly a stderr as a log can be asked to hold: it
answers each request with its first option, and at its third request writes LINES lines
of 300 characters outside Unicode's first plane (12 bytes each once JSON-escaped), then
LAST_WORDS, and exits with code 1. Independent of the project's code, as a bot is."""

from __future__ import annotations

import os
import sys

LINES = 40
LAST_WORDS = "RuntimeError: the last words"


def main() -> int:
    print(f"HELLO 2 {os.environ['REFEREE_TOKEN']} loud 1.0", flush=True)
    asked = 0
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["BYE"]:
            return 0
        if not words or not words[0].endswith("?"):
            continue
        asked += 1
        if asked == 3:
            for number in range(LINES):
                print(f"{number} " + "\U0001f600" * 40, file=sys.stderr)
            print(LAST_WORDS, file=sys.stderr, flush=True)
            return 1
        print(words[1] if len(words) > 1 else "none", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
