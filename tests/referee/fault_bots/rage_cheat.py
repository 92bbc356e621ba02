#!/usr/bin/env python3
"""A Rage bot over stdio that plays legally until it can cheat: `rage_cheat.py MODE`.

MODE `illegal`: at the first PLAY? where it holds a card that is not offered (it would
not follow suit), it plays that card. MODE `unknown`: replies `x99`, which is no card.
MODE `bid`: bids one more than the cards dealt. Independent of the project's code.
"""

import os
import sys


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(mode: str) -> None:
    send(f"HELLO 2 {os.environ['REFEREE_TOKEN']} rage_cheat 1.0")
    hand: list[str] = []
    cards = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if words[0] == "HAND":
            hand = words[1:]
            cards = len(hand)
        elif words[0] == "BID?":
            send(str(cards + 1) if mode == "bid" else words[1])
        elif words[0] == "PLAY?":
            offered = {w.split(":")[0] for w in words[1:]}
            sneaky = [c for c in hand if c not in offered]
            if mode == "unknown":
                send("x99")
            elif mode == "illegal" and sneaky:
                send(sneaky[0])
            else:
                face = words[1].split(":")[0]
                hand.remove(face)
                send(words[1])
        elif words[0] == "BYE":
            return


if __name__ == "__main__":
    main(sys.argv[1])
