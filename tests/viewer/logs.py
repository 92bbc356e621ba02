"""Game logs for the viewer's tests, played by the sample bots, and the page's data."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from tests.cli_support import run_main

ROOT = Path(__file__).resolve().parents[2]
MARKUP_BOT = f"stdio:{shlex.quote(sys.executable)} " \
             f"{shlex.quote(str(Path(__file__).with_name('markup_bot.py')))}"
RANDOM, HEURISTIC = "python bots/rage_random.py", "python bots/rage_heuristic.py"
TG_HEURISTIC, TG_RANDOM = "python bots/thegame_heuristic.py", "python bots/thegame_random.py"


def play(log: Path, *args: str) -> Path:
    """`referee play ARGS --log LOG`, from the repository's root (the bots' paths)."""
    code, _, err = run_main(["play", *args, "--sandbox", "off", "--log", str(log)])
    assert code == 0, err
    return log


def view(log: Path, page: Path, *args: str) -> Path:
    code, _, err = run_main(["view", str(log), "-o", str(page), *args])
    assert code == 0, err
    return page


def page_data(page: Path) -> dict[str, Any]:
    """The JSON a page embeds."""
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>',
                      page.read_text(), re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found[1])
    return data


def crash_step(page: Path) -> tuple[int, dict[str, Any]]:
    """The step that shows the crash, and its fault as the page holds it."""
    for index, step in enumerate(page_data(page)["steps"]):
        for fault in step.get("f", []):
            if fault["kind"] == "crash":
                return index, fault
    raise AssertionError(f"no crash in {page}")
