"""The server's updates to a live game's page (referee/serve/pages.py): applied as the
viewer applies them, they give the new page's steps and states; and a live file is read
up to its last whole line (its writer may be mid-line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from referee.serve.live_games import read_values
from referee.serve.pages import update

items = st.lists(st.integers(0, 3), max_size=8)


def _applied(old: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """viewer.js's splice: everything from `from` replaced."""
    return {"steps": old["steps"][:change["from"]] + change["steps"],
            "states": old["states"][:change["sfrom"]] + change["states"]}


@given(items, items, items, items)
def test_an_update_turns_the_old_page_into_the_new(old_steps: list[int], new_steps: list[int],
                                                   old_states: list[int],
                                                   new_states: list[int]) -> None:
    old = {"steps": old_steps, "states": old_states}
    new = {"steps": new_steps, "states": new_states}
    change = update(old, new, on=True)
    if change is None:
        assert old == new
    else:
        assert _applied(old, change) == new
        assert change["from"] == len(old_steps) or old_steps[change["from"]] != \
            (new_steps + [None])[change["from"]]
    assert update(old, new, on=False) is not None  # the end is always sent


def test_a_live_file_reads_up_to_its_last_whole_line(tmp_path: Path) -> None:
    live = tmp_path / "g.live"
    live.write_bytes(b'{"type":"game"}\n[null,"0",null]\n[null,"1')
    assert read_values(live) == [{"type": "game"}, [None, "0", None]]
    live.write_bytes(b'{"type":"ga')
    assert read_values(live) is None
    assert read_values(tmp_path / "gone.live") is None
