"""The Bots table's columns: people see a bot's role and version in a gauntlet alone,
where they can differ; machines (JSON, CSV) always get every column docs/results-json.md
promises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tournaments.output.stored import fake_db
from tournaments.output.formats import OutputFormat
from tournaments.output.results import results_tables


def _bots_header(db: Path, fmt: OutputFormat) -> list[str]:
    shown = results_tables(db, fmt, table="bots")
    if fmt is OutputFormat.JSON:
        return [column["key"] for column in json.loads(shown)["tables"]["bots"]["columns"]]
    if fmt is OutputFormat.CSV:
        return shown.splitlines()[0].split(",")
    header = next(line for line in shown.splitlines() if line.startswith(("bot ", "| bot")))
    return header.replace("|", " ").split()


@pytest.mark.parametrize("fmt", [OutputFormat.TEXT, OutputFormat.MARKDOWN])
def test_people_see_no_role_or_version_in_a_round_robin(tmp_path: Path,
                                                        fmt: OutputFormat) -> None:
    db = tmp_path / "results.db"
    fake_db(db)
    header = _bots_header(db, fmt)
    assert header[:2] == ["bot", "command"] and "role" not in header
    assert "version" not in header


def test_people_see_role_and_version_in_a_gauntlet(tmp_path: Path) -> None:
    db = tmp_path / "results.db"
    fake_db(db, references=2)
    assert _bots_header(db, OutputFormat.TEXT)[:3] == ["bot", "role", "version"]


@pytest.mark.parametrize("fmt", [OutputFormat.JSON, OutputFormat.CSV])
def test_machines_get_every_column_in_a_round_robin(tmp_path: Path, fmt: OutputFormat) -> None:
    db = tmp_path / "results.db"
    fake_db(db)
    assert _bots_header(db, fmt)[:3] == ["bot", "role", "version"]
