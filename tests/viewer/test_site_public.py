"""`referee publish DB DIR --public` (docs/viewer.md, "A results site"): a site for anyone,
as `referee serve --public` shows a tournament. No page holds a bot's stderr or where the
bots' files are on the organiser's machine, and each replay is the spectator's: no hand,
no bot's line, each decision only as its move. The faults are still listed, each linked
to its game's replay. The organiser's site of the same db holds all of that (the checks
can fail)."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input, run_main
from tests.serve.test_public import spectators_only
from tests.viewer.crash_bot import CRASH_STDERR
from tests.viewer.logs import HEURISTIC, RANDOM, ROOT
from tests.viewer.test_site_stderr import publish
from tournaments.site.layout import Manifest, ReplayMode
from tournaments.store.results_db import logs_dir

CRASH_SCRIPT = Path(__file__).with_name("crash_bot.py")
PATHS = (str(CRASH_SCRIPT), "bots/rage_random.py", "bots/rage_heuristic.py")


@pytest.fixture
def db(crash_db: Path) -> Path:
    """The crash bot's tournament (tests/viewer/conftest.py), played once a session."""
    return crash_db


def every_page(site: Path) -> str:
    return "\n".join(page.read_text() for page in sorted(site.rglob("*.html")))


def test_a_public_site_holds_no_stderr_or_path(db: Path) -> None:
    organisers = every_page(publish(db, "organisers-site"))
    public = every_page(publish(db, "public", "--public"))
    assert "boom" in organisers and "boom" not in public  # CRASH_STDERR, escaped or not
    for path in PATHS:
        assert path in organisers and path not in public
    assert "crash" in public and "Faults by bot and cause" in public
    assert "Replays show each game as a spectator saw it" in public


def test_its_replays_are_the_spectators(db: Path) -> None:
    site = publish(db, "public-replays", "--public")
    pages = sorted((site / "games").glob("*.html"))
    logs = {path.name.removesuffix(".jsonl.gz"): path
            for path in logs_dir(db).glob("*.jsonl.gz")}
    assert len(pages) == 3 and len(logs) == 3
    for page in pages:
        records = read_log(logs[page.name.removesuffix(".html")])
        spectators_only(page.read_text(), records)
    manifest = Manifest.read(site)
    assert manifest is not None and manifest.written_as(ReplayMode.SPECTATOR, True)


def test_a_bot_page_links_each_fault_to_its_games_replay(browser: Any, db: Path) -> None:
    site = publish(db, "public-links", "--public")
    tab = browser.new_page()
    tab.goto((site / "bots" / "crash.html").as_uri())
    links = tab.eval_on_selector_all("#bot_faults a", "links => links.map(a => a.href)")
    games = {link.split("#")[0] for link in links}  # its game, and the game at the fault
    assert len(games) == 3 and all("/games/" in link for link in games), links
    tab.goto(links[0])
    assert "as a spectator saw it" in (tab.text_content("body") or "")
    assert CRASH_STDERR not in (tab.text_content("body") or "")


def test_public_takes_no_replay_that_shows_hands(db: Path, tmp_path: Path) -> None:
    for replays in ("all", "seat"):
        assert_bad_input(["publish", str(db), str(tmp_path / replays), "--public",
                          "--replays", replays], "--public", replays)
        assert not (tmp_path / replays).exists()
    assert not list(publish(db, "public-none", "--public", "--replays", "none")
                    .joinpath("games").iterdir())



def test_a_public_site_names_no_card_of_an_illegal_move(tmp_path: Path) -> None:
    """The detail of an illegal move names the seat's cards, and its line is one: the
    organiser's pages show both (a bot's page too, in its games' fault column), a
    public site neither (tournaments/output/public.py)."""
    cheat = ROOT / "tests" / "referee" / "fault_bots" / "rage_cheat.py"
    db = tmp_path / "c.sqlite"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        code, _, err = run_main(["tournament", "rage", RANDOM, HEURISTIC,
                                 f"cheat=stdio:{sys.executable} {cheat} illegal",
                                 "--sandbox", "off", "--db", str(db)])
    assert code == 0, err
    organisers = every_page(publish(db, "site"))
    public = every_page(publish(db, "public", "--public", "--replays", "none"))
    bot_page = (db.parent / "site" / "bots" / "cheat.html").read_text()
    assert "(legal: " in bot_page and "(line: " in bot_page and "(legal: " in organisers
    assert "(legal: " not in public and "(line: " not in public and "it holds" not in public
    assert "an illegal move (which cards: not on a public page)" in public


def test_a_public_site_has_no_replay_of_a_deal_not_played_in_full(db: Path,
                                                                  tmp_path: Path) -> None:
    """Mid-tournament, two of the deal's three rotations played: each is dealt the cards of
    the third, so neither has a replay; the organiser's site has both."""
    partial = tmp_path / "r.sqlite"
    shutil.copy(db, partial)
    shutil.copytree(logs_dir(db), logs_dir(partial))
    with sqlite3.connect(partial) as connection:
        connection.execute("DELETE FROM games WHERE fixture_id = 'rage/d01/t01/r2'")
    code, _, err = run_main(["publish", str(partial), str(tmp_path / "public"), "--public"])
    assert code == 0, err
    assert "no replay of 2 games (--public): their deals are not played in full" in err
    assert not list((tmp_path / "public" / "games").iterdir())
    assert 'href="games/' not in every_page(tmp_path / "public")  # no link to none
    organisers = publish(partial, "organisers")
    assert len(list((organisers / "games").iterdir())) == 2
