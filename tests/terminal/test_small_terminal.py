"""A human seat fits the terminal it plays in (docs/human.md, "A small terminal"): at 80
columns by 24 rows every table size (Rage 3-8, The Game 1-5) shows, at each decision, all
the decision needs without scrolling: the round or turn, trump and lead colour or piles,
every seat's row, the person's hand, the offer and the prompt. Smaller still, no line is
wider than the terminal and no screen taller, and what is left out is said."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import given, settings, strategies as st

from referee.ansi import Paint, clip, width
from referee.games.rage.rules import RageConfig
from referee.games.rage.terminal import RageDesk, led_colour
from referee.games.screen_fit import NEEDED, Block, block, fit, lines_of, wrap
from referee.games.thegame.rules import TheGameConfig
from referee.games.thegame.terminal import TheGameDesk
from referee.players.human import CLEAR, Console, HumanPlayer
from referee.players.player import FunctionPlayer, Player
from referee.registry.games import lookup
from referee.settings import TimeLimits
from tests.terminal.test_human_desk import first_offered
from tests.terminal.tmux import Tmux, at_prompt, exit_code

ROOT = Path(__file__).resolve().parents[2]
CODES = re.compile(r"\x1b\[[0-9;]*m")
RAGE_ROW = re.compile(r"^ [ ▶] +(\d+)  (you|seat \d+) +(-|hidden|\d+(?: \(hidden\))?) +"
                      r"(\d+) +(-?\d+)  (.*)$")
GAME_ROW = re.compile(r"^ [ ▶] +(\d+)  (you|seat \d+) +(\d+) +(\d+)  (.*)$")


class AutoConsole(Console):
    """A console that answers as a person might: Enter where hints are asked for (none),
    else "1" (a bid of 1, the first card, the first turn offered). Every screen is kept."""

    def __init__(self, size: tuple[int, int]) -> None:
        super().__init__(io.StringIO(), io.StringIO(), clear=True, fixed_size=size)
        self.asked = ""  # the request being answered
        self.reads = 0

    def read(self, deadline: float | None, idle: Callable[[float], None] | None = None
             ) -> str | None:
        self.reads += 1
        assert self.reads < 1000, "the person's answers were refused over and over"
        return "" if self.asked.startswith("HINTS?") else "1"

    def screens(self) -> list[list[str]]:
        """Each screen as the terminal shows it: lines without colour codes."""
        assert isinstance(self.output, io.StringIO)
        return [CODES.sub("", text).split("\n") for text in
                self.output.getvalue().split(CLEAR)[1:]]


class AutoPerson(HumanPlayer):
    console: AutoConsole

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        self.console.asked = line
        return super().ask(line, preamble)


def human(name: str, desk: RageDesk | TheGameDesk, size: tuple[int, int]
          ) -> tuple[HumanPlayer, AutoConsole]:
    console = AutoConsole(size)
    return AutoPerson(name, desk, console), console


def rage_screens(players: int, size: tuple[int, int], seed: int = 4) -> list[list[str]]:
    """Seat 0's screens in a whole game of Rage beside `players - 1` in-process bots."""
    person, console = human("ann", RageDesk(Paint(True)), size)
    bots: list[Player] = [FunctionPlayer(f"b{i}", first_offered) for i in range(1, players)]
    lookup("rage").run([person, *bots], RageConfig(players), seed, TimeLimits(), None)
    return console.screens()


def thegame_screens(players: int, size: tuple[int, int], seed: int = 3) -> list[list[str]]:
    """Every seat's screens in a whole game of The Game played by people at each seat."""
    seats = [human(f"p{i}", TheGameDesk(Paint(True)), size) for i in range(players)]
    lookup("thegame").run([person for person, _ in seats], TheGameConfig(players), seed,
                          TimeLimits(), None)
    return [screen for _, console in seats for screen in console.screens()]


def asked(screens: list[list[str]]) -> list[list[str]]:
    """The screens of decisions (the prompt follows them), each without its prompt row."""
    return [screen[:-1] for screen in screens if screen[-1] == "> "]


def within(screen: list[str], size: tuple[int, int]) -> None:
    """No row wider than the terminal, no more rows than it has (the prompt's included)."""
    columns, rows = size
    assert len(screen) + 1 <= rows, "\n".join(screen)
    assert all(width(line) <= columns for line in screen), "\n".join(screen)


def hand_shown(screen: list[str], row: re.Match[str]) -> list[str]:
    """The person's cards as the screen shows them: in their row, or on a line of their
    own below the table where the row says so (as many as it says)."""
    if not row[6].endswith(" cards ↓"):
        return row[6].split()
    shown = [line for line in screen if line.startswith("Your hand:")]
    assert len(shown) == 1 and len(shown[0].split()) - 2 == int(row[6].split()[0])
    return shown[0].split()[2:]


def hidden_note(screen: list[str]) -> str:
    return next((line for line in screen if line.startswith("(not shown")), "")


@pytest.mark.parametrize("players", range(3, 9))
def test_every_rage_table_fits_80_by_24(players: int) -> None:
    screens = asked(rage_screens(players, (80, 24)))
    assert len(screens) == 10 + 55  # a bid and a card a trick, 10 rounds
    for screen in screens:
        within(screen, (80, 24))
        text = "\n".join(screen)
        assert screen[0].startswith("Round ") and screen[1].startswith("Trump: ")
        assert re.search(r"^Trick( \d+, (led \w+|no lead colour yet)|: none in play)", text,
                         re.M)
        rows = {int(m[1]): m for m in map(RAGE_ROW.match, screen) if m}
        assert sorted(rows) == list(range(players)), text  # every bid, tricks won, score
        assert hand_shown(screen, rows[0])
        assert "Your bid: type one of" in text or "Your card: type its number" in text
        assert "seat" not in hidden_note(screen) and "hand" not in hidden_note(screen)


@pytest.mark.parametrize("players", range(1, 6))
def test_every_table_of_the_game_fits_80_by_24(players: int) -> None:
    screens = asked(thegame_screens(players, (80, 24)))
    assert screens
    for screen in screens:
        within(screen, (80, 24))
        text = "\n".join(screen)
        assert screen[0].startswith("The Game · Turn ")
        assert [line[2] for line in screen[1:5]] == ["a", "b", "c", "d"]  # the four piles
        rows = {int(m[1]): m for m in map(GAME_ROW.match, screen) if m}
        assert sorted(rows) == list(range(players)), text
        assert "Your turn: at least" in text or "Hints for seat" in text
        assert "seat" not in hidden_note(screen) and "hand" not in hidden_note(screen)


SMALL = [(79, 23), (60, 20), (50, 14), (40, 10), (32, 9)]


@pytest.mark.parametrize("size", SMALL)
def test_smaller_terminals_are_never_overrun_and_say_what_is_hidden(
        size: tuple[int, int]) -> None:
    """Rage for 8 and The Game for 5 on terminals too small for them: every screen stays
    within the terminal, the offer stays (the prompt's first line at least), and where
    anything needed is left out, a line says what."""
    for screens in (asked(rage_screens(8, size, seed=2)), asked(thegame_screens(5, size))):
        assert screens
        for screen in screens:
            within(screen, size)
            text = " ".join(line.strip() for line in screen)
            assert re.search(r"Your (bid|card|turn)|Hints for", text), "\n".join(screen)
            rows = [m for m in map(RAGE_ROW.match, screen) if m] + \
                [m for m in map(GAME_ROW.match, screen) if m]
            players = 8 if "Round" in text or "Rage" in text else 5
            if len(rows) < players:
                assert "(not shown, for want of room:" in text or \
                    "rows hidden above" in text, "\n".join(screen)


def test_a_bad_input_on_a_small_terminal_redraws_the_screen_with_why() -> None:
    """On a terminal of known size a refused input redraws the screen with the reason at
    its foot (appended lines would push the board's top off)."""
    desk = RageDesk(Paint(False))
    console = Console(io.StringIO("zz\n1\n"), io.StringIO(), clear=True, fixed_size=(80, 24))
    player = HumanPlayer("ann", desk, console)
    for line in ("GAME rage protocol=2 seat=0 players=8 rounds=10 variants=none move_ms=1000 "
                 "bank_ms=0",
                 "ROUND 1 cards=10 dealer=7", "HAND b1 b2 b3 b4 b5 b6 b7 b8 b9 b10", "TRUMP g deal"):
        player.tell(line)
    assert player.ask("BID? 0 1 2 3 4 5 6 7 8 9 10") == "1"
    assert isinstance(console.output, io.StringIO)
    screens = console.output.getvalue().split(CLEAR)[1:]
    assert len(screens) == 2
    first, again = (screen.split("\n") for screen in screens)
    assert again[0] == first[0] and again[0].startswith("Round 1")
    assert any("'zz' is not a bid you may make" in line for line in again)
    within(again[:-1], (80, 24))


def test_clip_and_wrap_count_what_the_terminal_shows() -> None:
    chip = Paint(True).chip(" b15 ", "#2f6fd0")
    assert width(chip) == 5 and width("Zoë") == 3 and width("漢字") == 4
    cut = clip(chip + " and more text", 8)
    assert width(cut) == 8 and cut.endswith("\x1b[0m…") and cut.startswith(chip)
    assert clip("abc", 3) == "abc" and clip("abcd", 3) == "ab…" and clip("abcd", 0) == ""
    lines = wrap([chip] * 10, 20)  # 5 + 2 + 5 + 2 + 5: three a line
    assert len(lines) == 4 and all(width(line) <= 20 for line in lines)
    indented = wrap([chip] * 10, 20, indent=2)  # two a line after the first
    assert len(indented) == 5 and all(line.startswith("  ") for line in indented[1:])
    assert all(width(line) <= 20 for line in indented)
    assert wrap(["a" * 30], 10) == ["a" * 9 + "…"]


def test_fit_gives_up_the_highest_ranked_first_and_says_what() -> None:
    blocks = [block(["head"]), block([""], 9.0), block(["old"], 5.0, "earlier news"),
              block(["new"], 4.5, "earlier news"), block(["row"], 1.0, "seats", 7),
              block(["offer"])]
    assert fit(blocks, 80, 6) == ["head", "", "old", "new", "row", "offer"]
    assert fit(blocks, 80, 5) == ["head", "old", "new", "row", "offer"]  # blank: unsaid
    assert fit(blocks, 80, 4) == ["head", "(not shown, for want of room: earlier news)",
                                  "row", "offer"]
    assert fit(blocks, 80, 3) == [
        "head", "(not shown, for want of room: earlier news, seats 7)", "offer"]
    assert fit(blocks, 30, 4) == ["head", "(not shown, for want of room:",
                                  " earlier news, seats 7)", "offer"]
    tiny = fit([block(["a", "b", "c", "offer"], NEEDED)], 80, 2)
    assert tiny == ["(3 rows hidden above)", "offer"]


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Mn")),
                max_size=30)
blocks = st.builds(block, st.lists(texts, min_size=1, max_size=4),
                   st.sampled_from([0.0, 1.0, 1.5, 2.0, 3.0, 4.5, 9.0]),
                   st.sampled_from(["", "earlier news", "seats"]),
                   st.none() | st.integers(0, 7))


@settings(max_examples=300, deadline=None)
@given(st.lists(blocks, max_size=12), st.integers(1, 100), st.integers(1, 40))
def test_fit_never_overruns_and_keeps_the_bottom(parts: list[Block], columns: int,
                                                 rows: int) -> None:
    """Whatever the blocks and the size: no more rows, no wider lines; what is needed is
    all shown, in order, where it fits beside a note, else its bottom rows (the offer)."""
    shown = fit(parts, columns, rows)
    assert len(shown) <= rows and all(width(line) <= columns for line in shown)
    everything = [clip(line, columns) for line in lines_of(parts)]
    if len(everything) <= rows:
        assert shown == everything
    needed = [clip(line, columns) for part in parts if part.rank == NEEDED
              for line in part.lines]
    if len(needed) < rows:
        rest = iter(shown)
        assert all(line in rest for line in needed)  # a subsequence: in order
    elif rows > 1:
        assert shown[1:] == needed[len(needed) - rows + 1:]


def test_seats_given_up_together_are_named_once() -> None:
    rows = [block([f"row {seat}"], 1.0, "seats", seat) for seat in (1, 2, 3, 5, 6, 7)]
    shown = fit([block(["head"]), *rows, block(["offer"])], 80, 4)
    assert shown == ["head", "row 1", "(not shown, for want of room: seats 2-3, 5-7)",
                     "offer"]


def test_the_lead_colour_is_the_first_colour_card_or_declared_joker() -> None:
    """Ruling R3: action cards other than the Joker set no lead colour."""
    assert led_colour([[1, "NT"], [2, "+5"]]) is None
    assert led_colour([[1, "NT"], [2, "g7"], [3, "J:r"]]) == "g"
    assert led_colour([[1, "TC"], [2, "J:o"], [3, "b1"]]) == "o"


@pytest.fixture
def small_tmux() -> Iterator[Tmux]:
    terminal = Tmux(ROOT, width=80, height=24)
    yield terminal
    terminal.close()


def shown_rows(screen: str) -> list[str]:
    """The pane's rows down to the last one written (capture-pane gives all 24)."""
    lines = screen.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _tmux_rows(screen: str, pattern: re.Pattern[str]) -> dict[int, re.Match[str]]:
    return {int(m[1]): m for m in map(pattern.match, screen.splitlines()) if m}


def test_eight_at_rage_in_a_real_80_by_24_terminal(small_tmux: Tmux) -> None:
    """Rage for 8 (the most the rules allow) in tmux at 80x24, in colour, through the first
    round: at every decision the round, the trump, the trick and its lead colour, all
    eight rows, the hand and the offer are on screen, with the prompt on the last row."""
    bot = "'python bots/rage_random.py'"
    small_tmux.type(f"clear; {sys.executable} -m referee play rage --seed 11 --sandbox off "
                    f"human {' '.join([bot] * 7)}; echo EXIT=$?")
    previous = ""
    for decision in range(11):  # round 1: a bid and ten cards
        screen = small_tmux.wait(lambda s: at_prompt(s) and s != previous)
        lines = shown_rows(screen)
        assert lines[-1].rstrip() == ">", screen
        assert lines[0].startswith("Round 1 · 10 cards each"), screen  # nothing scrolled
        assert lines[1].startswith("Trump: ") and lines[2].startswith("Trick"), screen
        assert sorted(_tmux_rows(screen, RAGE_ROW)) == list(range(8)), screen
        assert len(hand_shown(lines, _tmux_rows(screen, RAGE_ROW)[0])) == \
            10 - max(0, decision - 1), screen
        assert ("Your bid: type one of" if decision == 0 else "Your card: type") in screen
        if decision > 1:
            assert re.search(r"^Trick \d+, (led \w+|no lead colour yet):", screen, re.M)
        small_tmux.type("1")
        previous = screen
    small_tmux.keys("C-c")
    assert exit_code(small_tmux.wait(lambda s: exit_code(s) is not None)) == 130


def test_five_at_the_game_in_a_real_80_by_24_terminal(small_tmux: Tmux) -> None:
    """The Game for 5 in tmux at 80x24, a whole game: at every decision the turn, the four
    piles, all five rows, the hand and the offer are on screen above the prompt; a refused
    input redraws the screen with why, nothing scrolled."""
    bot = "'python bots/thegame_heuristic.py'"
    small_tmux.type(f"clear; {sys.executable} -m referee play thegame --seed 3 --sandbox off "
                    f"{bot} {bot} human {bot} {bot}; echo EXIT=$?")
    screen = small_tmux.wait(at_prompt)
    small_tmux.type("5")  # a number in a hint: refused
    previous = small_tmux.wait(lambda s: "Not a move" in s and at_prompt(s))
    decisions = [previous]
    small_tmux.type("")
    while True:
        screen = small_tmux.wait(lambda s: exit_code(s) is not None or
                                 (at_prompt(s) and s != previous), 60)
        if exit_code(screen) is not None:
            break
        decisions.append(screen)
        small_tmux.type("" if "Hints for seat" in screen else "1")
        previous = screen
    assert exit_code(screen) == 0 and len(decisions) > 5
    for screen in decisions:
        lines = shown_rows(screen)
        assert lines[-1].rstrip() == ">", screen
        assert lines[0].startswith("The Game · Turn "), screen
        assert [line[2] for line in lines[1:5]] == ["a", "b", "c", "d"], screen
        assert sorted(_tmux_rows(screen, GAME_ROW)) == [0, 1, 2, 3, 4], screen
        assert "Your turn: at least" in screen or "Hints for seat" in screen
    assert "hints may not contain numbers" in decisions[0]
