"""`referee show --board`: the table step by step on a terminal (issue 28 part 4): plain
text when piped or with NO_COLOR, Rage's colours on a terminal (tmux), and at chosen
steps the hands, trump, piles and scores the engine has there."""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.ansi import xterm256
from referee.games.rage import codec as rage_codec
from referee.games.rage.cards import find_play
from referee.games.rage.rules import RageConfig, RageState
from referee.games.rage.terminal import COLOUR_HEX, sort_key
from referee.games.thegame import codec as thegame_codec
from referee.games.thegame.rules import TheGameConfig, TheGameState
from referee.games.thegame.commands import DEFAULT_COMMANDS
from referee.registry.game_logs import load_log
from referee.viewer.steps import decisions
from tests.cli_support import run_main
from tests.terminal.tmux import Tmux

ROOT = Path(__file__).resolve().parents[2]
RAGE_BOTS = ("python bots/rage_random.py", "python bots/rage_heuristic.py",
             "python bots/rage_random.py")
ROW = re.compile(r"^ [ ▶] +(\d+)  (\S+) +(\S+(?: \(hidden\))?) +(-?\d+) +(-?\d+)  (.*)$")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    folder = tmp_path_factory.mktemp("board-logs")
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        made = {"rage": folder / "rage.jsonl", "thegame": folder / "thegame.jsonl"}
        for args in (["rage", "--seed", "7", *RAGE_BOTS, "--log", str(made["rage"])],
                     ["thegame", "--seed", "3", "python bots/thegame_heuristic.py",
                      "python bots/thegame_heuristic.py", "--log", str(made["thegame"])]):
            code, _, err = run_main(["play", *args, "--sandbox", "off"])
            assert code == 0, err
        yield made
    finally:
        os.chdir(here)


def board(log: Path, *args: str) -> str:
    code, out, err = run_main(["show", "--board", str(log), *args])
    assert code == 0, err
    return out


def test_piped_the_board_has_no_escape_codes(logs: dict[str, Path]) -> None:
    for log in logs.values():
        out = board(log)
        assert "\x1b" not in out
        steps = re.findall(r"^ step (\d+) of (\d+) ", out, re.M)
        assert [int(n) for n, _ in steps] == list(range(int(steps[-1][1]) + 1))


def rage_engine(log: Path, moves: int) -> RageState:
    """The engine itself, replayed over the log's first `moves` moves."""
    records = load_log(log)
    settings = records[0]["settings"]
    state = RageState.new_game(RageConfig(settings["players"], frozenset(),
                                          settings["rounds"]), records[0]["seed"])
    for move in [r for r in records if r.get("type") == "move"][:moves]:
        if move["kind"] == "bid":
            state.bid(rage_codec.parse_bid(move["move"]))
        else:
            play = find_play(state.legal_plays(), move["move"])
            assert play is not None
            state.play(play)
    return state


def rows(text: str) -> dict[int, tuple[str, ...]]:
    found = [ROW.match(line) for line in text.splitlines()]
    return {int(m[1]): m.groups()[1:] for m in found if m}


@pytest.mark.parametrize("step", [0, 9, 60, 150])
def test_the_rage_board_at_chosen_steps_is_the_engines(logs: dict[str, Path],
                                                       step: int) -> None:
    """Hands (sorted by colour), bids, tricks won, scores and trump as the engine has
    them after the step's moves (steps within a round: the board shows a round's end
    before the next deal)."""
    steps, _, _ = decisions(load_log(logs["rage"]))
    state = rage_engine(logs["rage"], steps[step].moves)
    out = board(logs["rage"], "--step", str(step))
    assert f" step {step} of " in out
    table = rows(out)
    assert len(table) == 3
    for seat in range(3):
        _, bid, won, score, hand = table[seat]
        faces = [card.face for card in state.hand(seat)]
        assert hand.split() == sorted(faces, key=sort_key)
        assert bid == ("-" if state.bids[seat] is None else str(state.bids[seat]))
        assert int(won) == state.tricks_won[seat]
        assert int(score) == state.totals()[seat]
    trump = state.trump
    assert f"Trump: {trump.value if trump else 'none'}" in out


def test_a_seats_board_shows_only_its_own_hand(logs: dict[str, Path]) -> None:
    out = board(logs["rage"], "--seat", "1", "--step", "3")
    table = rows(out)
    assert re.fullmatch(r"\d+ cards", table[0][-1]) and re.fullmatch(r"\d+ cards", table[2][-1])
    assert not re.fullmatch(r"\d+ cards", table[1][-1])


@pytest.mark.parametrize("step", [0, 7, 20, 53])
def test_the_game_board_at_chosen_steps_is_the_engines(logs: dict[str, Path],
                                                       step: int) -> None:
    records = load_log(logs["thegame"])
    steps, moves, _ = decisions(records)
    state = TheGameState.new_game(TheGameConfig(2, DEFAULT_COMMANDS), records[0]["seed"])
    for move in moves[:steps[step].moves]:
        if move["kind"] == "turn":
            state.apply_turn(thegame_codec.parse_turn(move["move"]))
    out = board(logs["thegame"], "--step", str(step))
    tops = [int(m[2]) for m in re.finditer(r"^  ([abcd]) [↑↓] from \d+ +(\d+)", out, re.M)]
    assert tops == list(state.tops())
    assert f"draw pile: {state.draw_pile_size()} cards" in out
    for seat, hand in enumerate(state.hands):
        row = next(line for line in out.splitlines() if re.match(rf"^ [ ▶] +{seat}  ", line))
        shown = [int(word.split(":")[0]) for word in row.split("  ")[-1].split()]
        assert shown == sorted(hand)


def test_bad_usage_is_one_error_line(logs: dict[str, Path]) -> None:
    for args in (["--step", "99999"], ["--json"], ["--seat", "7"]):
        code, out, err = run_main(["show", "--board", str(logs["rage"]), *args])
        assert code == 2 and err.count("\n") == 1 and err.startswith("referee: error:"), err
    code, _, err = run_main(["show", "--step", "3", str(logs["rage"])])
    assert code == 2 and "--step needs --board" in err


def test_a_step_past_a_seats_view_says_the_seat_numbers_its_own(logs: dict[str, Path]) -> None:
    """A seat's view leaves out the others' decisions that changed nothing it saw (The
    Game's hints), so its steps are fewer: a step number read off the organiser's view
    (a fault message's) may be past its end, and the error says why."""
    everyone = len(re.findall(r" step \d+ of ", board(logs["thegame"])))
    seen = len(re.findall(r" step \d+ of ", board(logs["thegame"], "--seat", "0")))
    assert seen < everyone
    code, _, err = run_main(["show", "--board", str(logs["thegame"]), "--seat", "0",
                             "--step", str(seen)])
    assert code == 2 and err == (
        f"referee: error: --step {seen}: the game has steps 0 to {seen - 1} as seat 0 saw "
        "it (its view numbers only the steps it was shown)\n")


def test_the_terminal_colours_are_the_html_boards(logs: dict[str, Path]) -> None:
    css = (ROOT / "referee" / "games" / "rage" / "board.css").read_text()
    names = {"b": "blue", "g": "green", "r": "red", "y": "yellow", "v": "violet",
             "o": "orange"}
    for letter, name in names.items():
        assert f"--{name}: {COLOUR_HEX[letter]};" in css
    assert xterm256("#000000") == 16 and xterm256("#ffffff") == 231


def test_on_a_terminal_the_cards_are_in_colour_and_no_color_turns_it_off(
        logs: dict[str, Path]) -> None:
    command = (f"{shlex.quote(sys.executable)} -m referee show --board "
               f"{shlex.quote(str(logs['rage']))} --step 9; echo EXIT=$?")
    for env, coloured in (({}, True), ({"NO_COLOR": "1"}, False)):
        tmux = Tmux(ROOT, env)
        try:
            tmux.type(command)
            tmux.wait(lambda s: "EXIT=0" in s)
            screen = tmux.screen(escapes=True)
        finally:
            tmux.close()
        assert ("\x1b[" in screen) is coloured
        # Rage's blue (xterm 26) and red (160) behind the cards, on a terminal only
        assert ("48;5;26m" in screen and "48;5;160m" in screen) is coloured


def test_the_last_round_deals_one_card_not_one_cards(logs: dict[str, Path]) -> None:
    text = board(logs["rage"])
    assert "Round 10 · 1 card each · " in text and "1 cards" not in text
    assert "Round 9 · 2 cards each · " in text


def test_the_organisers_end_gives_the_result_with_places_and_faults(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's own 'Game over' line gives totals in seat order; the result under it
    gives the places and each fault, so a faulted seat's total does not read as a win."""
    from tests.viewer.logs import HEURISTIC, MARKUP_BOT, RANDOM, play
    monkeypatch.chdir(ROOT)
    log = play(tmp_path / "fault.jsonl", "rage", RANDOM, f"{MARKUP_BOT} 12", HEURISTIC,
               "--seed", "9")
    result = next(r for r in load_log(log) if r.get("type") == "result")
    names = [str(p["name"]) for p in load_log(log)[0]["players"]]
    text = board(log).splitlines()
    at = text.index("Result:")
    [fault] = result["faults"]
    assert text[at + 1:at + 4] == [
        "  totals: " + ", ".join(f"{n} {t}" for n, t in zip(names, result["totals"])),
        "  places: " + ", ".join(f"{n} {p}" for n, p in zip(names, result["places"])),
        f"  faults: seat 1 {names[1]} {fault['kind']} ({fault['detail']}), line '<i>x</i>'"]
    assert "Result:" not in board(log, "--seat", "0")
