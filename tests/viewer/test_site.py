"""`referee publish DB DIR` (docs/viewer.md, "A results site") in Chromium: the index
shows what the db holds, a bot's page its games and faults, a fault's link opens the
replay at its step, a seat site holds no other seat's cards, and text from bots stays
text. One small tournament (3 games, a bot that faults in each) for the module."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from referee.games.rage.definition import RAGE
from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input, run_main
from tests.tournaments.output.stored import fake_db
from tests.viewer.logs import HEURISTIC, MARKUP_BOT, RANDOM, ROOT, page_data
from tests.viewer.markup_bot import MARKUP_REPLY
from tests.viewer.test_seat_pages import others_private_lines

EVIL = "evil"  # the bot whose 12th reply is markup: a fault in every game


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("site") / "r.sqlite"
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        code, _, err = run_main(["tournament", "rage", RANDOM, HEURISTIC,
                                 f"{EVIL}={MARKUP_BOT} 12", "--sandbox", "off",
                                 "--db", str(path)])
    finally:
        os.chdir(here)
    assert code == 0, err
    return path


def publish(db: Path, folder: Path, *args: str) -> Path:
    code, _, err = run_main(["publish", str(db), str(folder), *args])
    assert code == 0, err
    return folder


@pytest.fixture(scope="module")
def site(db: Path) -> Path:
    return publish(db, db.parent / "site")


@pytest.fixture(scope="module")
def seat_site(db: Path) -> Path:
    return publish(db, db.parent / "seat-site", "--replays", "seat")


def results_json(db: Path) -> dict[str, Any]:
    code, out, err = run_main(["results", str(db), "--format", "json"])
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def rows(page: Any, table: str) -> list[list[str]]:
    found: list[list[str]] = page.eval_on_selector_all(
        f"#{table} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    return found


def test_the_index_shows_the_standings_the_db_holds(browser: Any, db: Path,
                                                    site: Path) -> None:
    tables = results_json(db)["tables"]
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    shown = rows(page, "standings")
    stored = tables["standings"]["rows"]
    assert [(row[0], row[1], row[2]) for row in shown] == \
        [(str(r["rank"]), r["bot"], str(r["games"])) for r in stored]
    assert [row[0] for row in rows(page, "head_to_head")] == [r["bot"] for r in stored]
    assert len(rows(page, "faults")) == 3
    # every bot's name links to its page, and every page linked is there
    hrefs = page.eval_on_selector_all("a", "links => links.map(a => a.getAttribute('href'))")
    assert {f"bots/{r['bot']}.html" for r in stored} <= set(hrefs)
    assert all((site / href.split("#")[0]).is_file() for href in hrefs)
    page.close()


def test_a_bot_page_lists_its_games_and_faults(browser: Any, db: Path, site: Path) -> None:
    stored = results_json(db)["tables"]["standings"]["rows"]
    page = browser.new_page()
    page.goto((site / "bots" / f"{EVIL}.html").as_uri())
    games = rows(page, "bot_games")
    assert len(games) == next(r["games"] for r in stored if r["bot"] == EVIL) == 3
    assert [row[1] for row in rows(page, "standings")] == [EVIL]
    faults = rows(page, "bot_faults")
    assert len(faults) == 3 and all(row[2] == "protocol" for row in faults)
    assert all(row[-1].isdigit() for row in faults)  # the step in its replay
    page.close()


def test_a_fault_link_opens_the_replay_at_its_step(browser: Any, site: Path) -> None:
    page = browser.new_page()
    page.goto((site / "bots" / f"{EVIL}.html").as_uri())
    step = rows(page, "bot_faults")[0][-1]
    page.click("#bot_faults tbody tr:first-child td:last-child a")
    page.wait_for_selector("body[data-ready='1']")
    assert page.url.endswith(f".html#step={step}")
    assert page.evaluate("document.body.dataset.step") == step
    fault = page.locator(".fault")
    assert fault.count() == 1 and fault.first.is_visible()
    assert "FAULT: protocol" in fault.first.text_content()
    page.click("nav.site a")  # back to the site
    assert page.url.endswith("/index.html") and page.locator("#standings").count() == 1
    page.close()


def test_seat_pages_hold_no_other_seats_hidden_cards(seat_site: Path, db: Path) -> None:
    pages = sorted((seat_site / "games").glob("*.seat*.html"))
    assert len(pages) == 9 and not [p for p in (seat_site / "games").glob("*.html")
                                    if ".seat" not in p.name]
    logs = {log.name.split(".")[0]: log for log in (db.parent / "r-logs").glob("*.jsonl*")}
    for page in pages:
        game, seat = page.name.split(".seat")
        records = read_log(logs[game])
        source = page.read_text()
        hidden = others_private_lines(records, int(seat.removesuffix(".html")))
        assert hidden and not [line for line in hidden if json.dumps(line) in source]
        assert page_data(page)["seat"] == int(seat.removesuffix(".html"))


def test_a_bot_page_of_a_seat_site_links_to_that_bots_own_seats(browser: Any,
                                                                 seat_site: Path) -> None:
    page = browser.new_page()
    page.goto((seat_site / "bots" / f"{EVIL}.html").as_uri())
    links = page.eval_on_selector_all(
        "#bot_games tbody tr", "rows => rows.map(r => [r.cells[1].textContent, "
        "r.cells[0].querySelector('a').getAttribute('href')])")
    assert len(links) == 3
    assert all(href.endswith(f".seat{seat}.html") for seat, href in links)
    page.close()


def test_text_from_bots_is_text(browser: Any, site: Path) -> None:
    """Bot names cannot hold markup (tournaments/spec/definition.py, BOT_NAME); the
    offending line and the fault's detail, the bot's own text, can."""
    page = browser.new_page()
    for name in ("index.html", f"bots/{EVIL}.html"):
        page.goto((site / name).as_uri())
        assert page.locator("table i").count() == 0
        cells = page.eval_on_selector_all("td.line", "cells => cells.map(c => c.textContent)")
        assert cells and all(MARKUP_REPLY in cell for cell in cells)
    page.close()


def test_publishing_again_replaces_the_site_and_keeps_other_files(db: Path,
                                                                  tmp_path: Path) -> None:
    folder = publish(db, tmp_path / "site")
    (folder / "notes.txt").write_text("mine")
    (folder / "games" / "mine.html").write_text("mine")
    organiser = sorted(p.name for p in (folder / "games").glob("rage_*.html"))
    assert len(organiser) == 3
    publish(db, folder, "--replays", "seat")
    after = sorted(p.name for p in (folder / "games").glob("rage_*.html"))
    assert len(after) == 9 and not set(organiser) & set(after)
    publish(db, folder, "--replays", "none")
    assert not list((folder / "games").glob("rage_*.html"))
    assert (folder / "notes.txt").read_text() == (folder / "games" / "mine.html").read_text()
    assert (folder / "index.html").is_file() and (folder / "bots" / f"{EVIL}.html").is_file()


def test_results_html_links_to_a_published_site(db: Path, site: Path) -> None:
    code, out, err = run_main(["results", str(db), "--format", "html",
                               "--replays-dir", str(site)])
    assert code == 0, err
    assert f'href="{site.as_posix()}/bots/{EVIL}.html"' in out
    assert f'href="{site.as_posix()}/games/rage_d01_t01_r0.html#step=' in out
    assert_bad_input(["results", str(db), "--format", "html", "--replays-dir",
                      str(db.parent)], "holds no site")
    assert_bad_input(["results", str(db), "--replays-dir", str(site)], "--format html")


def test_bad_input_is_one_error_line(db: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("not a database")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (a)")
    conn.close()
    assert_bad_input(["publish", str(text), str(tmp_path / "a")], "not a results db")
    assert_bad_input(["publish", str(other), str(tmp_path / "b")], "not a results db")
    assert_bad_input(["publish", str(tmp_path / "none.sqlite"), str(tmp_path / "c")])
    assert_bad_input(["publish", str(db), str(text)], "is a file")
    assert_bad_input(["publish", str(db), str(text / "site")], "cannot make")
    assert_bad_input(["publish", str(db), str(tmp_path / "d"), "--replays", "some"])
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_game_whose_log_is_gone_is_listed_without_a_replay(db: Path,
                                                              tmp_path: Path) -> None:
    shutil.copy(db, tmp_path / db.name)
    logs = sorted((db.parent / "r-logs").glob("*.jsonl*"))
    (tmp_path / "r-logs").mkdir()
    for log in logs[1:]:
        shutil.copy(log, tmp_path / "r-logs" / log.name)
    code, _, err = run_main(["publish", str(tmp_path / db.name), str(tmp_path / "site")])
    assert code == 0, err
    gone = [line for line in err.splitlines() if line.startswith("referee: no replay of")]
    assert len(gone) == 1 and "rage/d01/t01/r0" in gone[0]
    index = (tmp_path / "site" / "index.html").read_text()
    assert "rage/d01/t01/r0</td>" in index and "rage/d01/t01/r1</a>" in index
    assert len(list((tmp_path / "site" / "games").iterdir())) == 2


def test_a_manifest_links_only_to_the_sites_own_pages(db: Path, tmp_path: Path) -> None:
    """`--replays-dir` takes its links from DIR's manifest, a file anyone could edit:
    a link that is not one of the site's pages makes it no site."""
    folder = publish(db, tmp_path / "site")
    manifest = folder / ".referee-site.json"
    data = json.loads(manifest.read_text())
    game = next(iter(data["replays"]))
    data["replays"][game]["all"]["href"] = "javascript:alert(1)"
    manifest.write_text(json.dumps(data))
    assert_bad_input(["results", str(db), "--format", "html", "--replays-dir",
                      str(folder)], "holds no site")


def test_a_gauntlet_site_shows_candidates_against_references(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite"
    fake_db(db, RAGE, n_bots=5, references=2, size=3)  # records without logs: no replays
    folder = publish(db, tmp_path / "site")
    index = (folder / "index.html").read_text()
    crosstable = index[index.index('<table id="head_to_head">'):]
    crosstable = crosstable[:crosstable.index("</table>")]
    head = crosstable[crosstable.index("<thead>"):crosstable.index("</thead>")]
    assert ">d</th>" in head and ">e</th>" in head and ">a</th>" not in head
    assert crosstable.count("<tr>") == 4 and "n/a" not in crosstable  # head + a, b, c
    reference = (folder / "bots" / "d.html").read_text()
    assert '<table id="references">' in reference and 'bots/d.html">d</a>' in reference
