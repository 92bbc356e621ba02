"""The example transcript in protocols/rage.md is a test vector.

A scripted seat replays the bot lines (`<`) of the transcript; every referee line (`>`)
it receives must match the spec byte for byte, and decode with referee/games/rage/codec.py.
"""

from __future__ import annotations

from referee.games.rage import codec as rage
from referee.games.rage.rules import RageConfig, RageState
from referee.games.rage.cards import cards_from_faces
from referee.games.rage.match import RageMatch
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits
from tests.protocols.transcript_support import (
    bot_lines, decoded, exchanges, recording_seat, spec_transcript,
)

TRANSCRIPT = spec_transcript("rage.md")


def prepared_state() -> RageState:
    """Round 9 of 10 from an explicit deal (dealer 2 per R11); round 10 from seed 5."""
    hand0, hand1, hand2, stock = cards_from_faces("J r5", "r9 NT", "y12 +5", "TC y4 b7 g2")
    return RageState.from_deal(RageConfig(3), [hand0, hand1, hand2], stock,
                               dealer=2, round_no=9, seed=5)


def first_option(line: str) -> str | None:
    """Seats 1 and 2: reply the first listed option."""
    words = line.split()
    return words[1] if words[0].endswith("?") else None


def run_transcript(replies: list[str]) -> list[str]:
    """Play the prepared game with seat 0 replaying `replies`; its whole exchange."""
    seen: list[str] = []
    script = iter(replies)
    players = [FunctionPlayer("transcript", recording_seat(lambda _: next(script), seen)),
               FunctionPlayer("first-1", first_option), FunctionPlayer("first-2", first_option)]
    RageMatch(players, RageConfig(3), 5, TimeLimits(), state=prepared_state()).run()
    return seen


def test_spec_transcript_replays_byte_for_byte() -> None:
    replies = list(bot_lines(TRANSCRIPT))
    assert len(replies) >= 4
    assert run_transcript(replies) == TRANSCRIPT


def test_transcript_shows_each_message_kind() -> None:
    kinds = {type(message) for message in decoded(rage, TRANSCRIPT)}
    assert {rage.Game, rage.Round, rage.Hand, rage.Flip, rage.Trump, rage.BidRequest,
            rage.Bid, rage.PlayRequest, rage.Played, rage.Trick, rage.Score, rage.End} <= kinds


def test_each_reply_is_a_listed_option_the_sdk_writes_alike() -> None:
    for request, reply in exchanges(TRANSCRIPT):
        match rage.decode(request):
            case rage.BidRequest(bids):
                assert rage.parse_bid(reply) in bids
                assert rage.bid_reply(rage.parse_bid(reply)) == reply
            case rage.PlayRequest(plays):
                assert rage.check_play_syntax(reply) == reply
                assert reply in [rage.play_reply(play) for play in plays]
            case other:
                raise AssertionError(f"a reply to {other}")
