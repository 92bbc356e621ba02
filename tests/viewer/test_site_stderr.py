"""A results site's replay shows a crash's stderr at the crash (docs/viewer.md, "A results
site"): from the game log's fault record, or for a log older than that field, the results
db's. In Chromium, as text; on a seat site only in the crashed seat's own pages. A bot's
page holds its report's summary and its failures by cause, as `referee results --bot`
gives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.registry.game_logs import load_log
from referee.serve.pages import game_page
from referee.viewer.page import SPECTATOR
from tests.cli_support import run_main
from tests.viewer.crash_bot import CRASH_STDERR
from tests.viewer.logs import crash_step, page_data
from tests.viewer.test_playback import open_page
from tournaments.store.results_db import logs_dir


@pytest.fixture
def db(crash_db: Path) -> Path:
    """The crash bot's tournament (tests/viewer/conftest.py), played once a session."""
    return crash_db


def publish(db: Path, name: str, *args: str) -> Path:
    code, _, err = run_main(["publish", str(db), str(db.parent / name), *args])
    assert code == 0, err
    return db.parent / name


def test_the_organisers_replay_shows_the_crash_with_its_stderr(browser: Any,
                                                               db: Path) -> None:
    pages = sorted((publish(db, "site") / "games").glob("*.html"))
    assert len(pages) == 3
    for page in pages:
        index, fault = crash_step(page)
        assert fault["stderr"] == [CRASH_STDERR]
    tab = open_page(browser, pages[0], step=crash_step(pages[0])[0])
    shown = tab.text_content(".fault")
    assert "FAULT: crash" in shown and f"its stderr, last lines:{CRASH_STDERR}" in shown
    assert tab.evaluate("document.querySelectorAll('.fault b').length") == 0
    assert not tab.errors


def test_a_seat_site_shows_a_stderr_to_its_own_seat_alone(db: Path) -> None:
    games = publish(db, "seat-site", "--replays", "seat") / "games"
    crashed = 0
    for page in sorted(games.glob("*.seat*.html")):
        seat = int(page.name.split(".seat")[1].split(".")[0])
        own = [f for s in page_data(page)["steps"] for f in s.get("f", [])
               if f["seat"] == seat and f["kind"] == "crash"]
        if own:
            crashed += 1
            assert own[0]["stderr"] == [CRASH_STDERR]
        else:
            assert "boom" not in page.read_text()
    assert crashed == 3


def test_a_bot_page_holds_its_report_summary_and_failures(browser: Any, db: Path) -> None:
    site = publish(db, "report-site", "--replays", "none")
    tab = open_page_plain(browser, site / "bots" / "crash.html")
    summary = tab.locator("#summary tbody tr").inner_text().split("\t")
    assert summary == ["3", "0", "n/a", "3rd 3", "crash 3"]
    causes = tab.locator("#fault_summary tbody tr")
    assert causes.count() == 1
    assert causes.first.inner_text().split("\t")[:3] == ["crash", "crash", "3"]
    assert CRASH_STDERR in causes.first.inner_text()
    clean = open_page_plain(browser, site / "bots" / "rage_heuristic.html")
    assert clean.locator("#summary tbody tr td").last.inner_text() == "none"
    assert clean.locator("#fault_summary").count() == 0


def open_page_plain(browser: Any, page: Path) -> Any:
    tab = browser.new_page()
    tab.goto(page.as_uri())
    return tab


def test_serves_finished_games_show_the_logged_stderr_to_the_organiser_alone(db: Path) -> None:
    """A tournament's game log carries the crash's stderr itself (docs/game-log.md), so
    `referee serve`'s page of a finished game shows it with no db at hand; `--public`'s
    spectator page does not."""
    logs = sorted(logs_dir(db).glob("*.jsonl.gz"))
    assert len(logs) == 3
    for log in logs:
        records = load_log(log)
        organisers = game_page(records, False, None, None)
        assert json.dumps(CRASH_STDERR).replace("<", "\\u003c") in organisers
        assert "boom" not in game_page(records, False, None, SPECTATOR)
