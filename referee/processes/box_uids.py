"""A uid of its own for each sandboxed bot of a root referee, as ioi/isolate gives each box.

Bots that share a uid share what the kernel keeps per user: its keyrings, its count of
processes, the right to signal and trace each other's processes, and files one leaves for
the other. So every bot that runs at the same time, in any referee process on the machine
(the workers of a tournament are separate processes), has a different uid from
FIRST_UID up.

A uid is claimed by binding an abstract unix socket named after it in the referee's
network namespace: the kernel gives a name to one socket at a time, frees it when the
socket is closed or its process dies, leaves no file behind, and no bot can take one (each
sandbox has a network namespace of its own).
"""

from __future__ import annotations

import itertools
import os
import socket

FIRST_UID = 60000  # isolate's first box user: uids no account on the machine uses
UID_COUNT = 10000  # far more than the bots that can run at once on one machine
_NAME = "\0referee-box-uid-{}"
_CLAIMS = itertools.count()


class BoxUid:
    """A claimed uid, held until release() (or until this process dies)."""

    def __init__(self, number: int, claim: socket.socket) -> None:
        self.number = number
        self._claim: socket.socket | None = claim

    @classmethod
    def claim(cls) -> BoxUid:
        """A uid no other running bot has; OSError if every one is taken."""
        # From a point of this process's own, so that referees rarely probe each other's.
        start = os.getpid() * 7 + next(_CLAIMS)
        for step in range(UID_COUNT):
            number = FIRST_UID + (start + step) % UID_COUNT
            claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                claim.bind(_NAME.format(number))
            except OSError:
                claim.close()
                continue
            return cls(number, claim)
        raise OSError(f"all {UID_COUNT} sandbox uids from {FIRST_UID} are in use")

    def release(self) -> None:
        """Give the uid back, once the bot's processes are gone. Idempotent."""
        if self._claim is not None:
            self._claim.close()
            self._claim = None
