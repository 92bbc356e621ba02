#!/usr/bin/env python3
"""A student's bot over its standard streams, as it may be before and after a fix:
`student.py MODE [N]`. It answers each request `X? opt1 opt2 ...` with `opt1`, and at the
N-th request (from 1):

  first   never does otherwise (the fixed bot)
  crash   raises KeyError('oops'): a traceback on stderr, exit code 1
  last    answers the last option from there on (a changed bot)

Independent of the project's code, as an outside bot is.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    mode, at = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    print(f"HELLO 2 {os.environ['REFEREE_TOKEN']} student 1.0", flush=True)
    asked = 0
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "BYE":
            return
        if not words[0].endswith("?"):
            continue
        asked += 1
        if mode == "crash" and asked == at:
            raise KeyError("oops")
        options = words[1:] or ["ok"]
        print(options[-1] if mode == "last" and asked >= at else options[0], flush=True)


if __name__ == "__main__":
    main()
