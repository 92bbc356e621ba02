"""What the protocol pages and docs/rules.md claim about the lines the referee sends,
checked against games the referee plays (issue 30's doc gaps): the order of DREW and DRAW,
who gets HINTS? and HINT, what SCORE's points are, BYE after ERROR, and a covered One pile.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from referee.games.rage.match import RageMatch
from referee.games.rage.rules import RageConfig
from referee.games.thegame.codec import placements_text
from referee.games.thegame.match import TheGameMatch
from referee.games.thegame.rules import TheGameConfig, TheGameState
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ROOT / "protocols"


def recorded_thegame(players: int, seed: int, state: TheGameState | None = None,
                     turns: dict[int, str] | None = None) -> list[list[str]]:
    """Each seat's lines from a whole game: every seat hints `good:a` when asked and plays
    a legal turn the engine finds (or, at its n-th turn, `turns[n]`)."""
    seen: list[list[str]] = [[] for _ in range(players)]
    match: list[TheGameMatch] = []
    played = [0]

    def seat(number: int) -> FunctionPlayer:
        def handle(line: str) -> str | None:
            seen[number].append(line)
            if line == "HINTS?":
                return "good:a"
            if line.startswith("TURN?"):
                played[0] += 1
                if turns and played[0] in turns:
                    return turns[played[0]]
                found = match[0].state.find_legal_turn()
                assert found is not None
                return placements_text(found)
            return None
        return FunctionPlayer(f"seat{number}", handle)

    match.append(TheGameMatch([seat(n) for n in range(players)], TheGameConfig(players), seed,
                              TimeLimits(), state=state))
    match[0].run()
    return seen


def table_keywords(page: str) -> list[str]:
    text = (PROTOCOLS / page).read_text(encoding="utf-8")
    table = text.split("## Lines from the referee", 1)[1].split("\n\n")[1].splitlines()
    return [row.split("`")[1].split()[0] for row in table[2:]]


def test_drew_comes_before_draw_as_the_page_lists_them() -> None:
    keywords = table_keywords("thegame.md")
    assert keywords.index("DREW") == keywords.index("DRAW") - 1
    draws = 0
    for seat, lines in enumerate(recorded_thegame(3, seed=7)):
        for before, line in zip(lines, lines[1:]):
            if line.startswith("DRAW "):
                draws += 1
                assert before == f"DREW {seat} {len(line.split()) - 1}", (before, line)
    assert draws >= 5


def coming_seat(lines: list[str], players: int) -> int:
    """Whose turn comes, from a seat's lines so far, as thegame.md's HINTS? row says: the
    seat after the last TURNED line's, skipping seats told OUT; seat 0 first."""
    last, out = None, set()
    for line in lines:
        if line.startswith("TURNED "):
            last = int(line.split()[1])
        elif line.startswith("OUT "):
            out.add(int(line.split()[1]))
    if last is None:
        return 0
    seat = (last + 1) % players
    while seat in out:
        seat = (seat + 1) % players
    return seat


def hint_seats_since_turn(lines: list[str]) -> list[int]:
    """The seats of the HINT lines since the last TURNED line."""
    seats: list[int] = []
    for line in lines:
        if line.startswith("TURNED "):
            seats = []
        elif line.startswith("HINT "):
            seats.append(int(line.split()[1]))
    return seats


def test_hints_go_as_the_page_says() -> None:
    players = 4
    seen = recorded_thegame(players, seed=11)
    asked = full_rounds = 0
    for seat, lines in enumerate(seen):
        for at, line in enumerate(lines):
            earlier = lines[:at]
            if line == "HINTS?":
                asked += 1
                coming = coming_seat(earlier, players)
                assert coming != seat
                # asked one seat at a time in seat order: it has heard every seat below it
                # but the coming one, and no seat above it
                assert hint_seats_since_turn(earlier) == [
                    s for s in range(seat) if s != coming]
                following = next(x for x in lines[at:] if x.startswith("TURNED "))
                assert following.split()[1] == str(coming)
            elif line.startswith("TURN?"):
                assert coming_seat(earlier, players) == seat
                heard = hint_seats_since_turn(earlier)
                everyone_else = [s for s in range(players) if s != seat]
                assert heard in ([], everyone_else)  # [] while a notalk card shows
                full_rounds += heard == everyone_else
    assert asked > 20 and full_rounds > 5
    for seat, lines in enumerate(seen):
        assert not any(line.startswith(f"HINT {seat} ") for line in lines)
        for other in range(players):
            if other != seat:  # every HINTS? answered with hints reaches every other seat
                assert (sum(line.startswith(f"HINT {other} ") for line in lines)
                        == seen[other].count("HINTS?"))


def test_a_covered_one_pile_binds_no_later_card_as_the_rules_say() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "`a:18 a:25 c:85` (18 is a One pile)" in rules and "`a:18 c:85` is not (X3)" in rules

    def position() -> TheGameState:
        return TheGameState.from_deal(TheGameConfig(2), hands=[[18, 25, 85], [40, 50, 60]],
                                      draw_pile=[70, 44, 30], piles=[[10], [20], [90], [80]])

    played = recorded_thegame(2, seed=0, state=position(), turns={1: "a:18 a:25 c:85"})[1]
    assert "TURNED 0 a:18 a:25 c:85" in played
    refused = recorded_thegame(2, seed=0, state=position(), turns={1: "a:18 c:85"})[1]
    assert "TURNED 0 a:18 c:85" not in refused
    assert refused[-1] == "END result=lost reason=fault left=9"


def test_score_points_are_the_rounds_and_end_totals_sum_them() -> None:
    seen: list[str] = []

    def first(line: str) -> str | None:
        return line.split()[1] if line.split()[0].endswith("?") else None

    def recorder(line: str) -> str | None:
        seen.append(line)
        return first(line)

    players = [FunctionPlayer("recorder", recorder)] + [
        FunctionPlayer(f"first{n}", first) for n in range(1, 4)]
    RageMatch(players, RageConfig(4), 3, TimeLimits()).run()
    rounds = [[int(p) for p in line.split("points=")[1].split(",")]
              for line in seen if line.startswith("SCORE ")]
    totals = [int(t) for t in seen[-1].split("totals=")[1].split()[0].split(",")]
    assert len(rounds) == 10
    assert [sum(column) for column in zip(*rounds)] == totals
    running = [sum(column) for column in zip(*rounds[:2])]
    assert rounds[1] != running  # round 2's points are not a running total
    page = (PROTOCOLS / "rage.md").read_text(encoding="utf-8")
    assert "points scored **in round `r`** (not the running total" in page


def test_a_faulted_bot_gets_bye_after_error(tmp_path: Path) -> None:
    bot = Path(__file__).parent / "bots" / "faults_then_listens.py"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "rage", "--seed", "2",
         f"stdio:python {bot}", "python bots/rage_random.py", "python bots/rage_random.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    seen = [line.split("seen: ", 1)[1] for line in done.stderr.splitlines()
            if line.startswith("[faults_then_listens] seen: ")]
    assert [line.split()[0] for line in seen[-2:]] == ["ERROR", "BYE"], done.stderr
    assert seen[-2].startswith("ERROR protocol ")
    page = (PROTOCOLS / "README.md").read_text(encoding="utf-8")
    assert "then `BYE`, and stops your process group 0.2 s later" in page
