"""A High Card bot for the stdio transport: plays its highest card, or (with the argument
`low`) its lowest. Standalone, as a stranger's bot would be."""

import os
import sys


def main() -> None:
    low = sys.argv[1:] == ["low"]
    print(f"HELLO 2 {os.environ['REFEREE_TOKEN']} highcard-bot 1.0", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["PLAY?"]:
            cards = [int(word) for word in words[1:]]
            print(min(cards) if low else max(cards), flush=True)
        elif words[:1] == ["BYE"]:
            return


if __name__ == "__main__":
    main()
