"""A log is untrusted input, and the viewer derives a board from it: whatever a readable
log holds (a record's field replaced by any JSON value, records dropped or repeated, as an
edited log or one written without derivation may hold), `referee view` makes a page or
refuses the log in one line (ConfigError), and no text from the log can end the page's
data block and run as script. Fuzzed with hypothesis over real games of both games;
browser-free, so it runs fast."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee.errors import ConfigError
from referee.registry.game_logs import read_log
from referee.viewer.page import build, html
from tests.viewer.logs import HEURISTIC, RANDOM, ROOT, TG_HEURISTIC, play

# Any JSON value, with text that tries to leave the data block or the page's markup.
HOSTILE_TEXT = st.sampled_from(["</script><script>alert(1)</script>", "<!--", "]]>",
                                "\u2028", "\x00", "-1", "999999999999", ""]) | st.text()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE_TEXT, inner,
                                                                 max_size=4),
    max_leaves=12)
SCRIPT_ENDS = 3  # the template's own: the data block, the board's script, the viewer's


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("hostile")
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        rage = play(folder / "rage.jsonl", "rage", RANDOM, HEURISTIC, RANDOM, "--seed", "2",
                    "--variant", "hidden-bid")
        thegame = play(folder / "thegame.jsonl", "thegame", TG_HEURISTIC, TG_HEURISTIC,
                       "--seed", "5")
        plain = play(folder / "plain.jsonl", "thegame", "--no-commands", TG_HEURISTIC,
                     TG_HEURISTIC, "--seed", "6")
    finally:
        os.chdir(here)
    return {"rage": read_log(rage), "thegame": read_log(thegame),
            "thegame --no-commands": read_log(plain)}


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[str, int, Any, Any]]:
    """A few edits: (what, which record, key, value), the record's index taken modulo."""
    edit = st.tuples(st.sampled_from(["set", "drop", "repeat"]), st.integers(0, 10_000),
                     st.sampled_from(["seat", "move", "kind", "by", "line", "detail",
                                      "players", "settings", "name", "seed", "us", "dir",
                                      "type", "scores", "reason"]) | HOSTILE_TEXT, JSON)
    return draw(st.lists(edit, min_size=1, max_size=4))


def edited(records: list[dict[str, Any]], changes: list[tuple[str, int, Any, Any]]
           ) -> list[dict[str, Any]]:
    records = copy.deepcopy(records)
    for what, index, key, value in changes:
        at = index % len(records)
        if what == "set":
            records[at][key] = value
        elif what == "drop" and at > 0:  # the reader refuses a log with no header itself
            del records[at]
        elif what == "repeat":
            records.insert(at, copy.deepcopy(records[at]))
    return records


def assert_page_or_one_line(records: list[dict[str, Any]], seat: int | None) -> None:
    try:
        page = build(records, seat)
    except ConfigError as error:
        assert "\n" not in str(error)
        return
    text = html(page)
    # The data block is the first script: log text inside it is escaped, so the page
    # holds the template's script ends and no other.
    assert text.count("</script>") == SCRIPT_ENDS
    assert "<script>alert(1)" not in text


@pytest.mark.parametrize("game", ["rage", "thegame"])
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=edits(), seat=st.sampled_from([None, 0, 1]))
def test_an_edited_log_makes_a_page_or_one_error_line(
        games: dict[str, list[dict[str, Any]]], game: str,
        changes: list[tuple[str, int, Any, Any]], seat: int | None) -> None:
    assert_page_or_one_line(edited(games[game], changes), seat)


def test_the_unedited_logs_make_pages(games: dict[str, list[dict[str, Any]]]) -> None:
    """The fuzz's control: without edits both games (The Game without commands too)
    make pages for every eye."""
    for records in games.values():
        for seat in (None, 0, 1):
            assert html(build(records, seat)).count("</script>") == SCRIPT_ENDS


def test_only_lt_is_escaped_in_the_data_block() -> None:
    """`<` alone can end the data block or change how it is read (`</script`, `<!--`);
    `&` and `>` are raw text there. Escaping them too made a page of hostile LOG lines
    (`<&x` again and again, from 4 bots) 375 KB, over the 300 KB of a Rage page."""
    from referee.viewer.page import _embedded
    text = _embedded({"log": "<&>" * 100})
    assert text == '{"log":"' + "\\u003c&>" * 100 + '"}'
    assert json.loads(text) == {"log": "<&>" * 100}
