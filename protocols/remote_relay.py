"""What `referee connect` and the referee's remote seats say to each other, besides the
bot's own lines (protocols/remote.md).

Over the CurveZMQ connection (a DEALER at the contestant's end, the referee's ROUTER at
the other), a single-part message is protocol lines: from the referee, one or more lines
joined by newlines, exactly as a local bot gets them; from the relay, one line of the
bot. A two-part message whose first part is RELAY is the relays' own: the bot never sees
one, and no bot line can be mistaken for one.
"""

from __future__ import annotations

RELAY = b"RELAY"
# relay -> referee
JOIN = "JOIN"  # JOIN <relay version>: binds this connection to the key's seat
EXIT = "EXIT"  # EXIT <detail>: the contestant's bot ended or faulted there
# referee -> relay
SEATED = "SEATED"  # SEATED <seat name>: the reply to JOIN
START = "START"  # the seat is launched: start the bot (its HELLO is awaited)
REFUSED = "REFUSED"  # REFUSED <why>: this connection takes no seat
END = "END"  # the referee is done: no more games
MAX_NOTE_BYTES = 512  # a relay note longer than this is cut


def note(word: str, text: str = "") -> list[bytes]:
    """A relay message: [RELAY, 'WORD text']."""
    body = f"{word} {text}" if text else word
    return [RELAY, body.encode("utf-8", "replace")[:MAX_NOTE_BYTES]]


def read_note(parts: list[bytes]) -> tuple[str, str] | None:
    """(word, text) of a relay message, or None if `parts` is not one."""
    if len(parts) != 2 or parts[0] != RELAY:
        return None
    body = parts[1][:MAX_NOTE_BYTES].decode("utf-8", "replace")
    word, _, text = body.partition(" ")
    return word, text
# The token word of a HELLO the relay passes on: the bot's own one-time token stays on the
# contestant's machine (the relay checked it there); the CurveZMQ key is the credential.
RELAYED_TOKEN = "curve"
