"""The example transcript in protocols/thegame.md is a test vector.

Seat 0 replays the bot lines (`<`) of the transcript; every referee line (`>`) it receives
must match the spec byte for byte. Seat 1 is a small closest-card test double.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from protocols.thegame import placements_text
from referee.games.thegame import (
    PILE_NAMES, Turn, TheGameConfig, TheGameState, is_ascending, shortest_legal_turns_at,
)
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits
from referee.matches.thegame_match import TheGameMatch

SPEC = Path(__file__).resolve().parents[2] / "protocols" / "thegame.md"


def prepared_state() -> TheGameState:
    """An endgame of two players with the default commands: 59 is a skull, 36 draw-one."""
    return TheGameState.from_deal(
        TheGameConfig(2), hands=[[59, 63, 24], [52, 88, 36]], draw_pile=[70, 44],
        piles=[[55], [20], [61], [90]])


def gap(state: TheGameState, turn: Turn) -> int:
    """How much room a turn uses up: the test double's closest-card measure."""
    tops = list(state.tops())
    total = 0
    for placement in turn:
        step = placement.card - tops[placement.pile]
        total += step if is_ascending(placement.pile) else -step
        tops[placement.pile] = placement.card
    return total


def closest_turn(state: TheGameState) -> str:
    turns = shortest_legal_turns_at(state.position())
    return placements_text(min(turns, key=lambda t: (gap(state, t), placements_text(t))))


def double(match: list[TheGameMatch]) -> FunctionPlayer:
    """Seat 1: hints `good:P` for a pile it can play within 3, else plays closest."""
    def handle(line: str) -> str | None:
        state = match[0].state
        if line == "HINTS?":
            hand, tops = state.hands[1], state.tops()
            good = [f"good:{PILE_NAMES[p]}" for p in range(4) for card in hand
                    if 0 < (card - tops[p] if is_ascending(p) else tops[p] - card) <= 3]
            return " ".join(good) or "none"
        return closest_turn(state) if line.startswith("TURN?") else None
    return FunctionPlayer("double", handle)


def spec_transcript() -> list[str]:
    text = SPEC.read_text(encoding="utf-8")
    block = text.split("## Example transcript", 1)[1].split("```\n", 2)[1]
    return block.splitlines()


def run_transcript(reply: Callable[[str], str]) -> list[str]:
    seen: list[str] = []
    match: list[TheGameMatch] = []

    def seat0(line: str) -> str | None:
        seen.append("> " + line)
        if not line.split()[0].endswith("?"):
            return None
        answer = reply(line)
        seen.append("< " + answer)
        return answer

    players = [FunctionPlayer("transcript", seat0), double(match)]
    match.append(TheGameMatch(players, TheGameConfig(2), 0, TimeLimits(),
                              state=prepared_state()))
    match[0].run()
    return seen


def test_spec_transcript_replays_byte_for_byte() -> None:
    expected = spec_transcript()
    replies = iter(line[2:] for line in expected if line.startswith("< "))
    assert run_transcript(lambda _: next(replies)) == expected


def test_transcript_shows_each_message_kind() -> None:
    keywords = {line[2:].split()[0] for line in spec_transcript()}
    assert {"GAME", "COMMANDS", "HAND", "HINTS?", "HINT", "TURN?", "TURNED", "DRAW",
            "DREW", "END"} <= keywords
