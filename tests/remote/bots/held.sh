#!/bin/sh
# bots/rage_first.sh that a test holds where it stands: in its Nth game (the Nth GAME
# line it is told), while the file $1N exists, it waits before each reply, and says so
# by making the file $1N.reached. The test does something meanwhile, then lets it go.
hold="$1"
game=0
echo "HELLO 2 $REFEREE_TOKEN held 1.0"
while IFS= read -r line; do
    set -- $line
    case "$1" in
        GAME) game=$((game + 1)) ;;
        "BID?"|"PLAY?")
            while [ -e "$hold$game" ]; do
                : > "$hold$game.reached"
                sleep 0.05
            done
            echo "$2" ;;
        BYE) exit 0 ;;
    esac
done
