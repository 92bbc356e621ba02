#!/usr/bin/env python3
"""A The Game bot over stdio that breaks the rules: `thegame_cheat.py MODE`.

MODE `steal`: its turn places cards it does not hold. MODE `backwards`: plays its lowest
card on an ascending pile whose top is higher and not exactly 10 above (no reverse trick).
MODE `numbers`: its hints say a number ("good:a 42"). Independent of the project's code.
"""

import os
import sys


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(mode: str) -> None:
    send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} thegame_cheat 1.0")
    hand: list[int] = []
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] in ("HAND", "DRAW"):
            hand += [int(w) for w in words[1:]]
        elif words[0] == "HINTS?":
            send("good:a 42" if mode == "numbers" else "none")
        elif words[0] == "TURN?":
            if mode == "steal":
                send(" ".join(f"a:{c}" for c in range(98, 100) if c not in hand) or "a:99")
            else:
                low = min(hand)
                send(f"a:{max(hand)} a:{low}" if max(hand) - low != 10 else f"a:{low} a:{low}")
        elif words[0] == "BYE":
            return


if __name__ == "__main__":
    main(sys.argv[1])
