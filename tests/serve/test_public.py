"""`referee serve --public`: every game as a spectator sees it, for a live view that
contestants reach while their remote bots play. The page's source holds no card of any
hand, no bid before the engine reveals it, no seed, no bot's line, command or LOG line:
each decision is only whose it was and its kind. Without --public, an address other than
loopback is served with a warning line."""

from __future__ import annotations

import json
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from referee.registry.game_logs import read_log
from referee.serve.pages import game_page, results_html
from referee.viewer.page import SPECTATOR
from tests.serve.conftest import Tournament, referee, stop, wait_for
from tests.viewer.test_seat_pages import others_private_lines

DATA = re.compile(r'<script type="application/json" id="game-data">(.*?)</script>', re.S)


def spectators_only(source: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Asserts the page `source` shows the game of `records` as from the rail; its data."""
    for line in others_private_lines(records, SPECTATOR):  # every seat's, then
        assert json.dumps(line) not in source
    for player in records[0]["players"]:
        assert json.dumps(player["command"]) not in source
    found = DATA.search(source)
    assert found is not None and '"seed"' not in source
    data: dict[str, Any] = json.loads(found[1])
    assert data["seat"] == SPECTATOR and "spectator" in data["heading"]
    assert all(set(player) == {"name"} for player in data["players"])
    for state in data["states"]:
        assert all(isinstance(hand, int) for hand in state["h"])  # counts, never cards
        assert not state.get("say", "").startswith("hints ")  # The Game's: maybe a card
        if "hb" in state:
            assert all(bid in (None, "?") for bid in state["b"])
    for step in data["steps"]:
        if step.get("s") is not None:
            assert set(step) <= {"s", "m", "k"}  # whose turn and its kind, nothing more
        assert "LOG" not in json.dumps(step.get("t", []))
    return data


@pytest.mark.parametrize("name", ["hidden", "secret", "thegame", "fault"])
def test_a_spectators_page_holds_no_hand_bid_line_or_seed(
        logs: dict[str, Path], name: str) -> None:
    records = read_log(logs[name])
    data = spectators_only(game_page(records, False, None, SPECTATOR), records)
    assert sum(1 for step in data["steps"] if step.get("s") is not None) > 10
    organisers = game_page(records, False, None, None)
    assert any(json.dumps(line) in organisers
               for line in others_private_lines(records, SPECTATOR))  # the check can fail


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return str(answer.read().decode("utf-8"))


def test_serve_public_shows_a_deals_games_once_every_one_is_played(tmp_path: Path) -> None:
    """Each deal is dealt alike in its three rotations: a game of it, in progress or
    ended, is refused with the reason until the third ends (the cards played in one are
    the hands of the others); then each is the spectator's page. The organiser's
    server shows them all along."""
    tournament = Tournament(tmp_path / "t.sqlite")
    server = referee("serve", str(tournament.db), "--port", "0", "--public")
    try:
        assert server.stderr is not None
        url = server.stderr.readline().split()[2]
        live = tmp_path / "t-logs" / "live"
        wait_for(lambda: any(live.glob("*.live")), timeout=30, what="a game in progress")
        key = next(live.glob("*.live")).name.split(".jsonl")[0]
        for path in (f"game/{key}", f"game/{key}/events"):
            status, said = _refused(f"{url}{path}")
            assert status == 403 and "withheld until every game of deal 1 is played" in said
            assert "so far): each is dealt the same cards" in said and "game" in said
        wait_for(lambda: tournament.process.poll() is not None, timeout=60,
                 what="the tournament's end")
        logs = sorted((tmp_path / "t-logs").glob("*.jsonl*"))
        assert len(logs) == 3
        for log in logs:
            page = _get(f"{url}game/{log.name.split('.jsonl')[0]}")
            assert json.loads(DATA.search(page)[1])["seat"] == SPECTATOR  # type: ignore[index]
            spectators_only(page, read_log(log))
        assert _refused(f"{url}game/rage_d09_t01_r0")[1].endswith("no such game in this "
                                                                 "tournament\n")
    finally:
        code, err = stop(server)
        stop(tournament.process)
    assert code == 130 and "Traceback" not in err


def _refused(url: str) -> tuple[int, str]:
    """The status and text of a request the server refuses."""
    try:
        _get(url)
    except urllib.error.HTTPError as refusal:
        return refusal.code, refusal.read().decode()
    raise AssertionError(f"{url} was served")


def test_serving_another_address_without_public_warns_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    played = referee("tournament", "rage", *["python bots/rage_random.py"] * 3, "--deals",
                     "1", "--sandbox", "off", "--db", str(db))
    assert played.wait(120) == 0, played.communicate()
    server = referee("serve", str(db), "--port", "0", "--host", "0.0.0.0")
    try:
        assert server.stderr is not None
        warning, serving = server.stderr.readline(), server.stderr.readline()
    finally:
        stop(server)
    assert warning.startswith("referee serve: warning: every hand") and "--public" in warning
    assert serving.startswith("referee serve: http://0.0.0.0:")


def test_the_public_results_page_shows_no_bots_stderr_or_paths(tmp_path: Path) -> None:
    """A bot's stderr is its own words, and may hold its cards: the public page keeps the
    faults, without the lines. Nor does it show where the bots' files are on the
    organiser's machine: their names, HELLO and files' sha256 say which code played."""
    student = Path(__file__).parents[1] / "referee" / "fault_bots" / "student.py"
    db = _tournament(tmp_path, f"stdio:python {student} crash 5")
    organisers, public = results_html(db), results_html(db, public=True)
    assert "KeyError" in organisers and "KeyError" not in public
    assert "crash" in public and "Faults by bot and cause" in public
    for path in (str(student), "bots/rage_random.py", str(Path(sys.executable).resolve())):
        assert path in organisers and path not in public
    assert "rage_heuristic 1.0" in public and "executable sha256" in public  # its HELLO
    hashes = re.findall(r"\b[0-9a-f]{12}\b", organisers)
    assert hashes and all(digest in public for digest in hashes)


def test_the_public_results_hide_the_cards_a_fault_names(tmp_path: Path) -> None:
    """An illegal move's detail names the seat's cards ("must follow yellow: it holds
    yellow cards, so r14 is not allowed (legal: y4 y7 y12)"), and its line is a card it
    held: in a deal whose other rotations are still to come, a contestant would learn
    another seat's hand. The public page says which bot faulted, how and where."""
    cheat = Path(__file__).parents[1] / "referee" / "fault_bots" / "rage_cheat.py"
    db = _tournament(tmp_path, f"cheat=stdio:python {cheat} illegal")
    organisers, public = results_html(db), results_html(db, public=True)
    assert organisers.count("(legal: ") >= 3 and "(legal: " not in public
    assert re.search(r"it holds \w+ cards", organisers) and "it holds" not in public
    played_lines = re.findall(r"so (\w+) is not allowed", organisers)
    assert played_lines and not any(f">{line}<" in public for line in played_lines)
    assert public.count("an illegal move (which cards: not on a public page)") >= 2
    assert "round 1, trick" in public and "cheat" in public


def _tournament(tmp_path: Path, third: str) -> Path:
    """A finished tournament of the two sample bots and `third`: its results db."""
    db = tmp_path / "t.sqlite"
    played = referee("tournament", "rage", "python bots/rage_random.py",
                     "python bots/rage_heuristic.py", third, "--deals", "1", "--sandbox",
                     "off", "--db", str(db))
    assert played.wait(120) == 0, played.communicate()
    return db


def test_a_game_that_cannot_be_shown_names_no_file_at_the_rail(tmp_path: Path) -> None:
    """A log that does not read is a 500 for both servers; the organiser's says which
    file, the rail's names none of the organiser's machine (a hunt: the logs' path)."""
    db = _tournament(tmp_path, "python bots/rage_random.py")
    log = sorted(db.with_name("t-logs").glob("*.jsonl.gz"))[0]
    log.write_bytes(b"")
    key = log.name.removesuffix(".jsonl.gz")
    said: dict[tuple[str, ...], str] = {}
    for options in ((), ("--public",)):
        server = referee("serve", str(db), "--port", "0", *options)
        try:
            assert server.stderr is not None
            url = server.stderr.readline().split()[2]
            status, said[options] = _refused(f"{url}game/{key}")
            assert status == 500
        finally:
            stop(server)
    assert str(tmp_path) in said[()]
    assert said[("--public",)] == f"game {key} cannot be shown: not now\n"
