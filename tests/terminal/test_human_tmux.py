"""A person at the table, in a real terminal (tmux): whole games of Rage and of The Game
typed move by move against the sample bots, bad input, hidden bids, Ctrl-C and the clock
(issue 30 part 1; docs/human.md)."""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from referee.registry.game_logs import load_log
from tests.cli_support import run_main
from tests.terminal.tmux import Tmux, at_prompt, exit_code

ROOT = Path(__file__).resolve().parents[2]
REFEREE = f"{shlex.quote(sys.executable)} -m referee"
RANDOM = "'python bots/rage_random.py'"
TG_HEURISTIC = "'python bots/thegame_heuristic.py'"
ROW = re.compile(r"^ [ ▶] +(\d+)  (you|seat \d+) +(\S+)")


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    terminal = Tmux(ROOT)
    yield terminal
    terminal.close()


def start(tmux: Tmux, args: str) -> None:
    """`referee ARGS` in the terminal, its exit status printed after it (EXIT=N)."""
    tmux.type(f"{REFEREE} {args} --sandbox off; echo EXIT=$?")


def play_through(tmux: Tmux, answer: Callable[[str], str],
                 timeout: float = 90.0) -> tuple[list[str], str]:
    """Answer every prompt with answer(screen) until the command exits: the screens
    answered, and the last one."""
    screens: list[str] = []
    previous = ""
    while True:
        screen = tmux.wait(lambda s: exit_code(s) is not None or (at_prompt(s) and s != previous),
                           timeout)
        if exit_code(screen) is not None:
            return screens, screen
        screens.append(screen)
        tmux.type(answer(screen))
        previous = screen


def rage_answer(screen: str) -> str:
    """A bid of 1 where it may be made, else the first offered; the first card offered."""
    bid = re.search(r"Your bid: type one of ([\d ]+)\.", screen)
    if bid is not None:
        bids = bid[1].split()
        return "1" if "1" in bids else bids[0]
    return "1"


def test_a_whole_rage_game_with_secret_bids_typed_in_a_terminal(tmux: Tmux,
                                                                 tmp_path: Path) -> None:
    """Bad input gets help and another try; every other seat's bid stays hidden on the
    person's screen for the whole round (secret-bid: BIDS only after the last trick,
    rage.md); the game ends with a log that `referee replay` verifies."""
    log = tmp_path / "rage.jsonl"
    start(tmux, f"play rage --seed 11 --variant secret-bid --log {log} human=ann "
                f"{RANDOM} {RANDOM}")
    first = tmux.wait(at_prompt)
    assert "Your bid: type one of" in first
    tmux.type("eleven")
    helped = tmux.wait(lambda s: "Not a move" in s and at_prompt(s))
    assert "'eleven' is not a bid you may make" in helped
    screens, last = play_through(tmux, rage_answer)
    assert exit_code(last) == 0
    assert len(screens) == 10 + 55  # a bid and a card per round, 10 rounds
    shown_bids = [(row[1], row[3]) for screen in [first, *screens]
                  for row in (ROW.match(line) for line in screen.splitlines()) if row]
    others = {bid for who, bid in shown_bids if who != "0"}
    assert others <= {"hidden", "-"}, others  # never a number before the round is over
    assert {bid for who, bid in shown_bids if who == "0"} - {"-", "hidden"}  # its own shows
    records = load_log(log)
    assert records[0]["players"][0] == {"seat": 0, "name": "ann", "command": "human",
                                        "human": True, "human_time": None}
    bids = [r for r in records if r.get("type") == "move" and r["kind"] == "bid"]
    assert {r["seat"] for r in bids} == {0, 1, 2}  # the others did bid: hidden, not absent
    code, out, err = run_main(["replay", str(log)])
    assert code == 0, err


def test_a_whole_game_of_the_game_with_hints_typed_in_a_terminal(tmux: Tmux,
                                                                 tmp_path: Path) -> None:
    """The Game for two, the person beside the heuristic bot: a malformed turn and an
    illegal one get help (the rule broken), hints are typed (Enter: none), turns picked
    by number; the log replays."""
    log = tmp_path / "thegame.jsonl"
    start(tmux, f"play thegame --seed 3 --log {log} human {TG_HEURISTIC}")
    first = tmux.wait(at_prompt)
    assert "Your turn: at least 2 card(s)" in first and "1) " in first
    tmux.type("x:99")
    tmux.wait(lambda s: "Not a move: type placements as pile:card" in s and at_prompt(s))
    tmux.type("a:100")
    illegal = tmux.wait(lambda s: "Not a move: a:100:" in s and at_prompt(s))
    assert "a:100" in illegal
    hints = iter(["good:a", "5", ""])

    def answer(screen: str) -> str:
        if "Hints for seat 1's turn, coming next" in screen:
            return next(hints, "")
        return "1"

    screens, last = play_through(tmux, answer)
    assert exit_code(last) == 0
    assert any("Hints for seat 1's turn, coming next" in s for s in screens)
    assert any("hints may not contain numbers" in s for s in screens)  # "5": help
    assert "The team lost" in last or "The team won" in last
    records = load_log(log)
    replies = [r["line"] for r in records if r.get("type") == "line" and r["seat"] == 0
               and r.get("dir") == "in"]
    hints_asked = sum(1 for r in records if r.get("type") == "line" and r["seat"] == 0
                      and r["line"] == "HINTS?")
    assert hints_asked >= 2
    hint_replies = [r for r in replies if not re.fullmatch(r"[abcd]:\d+( [abcd]:\d+)*", r)]
    assert hint_replies[:2] == ["good:a", "none"]  # "5" was refused, and "" is none
    assert not [r for r in records if r.get("type") == "fault"]  # bad input: no fault
    code, _, err = run_main(["replay", str(log)])
    assert code == 0, err


def test_ctrl_c_stops_the_game_and_keeps_a_log_show_reads(tmux: Tmux, tmp_path: Path) -> None:
    log = tmp_path / "stopped.jsonl"
    start(tmux, f"play rage --seed 5 --variant hidden-bid --log {log} human {RANDOM} "
                f"{RANDOM}")
    tmux.wait(at_prompt)
    tmux.keys("C-c")
    screen = tmux.wait(lambda s: exit_code(s) is not None)
    assert exit_code(screen) == 130
    assert "aborted (SIGINT)" in screen and str(log) in screen
    code, out, err = run_main(["show", str(log)])
    assert code == 0, err
    assert "INTERRUPTED (SIGINT)" in out
    code, out, err = run_main(["show", "--board", str(log)])
    assert code == 0, err
    assert "interrupted (SIGINT)" in out


def test_a_human_has_a_clock_only_when_given_one(tmux: Tmux, tmp_path: Path) -> None:
    """--human-time: no move in time is the seat's timeout fault, as for a bot."""
    log = tmp_path / "late.jsonl"
    start(tmux, f"play thegame --seed 3 --human-time 0.5 --log {log} human")
    screen = tmux.wait(lambda s: exit_code(s) is not None)
    assert "Your seat faulted: timeout" in screen and "(--human-time)" in screen
    assert exit_code(screen) == 0
    faults = [r for r in load_log(log) if r.get("type") == "fault"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "timeout")]
    assert "--human-time" in json.dumps(faults[0])


def test_bots_heartbeats_are_answered_while_the_person_thinks(tmux: Tmux,
                                                             tmp_path: Path) -> None:
    """Bots whose ZeroMQ library drops the connection after 250 ms without a PONG sit
    beside a person who thinks far longer: the referee reads their connections while it
    waits for the person (as it does while it waits for another bot), so neither faults."""
    log = tmp_path / "beating.jsonl"
    bot = shlex.quote(f"python {ROOT / 'tests/referee/fault_bots/heartbeat_bot.py'} 0 0")
    start(tmux, f"play rage --seed 2 --log {log} {bot} human {bot}")
    tmux.wait(at_prompt)
    time.sleep(1.5)  # the person thinks: six heartbeat timeouts
    _, last = play_through(tmux, rage_answer)
    assert exit_code(last) == 0
    assert not [r for r in load_log(log) if r.get("type") == "fault"]
