"""What a bot did wrong, by kind: a word of the wire (an ERROR line's kind), the game
log and the result tables. It belongs to the wire layer, which imports nothing of the
referee, so that a bot's SDK and the codecs stand on the wire alone."""

from __future__ import annotations

import enum


class FaultKind(enum.Enum):
    """What a bot did wrong. The value is the word used in logs, tables and the wire."""

    # It never began to play: could not start, no HELLO in time, a bad HELLO, or died
    # before its HELLO. Apart from CRASH, a crash once the game was under way.
    STARTUP = "startup"
    TIMEOUT = "timeout"
    CRASH = "crash"
    PROTOCOL = "protocol"
    ILLEGAL = "illegal"
    FLOOD = "flood"
    # A tournament's --disqualify-after: the bot faulted in too many games to be seated,
    # so its process was not started for this one.
    DISQUALIFIED = "disqualified"
