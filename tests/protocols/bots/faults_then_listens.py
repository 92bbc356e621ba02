"""A Rage bot over stdio that writes every line it gets to stderr (`seen: LINE`), bids
the first listed bid, and answers its first PLAY? with a word that is no card: a protocol
fault. It then keeps reading, to show what the referee sends a faulted bot."""

import os
import sys

print(f"HELLO 2 {os.environ['REFEREE_TOKEN']} listener 1.0", flush=True)
for line in sys.stdin:
    line = line.rstrip("\n")
    print(f"seen: {line}", file=sys.stderr, flush=True)
    if line == "BYE":
        sys.exit(0)
    if line.startswith("BID?"):
        print(line.split()[1], flush=True)
    elif line.startswith("PLAY?"):
        print("nonsense", flush=True)
