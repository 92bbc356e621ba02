"""A `--seat` page holds only what that seat was shown, in its source too: no card
another seat held (however encoded: no hand line, no card list of another seat's hand),
no hidden or secret bid before the engine reveals it, no seed, no other seat's lines.
And `referee view`'s bad input: one error line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.games.thegame.definition import THEGAME
from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input
from tests.viewer.logs import page_data, view


def others_private_lines(records: list[dict[str, Any]], seat: int) -> list[str]:
    """The lines sent to other seats that only they were sent: hands, draws, requests
    (less any the same, word for word, that `seat` was sent too)."""
    private = ("HAND ", "DREW ", "PLAY? ", "BID? ", "TURN? ")
    out = [r for r in records if r.get("type") == "line" and r["dir"] == "out"]
    own = {r["line"] for r in out if r["seat"] == seat}
    return [r["line"] for r in out if r["seat"] != seat and r["line"].startswith(private)
            and r["line"] not in own]


@pytest.mark.parametrize("name", ["hidden", "secret", "rage"])
def test_a_rage_seat_page_holds_no_other_hand_and_no_bid_before_it_is_revealed(
        logs: dict[str, Path], tmp_path: Path, name: str) -> None:
    seat = 1
    page = view(logs[name], tmp_path / "seat.html", "--seat", str(seat))
    source = page.read_text()
    records = read_log(logs[name])
    for line in others_private_lines(records, seat):
        assert json.dumps(line) not in source  # as the page's JSON would hold it
    assert '"seed"' not in source and "python bots/" not in source.replace(
        json.dumps(records[0]["players"][seat]["command"])[1:-1], "")
    data = page_data(page)
    hiding = name != "rage"
    for state in data["states"]:
        for other, hand in enumerate(state["h"]):
            if other != seat:
                assert isinstance(hand, int)  # a count, never the cards
        if hiding and "hb" in state:
            assert all(bid in (None, "?") for other, bid in enumerate(state["b"])
                       if other != seat)
    # bids do show once revealed: before the first trick (hidden), after the round (secret)
    assert any(isinstance(b, int) for state in data["states"] for o, b in enumerate(state["b"])
               if o != seat)
    for step in data["steps"]:
        if step.get("s") not in (None, seat):
            assert set(step) <= {"s", "m", "k"}  # whose turn and its kind, nothing more


def test_a_seat_page_of_the_game_holds_no_other_hand(logs: dict[str, Path],
                                                     tmp_path: Path) -> None:
    seat = 2
    page = view(logs["thegame"], tmp_path / "seat.html", "--seat", str(seat))
    source = page.read_text()
    records = read_log(logs["thegame"])
    for line in others_private_lines(records, seat):
        assert json.dumps(line) not in source
    assert '"seed"' not in source
    header, moves = records[0], [r for r in records if r.get("type") == "move"]
    seen = THEGAME.board(header, moves, [], seat)
    full = THEGAME.board(header, moves, [], None)
    assert seen is not None and full is not None
    for state, whole in zip(seen.states, full.states, strict=True):
        assert state["h"][seat] == whole["h"][seat]
        assert [h for o, h in enumerate(state["h"]) if o != seat] == \
            [len(h) for o, h in enumerate(whole["h"]) if o != seat]  # counts only
        assert {k: v for k, v in state.items() if k != "h"} == \
            {k: v for k, v in whole.items() if k != "h"}


def test_a_faulted_seat_page_ends_at_its_fault(logs: dict[str, Path], tmp_path: Path) -> None:
    data = page_data(view(logs["fault"], tmp_path / "seat.html", "--seat", "1"))
    assert "f" in data["steps"][-2] and "left the game at its fault" in data["steps"][-1]["e"]


def test_bad_input_is_one_error_line(logs: dict[str, Path], tmp_path: Path) -> None:
    not_a_log = tmp_path / "notes.txt"
    not_a_log.write_text("hello\n")
    assert_bad_input(["view", str(not_a_log)], "cannot read log")
    assert_bad_input(["view", str(logs["rage"]), "--seat", "4"], "seats 0 to 3")
    assert_bad_input(["view", str(tmp_path / "absent.jsonl")], "does not exist")
    assert_bad_input(["view", str(logs["rage"]), "-o", str(tmp_path / "no" / "x.html")],
                     "cannot write")
