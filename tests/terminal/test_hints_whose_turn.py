"""`HINTS?` does not say whose turn the hints are for (protocols/thegame.md: the seat after
the last `TURNED` one, skipping seats `OUT`, seat 0 before the first turn, X10); the
person's desk works it out from the seat's lines and says it."""

from __future__ import annotations

from referee.ansi import Paint
from referee.games.thegame.terminal import TheGameDesk

# Seat 1's lines of a real 3-seat game (seed 8), each HINTS? it was asked, then seat 2
# made out of cards.
LINES = """GAME thegame protocol=2 seat=1 players=3 hand=6 commands=on move_ms=1000 bank_ms=0
COMMANDS stop=3,39,56,92 skull=6,42,59,95 three=9,45,62,77 notalk=12,27,65,80 noreverse=15,30,68,83 onepile=18,33,71,86 drawone=21,36,53,89
HAND 3 34 38 42 45 88
HINTS?
TURNED 0 a:2 c:82
DREW 0 2
TURN? min=2 draw=78 a=2 b=1 c=82 d=100
TURNED 1 a:3
DREW 1 1
DRAW 79
HINTS?
TURNED 2 c:57 c:67
DREW 2 2
HINTS?
TURNED 0 c:48 c:58
DREW 0 2
OUT 2
TURN? min=2 draw=0 a=3 b=1 c=58 d=100
TURNED 1 c:45
DRAW 98
HINTS?""".splitlines()


def _prompts() -> list[str]:
    desk = TheGameDesk(Paint(False))
    prompts = []
    for line in LINES:
        desk.see(line)
        if line == "HINTS?":
            prompts += [text for text in desk.screen(line) if text.startswith("Hints for")]
    return prompts


def test_each_hints_prompt_names_the_seat_about_to_play() -> None:
    assert [prompt.split(":")[0] for prompt in _prompts()] == [
        "Hints for seat 0's turn, coming next",   # before the first turn: seat 0 (X10)
        "Hints for seat 2's turn, coming next",   # after seat 1's own turn
        "Hints for seat 0's turn, coming next",   # after seat 2's
        "Hints for seat 0's turn, coming next",   # seat 2 is out: its turn is skipped
    ]
