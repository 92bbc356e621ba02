"""The end of a game with a fault, as a person reads it in the organiser's page (headless
Chromium): the places beside the totals, with the faulted seat last and its fault named
(a Rage seat's fallback keeps scoring, so its total alone would rank it wrongly), and the
result's values by player name, not the log's JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.registry.game_logs import read_log
from tests.viewer.logs import MARKUP_BOT, ROOT, TG_HEURISTIC, play, view
from tests.viewer.test_playback import open_page


def result_and_names(log: Path) -> tuple[dict[str, Any], list[str]]:
    records = read_log(log)
    names = [player["name"] for player in records[0]["players"]]
    return next(r for r in records if r.get("type") == "result"), names


def test_a_rage_game_over_ranks_by_place_and_names_the_fault(
        browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    result, names = result_and_names(logs["fault"])
    [fault] = result["faults"]
    totals, places = result["totals"], result["places"]
    tab = open_page(browser, view(logs["fault"], tmp_path / "fault.html"))
    tab.keyboard.press("End")
    order = sorted(range(len(names)), key=lambda seat: (places[seat], seat))
    expected = " · ".join(
        f"{places[s]}. {names[s]} {totals[s]}" +
        (f" ({fault['kind']}: placed last)" if s == fault["seat"] else "") for s in order)
    assert tab.text_content(".rage .banner") == f"Game over: {expected}"
    shown = tab.text_content("#step")
    assert f"places: {' · '.join(f'{n} {p}' for n, p in zip(names, places))}" in shown
    assert (f"faults: seat {fault['seat']} {names[fault['seat']]} {fault['kind']} "
            f"({fault['detail']}), line \"<i>x</i>\"") in shown
    assert '{"seat"' not in shown and "[" not in shown.split("Told after")[0]
    # A seat's page holds no result: its banner keeps to the totals the seat was told.
    seat_tab = open_page(browser, view(logs["fault"], tmp_path / "seat0.html", "--seat", "0"))
    seat_tab.keyboard.press("End")
    assert seat_tab.text_content(".rage .banner") == "Game over: " + " · ".join(
        f"{n} {t}" for n, t in zip(names, totals))
    assert not tab.errors and not seat_tab.errors


def test_the_game_lost_to_a_fault_says_whose(browser: Any, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    log = play(tmp_path / "tg.jsonl", "thegame", TG_HEURISTIC, f"{MARKUP_BOT} 1",
               "--seed", "2")
    result, names = result_and_names(log)
    [fault] = result["faults"]
    assert result["reason"] == "fault"
    tab = open_page(browser, view(log, tmp_path / "tg.html"))
    tab.keyboard.press("End")
    assert (f"Lost: a bot's fault (seat {fault['seat']} {names[fault['seat']]}: "
            f"{fault['kind']}) · ") in tab.text_content(".thegame .banner")
    shown = tab.text_content("#step")
    assert "reason: fault" in shown and '"fault"' not in shown and '{"seat"' not in shown
    assert not tab.errors
