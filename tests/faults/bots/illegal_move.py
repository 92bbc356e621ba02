"""A student's Rage bot over stdio that bids, then plays a card it was not offered."""
import os
import sys

print(f"HELLO 2 {os.environ.get('REFEREE_TOKEN', '')} illegal_move 1.0", flush=True)
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "BID?":
        print(words[1], flush=True)
    elif words and words[0] == "PLAY?":
        wrong = next(f"{colour}{value}" for colour in "rgby" for value in range(1, 16)
                     if f"{colour}{value}" not in words[1:])
        print(f"playing {wrong} instead", file=sys.stderr, flush=True)
        print(wrong, flush=True)
    elif words and words[0] == "BYE":
        break
