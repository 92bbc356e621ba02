"""A student's Rage bot over stdio that plays the first legal option and dies in round 3
with a KeyError traceback (a real mistake: a dict lookup of a key it never stored)."""
import os
import sys

print(f"HELLO 2 {os.environ.get('REFEREE_TOKEN', '')} crash_round3 1.0", flush=True)
seen: dict[str, int] = {}
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "ROUND":
        seen["round"] = int(words[1])
    elif words[0] in ("BID?", "PLAY?"):
        if seen.get("round") == 3:
            print(seen["oops"], flush=True)  # KeyError: 'oops'
        print(words[1], flush=True)
    elif words[0] == "BYE":
        break
