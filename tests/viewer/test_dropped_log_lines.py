"""A bot that sends more LOG lines than the game log keeps (docs/game-log.md, "The LOG
budget"): the page says how many were dropped, beside the player, so that its later
steps, which show none, do not read as a bot that went quiet. A seat's page says so of
its own lines alone."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.registry.game_logs import read_log
from tests.viewer.logs import HEURISTIC, RANDOM, ROOT, page_data, play, view
from tests.viewer.test_playback import open_page

CHATTY = """\
import os, sys
print("HELLO 2 " + os.environ["REFEREE_TOKEN"] + " chatty 1.0", flush=True)
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["BYE"]:
        break
    if words and words[0].endswith("?"):
        for i in range(16):
            print("LOG", i, "x" * 2000)
        print(words[1], flush=True)
"""


def test_dropped_log_lines_are_counted_beside_the_player(
        browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tmp_path / "chatty.py"
    bot.write_text(CHATTY)
    monkeypatch.chdir(ROOT)
    log = play(tmp_path / "chatty.jsonl", "rage", RANDOM,
               f"stdio:{shlex.quote(sys.executable)} {shlex.quote(str(bot))}", HEURISTIC,
               "--seed", "6")
    [dropped] = [r for r in read_log(log) if r.get("type") == "dropped"]
    assert dropped["seat"] == 1 and dropped["lines"] > 0
    page = view(log, tmp_path / "chatty.html")
    players = page_data(page)["players"]
    assert players[1]["dropped"] == [dropped["lines"], dropped["bytes"]]
    assert all("dropped" not in p for i, p in enumerate(players) if i != 1)
    tab = open_page(browser, page)
    assert tab.locator(".roster .dropped").inner_text() == (
        f"{dropped['lines']} LOG lines ({dropped['bytes']} bytes) past the log's budget "
        "were not kept: later steps show none of them")
    assert not tab.errors
    own = page_data(view(log, tmp_path / "seat1.html", "--seat", "1"))["players"]
    other = page_data(view(log, tmp_path / "seat0.html", "--seat", "0"))["players"]
    assert own[1]["dropped"] == players[1]["dropped"]
    assert all("dropped" not in p for p in other)
