#!/bin/sh
# bots/rage_first.sh, slowed: each reply after SLOW_BOT_DELAY seconds (default 0.02), so a
# game lasts long enough for a test to do something while it is played. It says "in play"
# on stderr at its first request: the game has begun.
echo "HELLO 2 $REFEREE_TOKEN slow_first 1.0"
asked=0
while IFS= read -r line; do
    set -- $line
    case "$1" in
        "BID?"|"PLAY?")
            [ "$asked" -eq 0 ] && echo "in play" >&2
            asked=1
            sleep "${SLOW_BOT_DELAY:-0.02}"; echo "$2" ;;
        BYE) exit 0 ;;
    esac
done
