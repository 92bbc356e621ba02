"""A remote seat's line channel: the Channel a RemotePlayer speaks through, over the
RemoteHall's CurveZMQ connection to the contestant's `referee connect`.

Like every channel it bounds each wait by its deadline, and turns the peer's trouble into
the seat's BotFault: its connection closing or going silent past the heartbeat (BotCrashed,
"remote bot disconnected"), its bot ending on the contestant's machine (BotCrashed, as the
relay reports it), bad lines (ProtocolError) and floods (OutputFlood, by the Inbox).
"""

from __future__ import annotations

import select
import time
from collections.abc import Sequence

from referee.errors import BotCrashed, BotTimeout
from referee.transport.channel import Channel, KeepAlive, encode_lines
from referee.transport.remote_hall import RemoteHall, Seat

# A wait for a remote line sleeps at most this long between looks: it is woken when the
# hall's drain thread takes a message, and a disconnection is noted by another thread.
PUMP_SLICE = 0.02


class RemoteChannel(Channel):
    """One remote seat's session, from its launch to its close."""

    def __init__(self, hall: RemoteHall, name: str, busy_wait: float | None = None,
                 hub: KeepAlive | None = None, where: str = "") -> None:
        """`where`: the session's occasion for people, e.g. "in game rage/d01/t01/r0"
        (else the time its start-up was missed)."""
        super().__init__(busy_wait, hub)
        self._hall = hall
        self._where = where
        self._seat: Seat = hall.open_seat(name)
        assert self._seat.inbox is not None
        self._inbox = self._seat.inbox  # kept: lines that came before a disconnection count
        self._open = True

    @property
    def seat(self) -> Seat:
        return self._seat

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        if lines and self._open:
            self._hall.send(self._seat, encode_lines(lines))

    def _wait_line(self, deadline: float) -> str:
        seat, hall, inbox = self._seat, self._hall, self._inbox
        while True:
            seen = hall.generation
            line = hall.take(inbox)
            if line is not None:
                return line
            if seat.gone:
                raise BotCrashed(seat.gone, None)
            if not self._open:
                raise BotTimeout("no line from the remote bot: its seat is closed")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                hall.pump(0)  # one last look: the deadline hides no line already there
                line = hall.take(inbox)
                if line is not None:
                    return line
                raise BotTimeout("no line from the remote bot before the deadline")
            self.serve_others()
            hall.pump(min(remaining, PUMP_SLICE), seen)

    def missed_start(self) -> str:
        """The start-up ended without a HELLO: why it may not have come, for its fault
        (the organiser's first question is whether the contestant's relay came at all;
        "": it is connected, or it left). A seat with no relay is not waited for again
        until one connects (RemoteHall.note_missed)."""
        if self._seat.routing_id is None and not self._seat.gone:
            missed = self._where or time.strftime("at %H:%M:%S UTC", time.gmtime())
            self._hall.note_missed(self._seat, missed)
            return "; no `referee connect` with its key is connected"
        return ""

    def pending(self) -> bool:
        self._hall.pump(0)
        return self._inbox.ready() or bool(self._seat.gone) or not self._open

    def wake_items(self) -> list[tuple[int, int]]:
        return [(self._hall.fd, select.POLLIN)]

    @property
    def watches_exit(self) -> bool:
        return False  # the fd is edge-triggered: a wait wakes now and then to look

    def close(self) -> None:
        if self._open:
            self._open = False
            self._hall.close_seat(self._seat)
