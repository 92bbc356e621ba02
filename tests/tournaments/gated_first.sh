#!/bin/sh
# bots/rage_first.sh, slowed to a second a move while the file $REFEREE_KILL_GATE exists:
# a test opens the gate to hold a run mid-tournament however fast the machine plays.
# Its moves are the same either way, so a gated run's results match an ungated one's.
echo "HELLO 2 $REFEREE_TOKEN rage_first 1.0"
while IFS= read -r line; do
    set -- $line
    case "$1" in
        "BID?"|"PLAY?") [ -e "$REFEREE_KILL_GATE" ] && sleep 1; echo "$2" ;;
        BYE) exit 0 ;;
    esac
done
