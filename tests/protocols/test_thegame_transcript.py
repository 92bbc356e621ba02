"""The example transcript in protocols/thegame.md is a test vector.

Seat 0 replays the bot lines (`<`) of the transcript; every referee line (`>`) it receives
must match the spec byte for byte, and decode with referee/games/thegame/codec.py. Seat 1 is a small
closest-card test double.
"""

from __future__ import annotations

from referee.games.thegame import codec as thegame
from referee.games.thegame.codec import placements_text
from referee.games.thegame.rules import (
    PILE_NAMES, Turn, TheGameConfig, TheGameState, is_ascending, shortest_legal_turns_at,
)
from referee.games.thegame.match import TheGameMatch
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits
from tests.protocols.transcript_support import (
    bot_lines, decoded, exchanges, recording_seat, spec_transcript,
)

TRANSCRIPT = spec_transcript("thegame.md")


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


def run_transcript(replies: list[str]) -> list[str]:
    """Play the prepared game with seat 0 replaying `replies`; its whole exchange."""
    seen: list[str] = []
    script = iter(replies)
    match: list[TheGameMatch] = []
    players = [FunctionPlayer("transcript", recording_seat(lambda _: next(script), seen)),
               double(match)]
    match.append(TheGameMatch(players, TheGameConfig(2), 0, TimeLimits(),
                              state=prepared_state()))
    match[0].run()
    return seen


def test_spec_transcript_replays_byte_for_byte() -> None:
    assert run_transcript(list(bot_lines(TRANSCRIPT))) == TRANSCRIPT


def test_transcript_shows_each_message_kind() -> None:
    kinds = {type(message) for message in decoded(thegame, TRANSCRIPT)}
    assert {thegame.Game, thegame.Commands, thegame.Hand, thegame.HintsRequest,
            thegame.Hinted, thegame.TurnRequest, thegame.Turned, thegame.Draw, thegame.Drew,
            thegame.Out, thegame.End} <= kinds


def test_each_reply_reads_back_as_the_sdk_writes_it() -> None:
    for request, reply in exchanges(TRANSCRIPT):
        match thegame.decode(request):
            case thegame.TurnRequest():
                assert thegame.turn_reply(thegame.parse_turn(reply)) == reply
            case thegame.HintsRequest():
                assert thegame.hints_reply(thegame.parse_hints(reply)) == reply
            case other:
                raise AssertionError(f"a reply to {other}")
