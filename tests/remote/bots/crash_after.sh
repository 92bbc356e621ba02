#!/bin/sh
# bots/rage_first.sh that exits with code 3 at its fifth request: a bot crashing on its
# contestant's machine.
echo "HELLO 2 $REFEREE_TOKEN crash_after 1.0"
asked=0
while IFS= read -r line; do
    set -- $line
    case "$1" in
        "BID?"|"PLAY?")
            asked=$((asked + 1))
            [ "$asked" -ge 5 ] && exit 3
            echo "$2" ;;
        BYE) exit 0 ;;
    esac
done
