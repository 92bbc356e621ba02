"""What a bot did wrong, by kind: a word of the wire (an ERROR line's kind), the game
log and the result tables. It belongs to the wire layer, which imports nothing of the
referee, so that a bot's SDK and the codecs stand on the wire alone."""

from __future__ import annotations

import enum


class FaultKind(enum.Enum):
    """What a bot did wrong. The value is the word used in logs, tables and the wire."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    PROTOCOL = "protocol"
    ILLEGAL = "illegal"
    FLOOD = "flood"
    # A tournament's --disqualify-after: the bot faulted in too many games to be seated,
    # so its process was not started for this one.
    DISQUALIFIED = "disqualified"
