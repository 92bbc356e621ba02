#!/bin/sh
# Rage bot in plain POSIX shell, spoken to over its standard streams:
#     referee play rage ... "stdio:bots/rage_first.sh"
# It bids and plays the first legal option the referee offers. Requests list the legal
# moves, so a bot needs no rules engine at all to play legally (protocols/rage.md).
echo "HELLO 2 $REFEREE_TOKEN rage_first 1.0"
while IFS= read -r line; do
    set -- $line
    case "$1" in
        "BID?"|"PLAY?") echo "$2" ;;
        BYE) exit 0 ;;
    esac
done
