"""An arena's own files are input too (issue 31): whatever arena.toml or a counted game's
row in arena.db holds, reading it gives settings and games, or one ConfigError; never
another exception (hypothesis)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from referee.errors import ConfigError
from tests.cli_support import run_main
from tournaments.arena.leaderboard import standings, tally
from tournaments.store.records import GameRecord
from tournaments.arena.store import DB, SETTINGS, ArenaDb, Settings, init, load
from referee.matches.game import Options
from referee.registry.games import lookup
from referee.matches.game import Contest

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
TOML_LINES = st.lists(st.sampled_from([
    'game = "rage"', 'game = "thegame"', "game = 3", "table_size = 4", 'table_size = "x"',
    "placement = -1", "placement = 2", "[limits]", "move = 0.5", 'move = "fast"',
    "startup = 1e309", "bogus = 1", "[options]", 'variants = ["hidden-bid"]', "variants = 7",
    'variants = [["a"]]', 'variants = ["nope"]', 'variants = "hidden-bid"', "colour = true",
    "= broken", "[[limits]]", "move = -1", "move = 0", "bank = -0.5", "move = 1e9",
    "tolerance = 61", "startup = true", 'clock = "cpu"', 'clock = "sundial"', "clock = 1",
    "[resources]", "memory_mb = 512", "memory_mb = 8", 'processes = "unlimited"',
    'processes = "lots"', "cpu_seconds = 1.5", "open_files = 3", "table_size = 1e400",
    "table_size = 2.5", "table_size = true", "table_size = 99", "table_size = 3",
    "placement = 1e400", "placement = 2.5", 'placement = "3"']), max_size=8)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=TOML_LINES, raw=st.binary(max_size=40))
# An endless table size ended `arena run` in a traceback (OverflowError); 99 seats, 2.5
# (read as 2), a negative placement and The Game were taken until a later step failed.
@example(lines=['game = "rage"', "table_size = 1e400"], raw=b"")
@example(lines=['game = "rage"', "table_size = 99"], raw=b"")
@example(lines=['game = "rage"', "table_size = 2.5"], raw=b"")
@example(lines=['game = "rage"', "table_size = 3", "placement = -1"], raw=b"")
@example(lines=['game = "thegame"', "table_size = 3"], raw=b"")
def test_any_arena_toml_reads_as_settings_or_one_config_error(tmp_path: Path,
                                                             lines: list[str],
                                                             raw: bytes) -> None:
    for text in ("\n".join(lines).encode(), raw):
        (tmp_path / SETTINGS).write_bytes(text)
        try:
            found = load(tmp_path)
        except ConfigError as error:
            assert SETTINGS in str(error)
        else:
            assert isinstance(found, Settings) and type(found.table_size) is int
            # what `arena init` would refuse is refused (99 seats, placement -1, The Game)
            assert type(found.placement) is int and found.placement >= 0
            lookup(found.game).check_players(found.table_size)
            assert lookup(found.game).contest is Contest.COMPETITIVE
            limits = found.time_limits  # as `referee tournament` would take them
            assert 0 < limits.startup <= 86400 and 0 < limits.move <= 86400
            assert 0 <= limits.bank <= 86400 and 0 <= limits.tolerance <= 60
            memory = found.resource_limits.memory_mb
            assert memory is None or 16 <= memory <= 1024 * 1024
            game = lookup(found.game)  # options a game takes, as a submit's check sets up
            game.check_options(Options.of(game, dict(found.options)))


def test_a_time_limit_out_of_bounds_is_named(tmp_path: Path) -> None:
    """A move time of -1 made every version's check fail on the bot's 'reply times',
    blaming the bots for the arena's setting; now arena.toml itself is refused."""
    init(tmp_path / "a", Settings("rage", 3))
    toml = tmp_path / "a" / SETTINGS
    toml.write_text(toml.read_text().replace("move = 1.0", "move = -1"))
    try:
        load(tmp_path / "a")
    except ConfigError as error:
        assert "[limits] move must be a finite number of seconds > 0" in str(error)
    else:
        raise AssertionError("move = -1 was taken")


@pytest.mark.parametrize("options", ["variants = 3", 'variants = [["a"]]',
                                     'variants = ["nope"]', "colour = true"])
def test_bad_options_are_one_line_for_every_arena_command(tmp_path: Path,
                                                          options: str) -> None:
    """`variants = 3` in arena.toml made `arena submit` end in a traceback."""
    init(tmp_path / "a", Settings("rage", 3))
    toml = tmp_path / "a" / SETTINGS
    toml.write_text(toml.read_text() + f"\n[options]\n{options}\n")
    for command in (["submit", str(tmp_path / "a"), "x", "python bots/rage_random.py"],
                    ["standings", str(tmp_path / "a")]):
        code, _, err = run_main(["arena", *command])
        assert code == 2 and SETTINGS in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err


VALID = GameRecord("rage/d1/t1/r0", "rage", 1, ("a@v1", "b@v1", "c@v1"), (3, 2, 1),
                   (3, 2, 1)).to_json()
RECORDS = JSON | st.builds(lambda key, value: {**VALID, key: value},
                           st.sampled_from(sorted(VALID)), JSON)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=RECORDS)
def test_any_counted_game_row_reads_as_a_game_or_one_config_error(tmp_path: Path,
                                                                  record: object) -> None:
    arena = tmp_path / "a"
    if not (arena / DB).exists():
        init(arena, Settings("rage", 3))
    with closing(sqlite3.connect(arena / DB)) as db, db:
        db.execute("DELETE FROM games")
        db.execute("INSERT INTO games VALUES (1, 'rage/d1/t1/r0', ?)", (json.dumps(record),))
    with ArenaDb(arena) as opened:
        try:
            games = list(opened.games())
            board = standings(opened.versions(), tally(games))
        except ConfigError as error:
            assert "a game of round 1 is damaged" in str(error)
        else:
            assert len(games) == 1 and board == []


SQL_VALUES = (st.none() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False)
              | st.text(max_size=12) | st.binary(max_size=8)
              | JSON.map(json.dumps))
VERSION_COLUMNS = ("name", "version", "command", "folder", "sha256", "status", "report",
                   "submitted")


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(column=st.sampled_from(VERSION_COLUMNS), value=SQL_VALUES, tables=SQL_VALUES)
# A command stored as bytes ended `arena run` in a TypeError, and a round's tables that
# are no JSON ended `arena run` and `arena publish` in a JSONDecodeError.
@example(column="command", value=b"\xff\x00", tables="[]")
@example(column="name", value="a", tables="garbage")
@example(column="name", value="a", tables="[[1, 2]]")
def test_any_version_or_round_row_reads_as_such_or_one_config_error(
        tmp_path: Path, column: str, value: object, tables: object) -> None:
    assume(tables is not None and (value is not None or column == "folder"))  # NOT NULL
    arena = tmp_path / "a"
    if not (arena / DB).exists():
        init(arena, Settings("rage", 3))
    with closing(sqlite3.connect(arena / DB)) as db, db:
        db.execute("DELETE FROM versions")
        db.execute("DELETE FROM rounds")
        db.execute("INSERT INTO versions VALUES ('a', 1, 'python bot.py', NULL, 'ab', "
                   "'active', '', '2026-01-01 00:00:00 UTC')")
        db.execute(f"UPDATE versions SET {column} = ?", (value,))
        db.execute("INSERT INTO rounds VALUES (1, ?, 'planned', 'now')", (tables,))
    with ArenaDb(arena) as opened:
        try:
            versions = opened.versions()
        except ConfigError as error:
            assert str(arena / DB) in str(error) and "version" in str(error)
        else:
            for version in versions:
                assert type(version.version) is int and isinstance(version.command, str)
                assert all(isinstance(getattr(version, key), str)
                           for key in VERSION_COLUMNS if key not in ("version", "folder"))
                assert version.folder is None or isinstance(version.folder, str)
        try:
            rounds = opened.rounds()
        except ConfigError as error:
            assert str(arena / DB) in str(error) and "round 1" in str(error)
        else:
            assert all(isinstance(label, str) for played in rounds
                       for table in played.tables for label in table)
