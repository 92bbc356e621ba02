"""The example transcript in protocols/rage.md is a test vector.

A scripted seat replays the bot lines (`<`) of the transcript; every referee line (`>`)
it receives must match the spec byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from referee.games.rage import RageConfig, RageState
from referee.games.rage_cards import cards_from_faces
from referee.players.player import FunctionPlayer
from referee.matches.rage_match import RageMatch
from referee.settings import TimeLimits

SPEC = Path(__file__).resolve().parents[2] / "protocols" / "rage.md"


def prepared_state() -> RageState:
    """Round 9 of 10 from an explicit deal (dealer 2 per R11); round 10 from seed 5."""
    hand0, hand1, hand2, stock = cards_from_faces("J r5", "r9 NT", "y12 +5", "TC y4 b7 g2")
    return RageState.from_deal(RageConfig(3), [hand0, hand1, hand2], stock,
                               dealer=2, round_no=9, seed=5)


def first_option(line: str) -> str | None:
    """Seats 1 and 2: reply the first listed option."""
    words = line.split()
    return words[1] if words[0].endswith("?") else None


def spec_transcript() -> list[str]:
    text = SPEC.read_text(encoding="utf-8")
    block = text.split("## Example transcript", 1)[1].split("```\n", 2)[1]
    return block.splitlines()


def run_transcript(bot_lines: list[str]) -> list[str]:
    """Play the prepared game with seat 0 replaying `bot_lines`; its whole exchange."""
    replies = iter(bot_lines)
    seen: list[str] = []

    def scripted(line: str) -> str | None:
        seen.append("> " + line)
        if not line.split()[0].endswith("?"):
            return None
        reply = next(replies)
        seen.append("< " + reply)
        return reply

    players = [FunctionPlayer("transcript", scripted),
               FunctionPlayer("first-1", first_option), FunctionPlayer("first-2", first_option)]
    RageMatch(players, RageConfig(3), 5, TimeLimits(), state=prepared_state()).run()
    return seen


def test_spec_transcript_replays_byte_for_byte() -> None:
    expected = spec_transcript()
    bot_lines = [line[2:] for line in expected if line.startswith("< ")]
    assert len(bot_lines) >= 4
    assert run_transcript(bot_lines) == expected


def test_transcript_shows_each_message_kind() -> None:
    keywords = {line[2:].split()[0] for line in spec_transcript()}
    assert {"GAME", "ROUND", "HAND", "FLIP", "TRUMP", "BID?", "BID", "PLAY?", "PLAYED",
            "TRICK", "SCORE", "END"} <= keywords
