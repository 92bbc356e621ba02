"""Write protocols/thegame-vectors.jsonl: The Game's turns with the referee's verdicts.

Each line is one position as the active bot sees it, one turn, and what the referee's own
engine (referee/games/thegame/rules.py, check_turn_at) says of it: `legal`, or `illegal`
with the exact reason a fault would carry. A bot author runs their turn checker over the
file; tests/protocols/test_thegame_vectors.py regenerates it and compares byte for byte,
so it always says what the referee does.

    python tools/thegame_vectors.py            # rewrite the file
    python tools/thegame_vectors.py --check    # exit 1 if the file is stale

The positions are drawn at random from a fixed seed, biased towards what makes turn checks
hard: command cards in hand and on top of piles, short hands, an empty draw pile, the
game's last turn. The turns are legal ones found by the engine and near misses made from
them (a card dropped, added, moved to another pile, two cards swapped).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from referee.errors import RuleError
from referee.games.thegame.codec import Commands, TurnRequest, parse_turn, turn_reply
from referee.games.thegame.commands import DEFAULT_COMMANDS, HIGHEST_CARD, LOWEST_CARD
from referee.games.thegame.rules import (
    ASCENDING_START,
    DESCENDING_START,
    PILE_COUNT,
    Placement,
    Position,
    Turn,
    check_turn_at,
    is_ascending,
    legal_turns_at,
)

VECTORS = Path(__file__).resolve().parent.parent / "protocols" / "thegame-vectors.jsonl"
SEED = 30
POSITIONS = 120
LEGAL_PER_POSITION = 2
MISSES_PER_POSITION = 3
COMMAND_CARDS = tuple(sorted(DEFAULT_COMMANDS.by_number))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the file instead of writing it; exit 1 if it differs")
    args = parser.parse_args(argv)
    text = vectors_text()
    if args.check:
        if VECTORS.read_text(encoding="utf-8") != text:
            print(f"{VECTORS} is stale: run python tools/thegame_vectors.py", file=sys.stderr)
            return 1
        return 0
    VECTORS.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} vectors to {VECTORS}")
    return 0


def vectors_text() -> str:
    """The file's whole text, the same on every run."""
    rng = random.Random(SEED)
    lines = [json.dumps(vector(position, parse_turn(text)), separators=(", ", ": "))
             for position, text in crafted()]
    for _ in range(POSITIONS):
        position = random_position(rng)
        seen: set[Turn] = set()
        for turn in turns_for(position, rng):
            if turn not in seen:
                seen.add(turn)
                lines.append(json.dumps(vector(position, turn), separators=(", ", ": ")))
    return "\n".join(lines) + "\n"


def vector(position: Position, turn: Turn) -> dict[str, object]:
    """One line: the position, the turn, the verdict and (when illegal) the referee's reason."""
    try:
        check_turn_at(position, turn)
        verdict, reason = "legal", None
    except RuleError as error:
        verdict, reason = "illegal", str(error)
    return {
        "commands": "off" if position.commands is None
        else Commands.line(position.commands).removeprefix("COMMANDS "),
        "request": TurnRequest.line(position.min_cards, position.draw_pile_size,
                                    position.tops),
        "hand": list(position.hand),
        "others_cards": position.others_cards,
        "turn": turn_reply(turn),
        "verdict": verdict,
        "card": failing_card(reason),
        "reason": reason,
    }


def failing_card(reason: str | None) -> int | None:
    """The 1-based card the verdict blames, 0 for the turn as a whole, None when legal."""
    if reason is None:
        return None
    if reason.startswith("card #"):
        return int(reason.removeprefix("card #").split(" ", 1)[0])
    return 0


def crafted() -> Iterator[tuple[Position, str]]:
    """The rulings' own cases, each next to the turn that differs from it in one card."""
    def at(tops: tuple[int, ...], hand: tuple[int, ...], draw: int = 20,
           others: int = 6) -> Position:
        return Position(tops=tops, hand=hand, draw_pile_size=draw, players=2,
                        others_cards=others)
    free = (10, 20, 90, 80)
    # X2 and X3: a One pile binds the cards after it, until it is covered, also mid-turn
    yield at(free, (18, 25, 85)), "a:18 a:25 c:85"
    yield at(free, (18, 25, 85)), "a:18 c:85"
    yield at(free, (18, 25, 85)), "a:25 a:18"
    yield at((18, 20, 90, 80), (25, 85, 70)), "c:85 c:70"
    yield at((18, 20, 90, 80), (25, 85, 70)), "a:25 c:85"
    # X2: the card that covers a No reverse may not be a reverse trick itself
    yield at((15, 20, 90, 80), (5, 25)), "a:5 a:25"
    yield at((15, 20, 90, 80), (5, 25)), "a:25 a:5"
    # X5: a hand shorter than the minimum may only open with a Stop
    yield at(free, (30,)), "a:30"
    yield at(free, (39,)), "a:39"
    # X6: a skull may cover a skull, which must then be covered too
    yield at((40, 20, 90, 80), (42, 59, 63)), "a:42 a:59 a:63"
    yield at((40, 20, 90, 80), (42, 59, 63)), "a:42 a:59"
    # X7: a Stop may not leave one's own skull showing, except as the game's last card
    yield at((30, 20, 60, 80), (42, 56)), "a:42 c:56"
    yield at((30, 20, 60, 80), (42, 56), draw=0, others=0), "a:42 c:56"
    yield at((30, 20, 60, 80), (42, 56)), "a:42 a:56"
    # docs/rules.md, Skull: only the game's last turn may leave a skull showing
    yield at((50, 20, 90, 80), (59,), draw=0, others=0), "a:59"
    yield at((50, 20, 90, 80), (59,), draw=0, others=3), "a:59"
    # X8: two 3! cards still mean exactly 3 cards; a 3! as 4th card is too late
    yield at((40, 20, 90, 80), (45, 62, 70, 71)), "a:45 a:62 a:70"
    yield at((40, 20, 90, 80), (45, 62, 70, 71)), "a:45 a:62 a:70 a:71"
    yield at((40, 20, 90, 80), (45, 62, 70, 71)), "a:70 a:71 b:25"
    yield at((40, 20, 90, 80), (50, 60, 70, 77)), "a:50 a:60 a:70 c:77"
    # a Stop under a 3! only as the 3rd card; nothing after a Stop
    yield at((40, 20, 90, 80), (45, 56, 70)), "a:45 a:56 a:70"
    yield at((40, 20, 90, 80), (45, 56, 70)), "a:45 a:70 b:56"
    yield at((40, 20, 90, 80), (56, 70)), "a:56 a:70"
    # cards not in the hand, or played twice
    yield at(free, (30, 40)), "a:30 a:50"
    yield at(free, (30, 40)), "a:30 a:30"


def random_position(rng: random.Random) -> Position:
    """Tops, hand, draw pile and the other hands' size, biased towards the hard cases."""
    players = rng.randint(1, 5)
    commands = None if rng.random() < 0.15 else DEFAULT_COMMANDS
    tops = [random_top(pile, rng) for pile in range(PILE_COUNT)]
    used = {t for t in tops if LOWEST_CARD <= t <= HIGHEST_CARD}
    size = rng.choice((1, 2, 3, 3, 4, 5, 6, 6, 7, 8))
    hand: set[int] = set()
    while len(hand) < size:
        card = near_a_top(tops, rng) if rng.random() < 0.6 else rng.randint(LOWEST_CARD,
                                                                             HIGHEST_CARD)
        if rng.random() < 0.35:
            card = rng.choice(COMMAND_CARDS)
        if card not in used and LOWEST_CARD <= card <= HIGHEST_CARD:
            hand.add(card)
    draw = rng.choice((0, 0, 1, 5, 20, 40))
    others = 0 if draw == 0 and rng.random() < 0.5 else rng.randint(1, 20)
    return Position(tops=tuple(tops), hand=tuple(sorted(hand)), draw_pile_size=draw,
                    players=players, commands=commands, others_cards=others)


def random_top(pile: int, rng: random.Random) -> int:
    if rng.random() < 0.15:
        return ASCENDING_START if is_ascending(pile) else DESCENDING_START
    if rng.random() < 0.35:
        return rng.choice(COMMAND_CARDS)
    return rng.randint(LOWEST_CARD, HIGHEST_CARD)


def near_a_top(tops: list[int], rng: random.Random) -> int:
    """A card within reach of a pile: just past its top, or a reverse trick."""
    pile = rng.randrange(PILE_COUNT)
    step = rng.choice((1, 2, 3, 5, 8, -10))
    return tops[pile] + step if is_ascending(pile) else tops[pile] - step


def turns_for(position: Position, rng: random.Random) -> Iterator[Turn]:
    """A few legal turns, near misses made from them, and a blind guess or two."""
    legal = list(itertools.islice(legal_turns_at(position, max_cards=4), 200))
    picks = rng.sample(legal, min(LEGAL_PER_POSITION, len(legal)))
    yield from picks
    for base in picks or [random_turn(position, rng)]:
        for _ in range(MISSES_PER_POSITION):
            yield near_miss(base, position, rng)
    yield random_turn(position, rng)


def random_turn(position: Position, rng: random.Random) -> Turn:
    cards = rng.sample(position.hand, rng.randint(1, min(4, len(position.hand))))
    return tuple(Placement(rng.randrange(PILE_COUNT), card) for card in cards)


def near_miss(turn: Turn, position: Position, rng: random.Random) -> Turn:
    """The turn changed in one small way: the shapes a buggy checker most often gets wrong."""
    placements = list(turn)
    unplayed = [c for c in position.hand if c not in {p.card for p in placements}]
    change = rng.choice(("drop", "add", "move", "swap"))
    if change == "drop" and len(placements) > 1:
        del placements[rng.randrange(len(placements))]
    elif change == "add" and unplayed:
        placements.insert(rng.randint(0, len(placements)),
                          Placement(rng.randrange(PILE_COUNT), rng.choice(unplayed)))
    elif change == "swap" and len(placements) > 1:
        i, j = rng.sample(range(len(placements)), 2)
        placements[i], placements[j] = placements[j], placements[i]
    else:
        i = rng.randrange(len(placements))
        placements[i] = Placement((placements[i].pile + rng.randint(1, 3)) % PILE_COUNT,
                                  placements[i].card)
    return tuple(placements)


if __name__ == "__main__":
    sys.exit(main())
