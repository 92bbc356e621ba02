"""A fault's stderr in `referee serve`: a finished game whose log is older than its fault
records' `stderr` gets it from the results db (as `referee publish` does: one function,
referee/viewer/page_faults.py), and a game in progress shows it as soon as the referee
knows it (referee/logs/live.py, LIVE_STDERR), not at the game's end. The organiser sees
every seat's, a seat its own alone, and `serve --public` none: in its pages' source and
event streams too. Real tournaments with a real crashing bot, a real `referee serve`,
the pages in Chromium."""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.logs.live import WATCHING, live_folder
from referee.registry.game_logs import load_log
from referee.serve.pages import live_page
from tests.serve.conftest import SLOW, referee, stop, wait_for
from tests.viewer.crash_bot import CRASH_STDERR

CRASH = f"stdio:{shlex.quote(sys.executable)} " \
        f"{shlex.quote(str(Path(__file__).parents[1] / 'viewer' / 'crash_bot.py'))}"
DATA = re.compile(r'<script type="application/json" id="game-data">(.*?)</script>', re.S)
# What of the crash bot's stderr a page may show: its words, however encoded.
STDERR_WORDS = ("boom", "request 3")


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return str(answer.read().decode("utf-8"))


def _data(source: str) -> dict[str, Any]:
    found = DATA.search(source)
    assert found is not None
    data: dict[str, Any] = json.loads(found[1])
    return data


def _shown_stderr(data: dict[str, Any]) -> dict[int, list[str]]:
    """Per seat, the stderr lines the page data holds at its fault."""
    return {int(fault["seat"]): fault["stderr"] for step in data["steps"]
            for fault in step.get("f", []) if "stderr" in fault}


def _no_stderr(source: str) -> None:
    for words in STDERR_WORDS:
        assert words not in source


def _serve(db: Path, *options: str) -> tuple[Any, str]:
    server = referee("serve", str(db), "--port", "0", *options)
    assert server.stderr is not None
    line = server.stderr.readline()
    assert line.startswith("referee serve: http://127.0.0.1:"), line
    return server, line.split()[2]


def _events(url: str) -> str:
    """A finished game's event stream, whole (it ends with `over`)."""
    with urllib.request.urlopen(url, timeout=30) as answer:
        return str(answer.read().decode("utf-8"))


def _without_stderr(log: Path) -> None:
    """The log as a referee wrote it before fault records held `stderr`."""
    kept = []
    for line in gzip.decompress(log.read_bytes()).decode().splitlines():
        value = json.loads(line)
        if isinstance(value, dict) and value.get("type") == "fault":
            value.pop("stderr", None)
            line = json.dumps(value, separators=(",", ":"))
        kept.append(line)
    log.write_bytes(gzip.compress(("\n".join(kept) + "\n").encode()))


@pytest.fixture(scope="module")
def old_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A played Rage tournament (3 games) whose crash bot dies in each game, its logs
    then made as old ones are: no fault record holds its stderr; the db's records do."""
    db = tmp_path_factory.mktemp("old-logs") / "t.sqlite"
    played = referee("tournament", "rage", "python bots/rage_random.py",
                     "python bots/rage_heuristic.py", CRASH, "--deals", "1",
                     "--sandbox", "off", "--db", str(db))
    assert played.wait(120) == 0, played.communicate()
    for log in db.with_name("t-logs").glob("*.jsonl.gz"):
        _without_stderr(log)
    yield db


def test_an_old_logs_finished_game_shows_the_dbs_stderr_to_the_organiser_alone(
        old_logs: Path, browser: Any) -> None:
    logs = sorted(old_logs.with_name("t-logs").glob("*.jsonl.gz"))
    keys = [log.name.removesuffix(".jsonl.gz") for log in logs]
    assert len(keys) == 3
    organiser, url = _serve(old_logs)
    public, public_url = _serve(old_logs, "--public")
    try:
        for key in keys:
            data = _data(_get(f"{url}game/{key}"))
            [(seat, lines)] = _shown_stderr(data).items()
            assert data["players"][seat]["name"] == "crash_bot" and lines == [CRASH_STDERR]
            events = _events(f"{url}game/{key}/events")  # a page open as the game ended
            assert CRASH_STDERR in events  # its data: JSON, where markup is as it is
            source = _get(f"{public_url}game/{key}")
            assert _data(source)["seat"] == -1
            _no_stderr(source)
            _no_stderr(_events(f"{public_url}game/{key}/events"))
        tab = browser.new_page(viewport={"width": 1300, "height": 900})
        tab.goto(f"{url}game/{keys[0]}")
        tab.wait_for_selector("body[data-ready='1']")
        tab.click("#next-fault")
        shown = tab.wait_for_selector(".fault pre.stderr")
        assert shown.text_content() == CRASH_STDERR  # the markup as text
        assert tab.locator(".fault b").count() == 0
        tab.close()
    finally:
        stop(organiser)
        stop(public)


def test_a_seats_own_page_holds_its_own_stderr_from_the_db_and_no_other(
        old_logs: Path) -> None:
    """serve shows the organiser's page or the spectator's; a seat's (as publish --replays
    seat makes it) goes through the same function."""
    log = sorted(old_logs.with_name("t-logs").glob("*.jsonl.gz"))[0]
    records = load_log(log)
    crashed = next(r["seat"] for r in records if r.get("type") == "fault")
    stderr = {crashed: (CRASH_STDERR,)}
    assert not _shown_stderr(live_page(records, False, None).data)  # the log holds none
    assert _shown_stderr(live_page(records, False, None, stderr).data) == \
        {crashed: [CRASH_STDERR]}
    assert _shown_stderr(live_page(records, False, crashed, stderr).data) == \
        {crashed: [CRASH_STDERR]}
    other = (crashed + 1) % 3
    _no_stderr(json.dumps(live_page(records, False, other, stderr).data))
    _no_stderr(json.dumps(live_page(records, False, -1, stderr).data))


def test_a_game_in_progress_shows_the_crashs_stderr_before_it_ends(
        tmp_path: Path, browser: Any) -> None:
    """The crash bot dies at its third request; two slow bots play on for seconds: the
    live page shows its stderr while the game is still on, pushed to an open page."""
    db = tmp_path / "t.sqlite"
    live = live_folder(tmp_path / "t-logs")
    live.mkdir(parents=True)  # a watcher from the first game on (serve needs the db)
    (live / WATCHING).write_text(f"{os.getpid()}\n")
    tournament = referee("tournament", "rage", f"{SLOW} 0.03", f"{SLOW} 0.03", CRASH,
                         "--db", str(db), "--sandbox", "off", "--jobs", "1")
    wait_for(lambda: db.exists() or tournament.poll() is not None, what="the db")
    organiser, url = _serve(db)
    public, public_url = _serve(db, "--public")
    try:
        wait_for(lambda: any(live.glob("*.live")), what="a game in progress")
        key = next(live.glob("*.live")).name.split(".jsonl")[0]
        tab = browser.new_page(viewport={"width": 1300, "height": 900})
        tab.goto(f"{url}game/{key}")
        tab.wait_for_selector("body[data-ready='1']")
        tab.wait_for_selector(".fault-mark")  # its fault, pushed or already there
        tab.click("#next-fault")
        tab.wait_for_function(
            "(text) => [...document.querySelectorAll('.fault pre.stderr')]"
            ".some((pre) => pre.textContent === text)", arg=CRASH_STDERR)
        status = tab.text_content("#live-status")
        tab.close()
        assert status == "Live: the game is being played"
        page = _data(_get(f"{url}game/{key}"))
        assert page.get("live") == f"/game/{key}/events"  # still on, and shown
        assert list(_shown_stderr(page).values()) == [[CRASH_STDERR]]
        with pytest.raises(urllib.error.HTTPError) as refused:  # its deal is not over
            _get(f"{public_url}game/{key}")
        assert refused.value.code == 403
        _no_stderr(refused.value.read().decode())
    finally:
        stop(tournament)
        stop(organiser)
        stop(public)
