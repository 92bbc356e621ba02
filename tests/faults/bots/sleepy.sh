#!/bin/sh
# A student's Rage bot over stdio that bids, then never answers a play in time.
echo "HELLO 2 $REFEREE_TOKEN sleepy 1.0"
while IFS= read -r line; do
    set -- $line
    case "$1" in
        "BID?") echo "$2" ;;
        "PLAY?") echo "sleeping on it" >&2; sleep 30 ;;
        BYE) exit 0 ;;
    esac
done
