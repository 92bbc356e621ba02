"""A game with no board view (the tests' third game keeps GameDefinition.board's default)
still gets its page: the decisions, their lines and times, and a note for the board."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from tests.cli_support import run_main
from tests.viewer.logs import page_data, view
from tests.viewer.test_playback import open_page

BOT = Path(__file__).parents[1] / "third_game" / "high_card_bot.py"
HIGH = f"stdio:{shlex.quote(sys.executable)} {shlex.quote(str(BOT))}"
LOW = f"{HIGH} low"


def test_a_game_without_a_board_has_a_page_of_its_steps(
        high_card: None, browser: Any, tmp_path: Path) -> None:
    log = tmp_path / "high.jsonl"
    code, _, err = run_main(["play", "high-card", HIGH, LOW, "--seed", "7", "--log", str(log)])
    assert code == 0, err
    page = view(log, tmp_path / "high.html")
    data = page_data(page)
    assert data["states"] == [] and len(data["steps"]) > 2
    tab = open_page(browser, page, step=1)
    assert "has no board view" in tab.text_content("#board")
    assert tab.text_content("#step .answer")
    assert not tab.errors
