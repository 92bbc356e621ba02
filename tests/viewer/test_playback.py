"""`referee view`'s page in a real browser (headless Chromium): whole games stepped
through with the keyboard and with the controls, the DOM checked at every step against
the engine replayed over the log's moves in the test; the step in the URL; jumps to a
round, a trick and a fault; markup from bots shown as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.games.rage.cards import find_play
from referee.games.rage.rules import Phase, RageConfig, RageState, Variant
from referee.games.thegame.codec import parse_turn
from referee.games.thegame.definition import THEGAME
from referee.games.thegame.rules import TheGameState
from referee.registry.game_logs import read_log
from tests.cli_support import run_main
from tests.viewer.logs import HEURISTIC, RANDOM, page_data, view

RAGE_DOM = """() => ({
  step: Number(document.body.dataset.step),
  kind: (document.querySelector('.step .kind') || {}).textContent || '',
  trump: document.getElementById('trump').className,
  trick: [...document.querySelectorAll('#trick .play')].map(
    p => [Number(p.dataset.seat), p.querySelector('.card').dataset.face]),
  seats: [...document.querySelectorAll('.seat-panel')].map(p => ({
    hand: p.querySelector('.backs') ? Number(p.querySelector('.backs').dataset.count)
      : [...p.querySelectorAll('.hand .card')].map(c => c.dataset.face),
    bid: p.querySelector('.bid').textContent,
    won: Number(p.querySelector('.won').textContent),
    score: Number(p.querySelector('.score').textContent)}))})"""

THEGAME_DOM = """() => ({
  step: Number(document.body.dataset.step),
  kind: (document.querySelector('.step .kind') || {}).textContent || '',
  tops: [...document.querySelectorAll('.pile .top')].map(t => Number(t.textContent)),
  draw: document.getElementById('draw').textContent,
  who: ((document.querySelector('.step .who span:last-child') || {}).textContent || '').trim(),
  say: (document.querySelector('.step p.say') || {}).textContent || '',
  hands: [...document.querySelectorAll('.tg-seat')].map(p => p.querySelector('.backs')
    ? Number(p.querySelector('.backs').dataset.count)
    : [...p.querySelectorAll('.hand .tg-card')].map(c => Number(c.dataset.card)))})"""


def open_page(browser: Any, page: Path, step: int | None = None) -> Any:
    tab = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(page.as_uri() + ("" if step is None else f"#step={step}"))
    tab.wait_for_selector("body[data-ready='1']")
    tab.errors = errors
    return tab


def moves_and_header(log: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    records = read_log(log)
    return records[0], [r for r in records if r.get("type") == "move"]


def rage_engine(header: dict[str, Any]) -> RageState:
    settings = header["settings"]
    config = RageConfig(settings["players"], frozenset(Variant(v) for v in settings["variants"]))
    return RageState.new_game(config, header["seed"])


def rage_apply(state: RageState, move: dict[str, Any]) -> None:
    if move["kind"] == "bid":
        state.bid(int(move["move"]))
    else:
        play = find_play(state.legal_plays(), move["move"])
        assert play is not None
        state.play(play)


def expected_rage(state: RageState) -> dict[str, Any]:
    return {
        "trump": "trump-chip " + (f"c-{state.trump.value}" if state.trump else "none"),
        "seats": [{"hand": [card.face for card in state.hand(seat)],
                   "bid": "–" if bid is None else str(bid), "won": won, "score": score}
                  for seat, (bid, won, score) in enumerate(
                      zip(state.bids, state.tricks_won, state.totals()))],
    }


def test_a_rage_game_stepped_through_with_the_keyboard_shows_what_the_engine_holds(
        browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    page = view(logs["rage"], tmp_path / "rage.html")
    header, moves = moves_and_header(logs["rage"])
    state = rage_engine(header)
    tab = open_page(browser, page)
    done, checked = 0, 0
    last = len(page_data(page)["steps"]) - 1
    for step in range(1, last + 1):
        tab.keyboard.press("ArrowRight")
        dom = tab.evaluate(RAGE_DOM)
        assert dom["step"] == step
        if not dom["kind"]:
            continue  # the end
        assert dom["kind"] == moves[done]["kind"]
        round_no = state.round_no
        rage_apply(state, moves[done])
        done += 1
        if state.round_no != round_no or state.phase is Phase.OVER:
            continue  # the board shows the round's end before the next deal
        assert {k: dom[k] for k in ("trump", "seats")} == expected_rage(state), step
        if state.trick:
            assert dom["trick"] == [[seat, play.notation] for seat, play in state.trick]
        checked += 1
    assert done == len(moves) and checked > 200
    assert tab.evaluate("location.hash") == f"#step={last}"
    tab.keyboard.press("Home")
    assert tab.evaluate("document.body.dataset.step") == "0"
    assert not tab.errors


def test_the_game_for_5_stepped_through_with_the_controls(
        browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    page = view(logs["thegame"], tmp_path / "thegame.html")
    header, moves = moves_and_header(logs["thegame"])
    state = TheGameState.new_game(THEGAME.logged_config(header["settings"]), header["seed"])
    tab = open_page(browser, page)
    done, turns, silent = 0, 0, 0
    last = len(page_data(page)["steps"]) - 1
    for step in range(1, last + 1):
        tab.click("#next")
        dom = tab.evaluate(THEGAME_DOM)
        assert dom["step"] == step
        if dom["kind"] in ("turn", "hint"):
            assert dom["kind"] == moves[done]["kind"]
            if dom["kind"] == "turn":
                placed = " ".join(w.replace(":", " ← ") for w in moves[done]["move"].split())
                assert dom["say"] == f"{dom['who']} plays {placed}", step
                state.apply_turn(parse_turn(moves[done]["move"]))
                turns += 1
            else:
                assert dom["say"].startswith(f"{dom['who']} hints "), step
            done += 1
        else:  # a decision that made no move (hints: none) says no move, not the last one
            assert dom["say"] == "", step
            silent += dom["who"] != ""
        assert dom["tops"] == list(state.tops()), step
        assert dom["hands"] == state.hands, step
        assert dom["draw"] == f"draw pile: {state.draw_pile_size()}"
    assert done == len(moves) and turns > 10 and silent > 10
    assert tab.is_disabled("#next") and tab.is_disabled("#last")
    tab.click("#first")
    assert tab.evaluate("document.body.dataset.step") == "0"
    assert not tab.errors


def test_the_step_in_the_url_play_pause_and_the_jumps(
        browser: Any, logs: dict[str, Path], tmp_path: Path) -> None:
    page = view(logs["fault"], tmp_path / "fault.html")
    data = page_data(page)
    tab = open_page(browser, page, step=120)
    assert tab.text_content("#counter").startswith("120 /")
    tab.keyboard.press("ArrowRight")
    assert tab.evaluate("location.hash") == "#step=121"
    tab.select_option("#jump-round", label="Round 3")
    step = int(tab.evaluate("document.body.dataset.step"))
    assert data["states"][data["steps"][step]["m"]]["r"] == 3
    assert "Round 3" in tab.text_content(".round-info")
    tab.select_option("#jump-trick", label="Round 2, trick 4")
    assert tab.text_content("#trick .trick-label").startswith("Trick 4")
    tab.click("#first")
    tab.click("#next-fault")
    fault_step = next(i for i, s in enumerate(data["steps"]) if "f" in s)
    assert tab.evaluate("document.body.dataset.step") == str(fault_step)
    assert "FAULT: protocol" in tab.text_content(".fault")
    tab.select_option("#speed", "40")
    tab.keyboard.press(" ")
    tab.wait_for_function(f"Number(document.body.dataset.step) > {fault_step + 3}")
    tab.click("#play")
    stopped = tab.evaluate("document.body.dataset.step")
    tab.wait_for_timeout(150)
    assert tab.evaluate("document.body.dataset.step") == stopped
    assert not tab.errors


def test_markup_from_bots_is_shown_as_text(browser: Any, logs: dict[str, Path],
                                           tmp_path: Path) -> None:
    """A bot's name (here written into the log's header), its HELLO, LOG lines and
    offending line hold markup: the page shows it as text and runs none of it."""
    log = tmp_path / "markup.jsonl"
    text = logs["fault"].read_text()
    log.write_text(text.replace('"name":"rage_heuristic"', '"name":"<b>bold</b><script>'
                                'document.title=1</script>"', 1))
    page = view(log, tmp_path / "markup.html")
    source = page.read_text()
    assert "<script>document.title" not in source and "<b>bold" not in source
    data = page_data(page)
    fault_step = next(i for i, s in enumerate(data["steps"]) if "f" in s)
    tab = open_page(browser, page, step=fault_step)
    assert tab.evaluate("document.title").startswith("Rage")
    assert tab.evaluate("document.querySelectorAll('main b, main img, main i').length") == 0
    step_text = tab.text_content("#step")
    assert "<script>document.title='pwned'</script><b>bold</b> & <img src=x>" in step_text
    assert "<i>x</i>" in tab.text_content(".fault")
    assert "<b>bold</b><script>document.title=1</script>" in tab.text_content(".players")
    assert not tab.errors


def test_one_bot_at_two_seats_is_named_with_each_seat(browser: Any, tmp_path: Path) -> None:
    """The same bot at seats 0 and 1 (a gauntlet's references; three bots at tables of
    four): the board names each with its seat, so 'won by' and the table say which."""
    code, _, err = run_main(["tournament", "rage", "--deals", "1", "--table-size", "4",
                             "--sandbox", "off", "--db", str(tmp_path / "d.sqlite"),
                             f"twin={RANDOM}", f"other={HEURISTIC}", f"third={RANDOM}"])
    assert code == 0, err
    log = tmp_path / "d-logs" / "rage_d01_t01_r0.jsonl.gz"  # twin at seats 0 and 1
    assert [p["name"] for p in read_log(log)[0]["players"]][:2] == ["twin", "twin"]
    tab = open_page(browser, view(log, tmp_path / "dup.html"), step=40)
    board = tab.locator("#board").inner_text()
    assert "twin (0)" in board and "twin (1)" in board and "third (" not in board
    tab.keyboard.press("End")
    assert not tab.errors
