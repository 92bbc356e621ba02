"""GameRecord JSON round trip."""

from __future__ import annotations

import json

from referee.errors import Fault
from protocols.faults import FaultKind
from tournaments.store.records import GameRecord


def test_record_survives_json_with_every_field() -> None:
    record = GameRecord(
        "thegame/d01/team/t01", "thegame", 42, ("a", "b"), (7, 7), (1, 1),
        faults=(Fault(1, "b", FaultKind.ILLEGAL, "reverse trick under no-reverse", "PLAY x"),),
        won=False, cards_left=7, end_reason="fault", cards_played=(40, 51),
        hints_given=(2, 0), log_path="results/x-logs/t01.jsonl")
    data = json.loads(json.dumps(record.to_json()))
    assert data["faults"][0]["kind"] == "illegal"
    assert GameRecord.from_json(data) == record


def test_rage_record_optional_fields_stay_none() -> None:
    record = GameRecord("rage/d01/t01/r0", "rage", 1, ("a", "b", "c"), (10, -5, 10), (1, 3, 1))
    back = GameRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert back == record and back.cards_played is None and back.won is None
