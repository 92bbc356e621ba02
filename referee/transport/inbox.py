"""A bot's unread lines, bounded: past the bounds, its output is a flood fault."""

from __future__ import annotations

from collections import deque

from protocols.wire import WireError, decode_line
from referee.errors import BotFault, OutputFlood, ProtocolError
from referee.transport.channel import excerpt

MAX_QUEUED_LINES = 512  # unread lines from one bot; a well-behaved bot has a reply + a few LOGs
MAX_QUEUED_BYTES = 1 << 20


def decoded(raw: bytes) -> str:
    """One line's bytes as text; a framing fault is the bot's protocol error."""
    try:
        return decode_line(raw)
    except WireError as exc:
        raise ProtocolError(str(exc), excerpt(raw)) from None


class Inbox:
    """Lines from one bot not read yet, in order, with framing faults in their place.

    A line is kept as the bytes that came and decoded when taken: a bad one becomes its
    protocol fault there, in its place.
    """

    def __init__(self) -> None:
        self._items: deque[bytes | BotFault] = deque()
        self._bytes = 0
        self._flood: OutputFlood | None = None

    def push_raw(self, raw: bytes) -> None:
        """Queue one line's bytes (no line terminator)."""
        if self._room(len(raw)):
            self._items.append(raw)
            self._bytes += len(raw)

    def push_fault(self, fault: BotFault) -> None:
        if self._room(0):
            self._items.append(fault)

    def _room(self, size: int) -> bool:
        """May `size` more bytes be queued? Past the limits, the flood is raised after
        what is queued, and everything later is dropped."""
        if self._flood is not None:
            return False
        if len(self._items) >= MAX_QUEUED_LINES or self._bytes + size > MAX_QUEUED_BYTES:
            self._flood = OutputFlood(
                f"bot sent more than {MAX_QUEUED_LINES} lines or {MAX_QUEUED_BYTES} bytes "
                "faster than they were read")
            return False
        return True

    def take(self) -> str | None:
        """The next line, or None if there is none; raises a queued fault or the flood."""
        items = self._items
        if not items:
            if self._flood is not None:
                raise self._flood
            return None
        item = items.popleft()
        if not isinstance(item, bytes):
            raise item
        self._bytes -= len(item)
        return decoded(item)

    @property
    def flooded(self) -> bool:
        """Past the bounds: nothing more is kept, and take() ends with the flood."""
        return self._flood is not None

    def ready(self) -> bool:
        return bool(self._items) or self._flood is not None

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0
