"""`referee serve` beside a running tournament of sample bots, in Debian's Chromium: the
results page follows the games as they finish, a game in progress grows step by step,
and Ctrl-C stops the server, which leaves nothing behind (docs/viewer.md, "Watching a
running tournament")."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path
from typing import Any

from referee.cli.exit_codes import BAD_USAGE, INTERRUPTED, TERMINATED
from referee.logs.live import WATCHING, watched
from referee.serve.pages import GOES_ON
from tests.cli_support import run_main
from tests.serve.conftest import Tournament, referee, stop, wait_for
from tests.tournaments.output.stored import fake_db

PLAYED = re.compile(r"incomplete: (\d+) of 3 games played")


def games_played(page: Any) -> int:
    """The games the results page counts as played (3: the notice is gone). Read in one
    step in the page: the events may replace the notice between two of the test's reads
    (a notice counted, then gone, left the second read waiting 30 s for it)."""
    text = page.evaluate("""() => {
        const notice = document.querySelector("#notice");
        if (notice) return notice.innerText;
        return document.querySelector("#settings") ? "all played" : ""; }""")
    if text == "all played":
        return 3
    found = PLAYED.search(text)
    return int(found[1]) if found else -1


def newest_step(game: Any) -> tuple[str, str]:
    """The heading and the end words of the game page's newest step, read in one step
    in the page (an update may come between two reads)."""
    game.keyboard.press("End")
    heading, words = game.evaluate("""() => [
        document.querySelector("#step h2")?.innerText ?? "",
        document.querySelector("#step p.end")?.innerText ?? ""]""")
    return str(heading), str(words)


def test_live_results_and_a_game_in_progress(
        server: tuple[subprocess.Popen[str], str], tournament: Tournament,
        browser: Any) -> None:
    process, url = server
    page = browser.new_page()
    page.goto(url)
    played = games_played(page)
    assert played in (0, 1, 2)
    # A game in progress is listed, with its players, and its page is the viewer's.
    link = page.locator("#games a").first
    link.wait_for(timeout=20_000)
    assert "slow_bot" in page.locator("#games li").first.inner_text()
    game = browser.new_page()
    game.goto(url + link.get_attribute("href"))
    game.wait_for_selector("body[data-steps]")
    # Not at the rail (serve --public) while its deal's other rotations are to come.
    public = referee("serve", str(tournament.db), "--port", "0", "--public")
    assert public.stderr is not None
    rail = browser.new_page()
    rail_url = public.stderr.readline().split()[2]
    refused = rail.goto(rail_url + link.get_attribute("href"))
    assert refused is not None and refused.status == 403
    assert "withheld until every game of deal 1 is played" in rail.inner_text("body")
    rail.goto(rail_url)  # its results page lists the game, with why, and no link to it
    rail.wait_for_selector("#games li:has-text('withheld until every game of deal 1')")
    assert rail.locator("#games a").count() == 0
    assert "Live" in game.locator("#live-status").inner_text()
    first = int(game.locator("body").get_attribute("data-steps"))
    # It opens at its newest step, not at the deal, so it follows the game as it is
    # played, with no key pressed; its step count grows.
    wait_for(lambda: int(game.locator("body").get_attribute("data-steps")) > first + 10,
             timeout=20, what="the game's steps to grow")
    steps = int(game.locator("body").get_attribute("data-steps"))
    assert int(game.locator("body").get_attribute("data-step")) >= steps - 2
    assert game.locator("#board .seat, #board [class*=seat]").count() >= 3
    # Its newest step is no end: it is headed as what has been played so far.
    wait_for(lambda: newest_step(game)[1].startswith("the game goes on"), timeout=20,
             what="the newest step of the game in progress")
    assert newest_step(game) == ("So far", GOES_ON)
    # The standings change as games finish, without a reload.
    wait_for(lambda: games_played(page) > played, timeout=30, what="a game to finish")
    assert page.locator("#standings, table").count() >= 2
    # The game's page says when it is over, and then holds its end.
    wait_for(lambda: "over" in game.locator("#live-status").inner_text(), timeout=30,
             what="the game's end")
    game.keyboard.press("End")
    assert "the game is over" in game.locator("#step").inner_text()
    assert newest_step(game) == ("End", "the game is over")
    stop(public)  # it removes the marker the two servers share (it wrote it last)...
    logs = tournament.db.with_name("t-logs")
    wait_for(lambda: watched(logs), timeout=10, what="the organiser's server's marker")
    # The tournament stopped and run again to resume: the same page follows it to its end.
    done = games_played(page)
    assert done < 3
    tournament.resume()
    wait_for(lambda: page.locator("#games a").count() > 0, timeout=20,
             what="a game of the resumed run")
    wait_for(lambda: games_played(page) == 3, timeout=40, what="the resumed run's end")
    assert "none" in page.locator("#games").inner_text()
    # A second server on the same port: one error line.
    port = url.rstrip("/").rsplit(":", 1)[1]
    again = referee("serve", str(tournament.db), "--port", port)
    _, again_err = again.communicate(timeout=30)
    assert again.returncode == BAD_USAGE
    assert again_err == f"referee: error: cannot serve on 127.0.0.1:{port}: address " \
                        "already in use\n"
    code, err = stop(process)
    assert code == INTERRUPTED, err
    assert "Traceback" not in err and err.strip().splitlines() == [
        f"referee: serve: stopped by Ctrl-C; a tournament writing {tournament.db} plays on"]
    live = tournament.db.with_name("t-logs") / "live"
    assert not (live / WATCHING).exists()


def test_a_bad_db_is_one_error_line(tmp_path: Path) -> None:
    for db, words in ((tmp_path / "none.sqlite", "does not exist"),
                      (Path(__file__), "results db")):
        code, _, err = run_main(["serve", str(db), "--port", "0"])
        assert code == BAD_USAGE
        assert len(err.splitlines()) == 1 and err.startswith("referee: error: "), err
        assert words in err


def test_sigterm_stops_the_server_in_one_line(tmp_path: Path) -> None:
    """Stopping is how a server always ends: it says so (not "aborted"), exit 143."""
    db = tmp_path / "t.sqlite"
    fake_db(db)
    process = referee("serve", str(db), "--port", "0")
    assert process.stderr is not None
    serving = process.stderr.readline()  # once it serves
    assert serving.startswith("referee serve: http://127.0.0.1:"), serving
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == TERMINATED, err
    assert err.strip().splitlines() == [
        f"referee: serve: stopped by SIGTERM; a tournament writing {db} plays on"]
