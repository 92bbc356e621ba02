"""What `referee rerun` says of a game: a faulted seat's points are the fallback's, never
the bot's (issue 29: a faulted game shows no score for the faulted seat)."""

from __future__ import annotations

from pathlib import Path

from protocols.faults import FaultKind
from referee.errors import Fault
from tournaments.run.rerun import Rerun
from tournaments.store.records import GameRecord


def test_a_faulted_seat_has_no_score_in_reruns_verdict() -> None:
    fault = Fault(0, "eve", FaultKind.PROTOCOL, "not a card in the notation: 'PLAY zz99'")
    stored = GameRecord("rage/d01/c-eve/t01/r0", "rage", 1, ("eve", "ref", "ref", "rnd"),
                        (48, 81, 29, -28), (4, 1, 2, 3), (fault,))
    same = Rerun(stored, stored, Path("log.jsonl.gz")).verdict()
    assert "scores [— (protocol), 81, 29, -28]" in same and "48" not in same
    other = GameRecord(stored.fixture_id, "rage", 1, stored.bots, (50, 81, 29, -28),
                       (1, 2, 3, 4))
    differs = Rerun(stored, other, Path("log.jsonl.gz")).verdict()
    assert "stored scores [— (protocol), 81, 29, -28]" in differs
    assert "now scores [50, 81, 29, -28]" in differs and "48" not in differs
