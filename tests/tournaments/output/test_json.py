"""The JSON document validates against docs/results-schema.json and holds what
docs/results-json.md says: metadata, numbers as numbers, faults per kind, null for n/a."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from protocols.faults import FaultKind
from referee.registry.games import AnyGame
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tests.cli_support import run_main
from tests.tournaments.output.stored import fake_db

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "docs" / "results-schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def results_json(db: Path, *extra: str) -> dict[str, Any]:
    code, out, err = run_main(["results", str(db), "--format", "json", *extra])
    assert code == 0 and err == "", err
    document: dict[str, Any] = json.loads(out)
    return document


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_a_finished_rage_tournament_validates_with_its_metadata(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    scheduled = fake_db(db, n_bots=4, deals=2, seed=9)
    document = results_json(db)
    VALIDATOR.validate(document)
    metadata = document["metadata"]
    assert metadata["schema_version"] == 1 and metadata["game"] == "rage"
    assert (metadata["seed"], metadata["deals"], metadata["table_size"]) == (9, 2, 4)
    assert metadata["games_played"] == metadata["games_scheduled"] == scheduled
    assert metadata["complete"] is True and metadata["references"] == []
    assert metadata["limits"]["clock"] == "wall" and metadata["bots"] == list("abcd")
    assert list(document["tables"]) == ["standings", "head_to_head", "bots"]
    rows = {row["bot"]: row for row in document["tables"]["standings"]["rows"]}
    assert rows["a"]["faults"]["protocol"] >= 1  # the fake db's hostile fault
    assert set(rows["a"]["faults"]) == {kind.value for kind in FaultKind}
    assert all(isinstance(row["mean_place"], float) and isinstance(row["games"], int)
               for row in rows.values())
    crosstable = {row["bot"]: row for row in document["tables"]["head_to_head"]["rows"]}
    assert crosstable["a"]["a"] is None and isinstance(crosstable["a"]["b"], float)


def test_an_incomplete_tournament_of_the_game_validates_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    scheduled = fake_db(db, THEGAME, n_bots=3, stored=1, deals=2)
    document = results_json(db)
    VALIDATOR.validate(document)
    metadata = document["metadata"]
    assert (metadata["games_played"], metadata["games_scheduled"]) == (1, scheduled)
    assert scheduled > 1 and metadata["complete"] is False
    assert "team_size" in metadata and "table_size" not in metadata
    assert list(document["tables"]) == ["solo", "teams", "solo_vs_team", "bots"]
    solo = document["tables"]["solo"]["rows"]
    unplayed = [row for row in solo if row["games"] == 0]
    assert unplayed and all(row["rank"] is None and row["win_pct_ci95"] is None
                            for row in unplayed)
    played = [row for row in solo if row["games"]]
    assert played and all(0 <= row["win_pct_ci95"]["low"] <= row["win_pct_ci95"]["high"]
                          <= 100 for row in played)


@pytest.mark.parametrize("game, tables", [
    (RAGE, ["standings", "references", "head_to_head", "bots"]),
    (THEGAME, ["solo", "references", "teams", "solo_vs_team", "bots"])])
def test_a_gauntlet_validates_with_its_references_apart(tmp_path: Path, game: AnyGame,
                                                        tables: list[str]) -> None:
    db = tmp_path / "g.sqlite"
    fake_db(db, game, n_bots=5, references=2, size=3 if game is RAGE else 2)
    document = results_json(db)
    VALIDATOR.validate(document)
    assert document["metadata"]["references"] == ["d", "e"]
    assert list(document["tables"]) == tables
    kept = [row["bot"] for row in document["tables"]["references"]["rows"]]
    assert sorted(kept) == ["d", "e"] and all(
        row["rank"] is None for row in document["tables"]["references"]["rows"])
    if game is RAGE:  # candidates against references: every cell played, none n/a
        crosstable = document["tables"]["head_to_head"]["rows"]
        assert sorted(row["bot"] for row in crosstable) == ["a", "b", "c"]
        assert all(sorted(row) == ["bot", "d", "e"] for row in crosstable)
        assert all(0 <= row[reference] <= 100 for row in crosstable
                   for reference in ("d", "e"))


def test_one_table_and_the_per_bot_outputs_validate(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=3)
    crosstable = results_json(db, "--table", "head_to_head")
    VALIDATOR.validate(crosstable)
    assert list(crosstable["tables"]) == ["head_to_head"]
    for extra in (["--bot", "a"], ["--faults"], ["--bot", "a", "--faults"]):
        document = results_json(db, *extra)
        VALIDATOR.validate(document)
    faults = results_json(db, "--faults")["tables"]["faults"]["rows"]
    assert faults and faults[0]["kind"] in SCHEMA["$defs"]["fault_counts"]["required"]


@pytest.mark.parametrize("damage", [
    lambda doc: doc["tables"]["standings"]["rows"][0].update(faults="crash 2"),
    lambda doc: doc["tables"]["standings"]["rows"][0].update(games="3"),
    lambda doc: doc["metadata"].pop("complete"),
    lambda doc: doc["metadata"].update(schema_version=2),
])
def test_the_schema_rejects_what_the_document_must_not_be(tmp_path: Path, damage: Any) -> None:
    """The validation above can fail: faults as words, a number as text, a missing key."""
    db = tmp_path / "r.sqlite"
    fake_db(db, n_bots=3)
    document = results_json(db)
    damage(document)
    assert not VALIDATOR.is_valid(document)
