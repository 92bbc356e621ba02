"""Both codecs, both directions: every message round-trips, and every line decodes to a
typed message or a WireError, never anything else (protocols/message.py).

The referee's lines: `decode(encode(m)) == m` for a message of every type, and
`encode(decode(line)) == line` for any line that decodes, hostile ones included. The bots'
replies: the SDK's encoders and the referee's parsers invert each other.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.thegame_random import RandomBot
from referee.games.rage import codec as rage
from referee.games.thegame import codec as thegame
from protocols.message import Error, Message
from referee.games.thegame.codec import Hint
from protocols.wire import WireError, decode_line, error_line
from protocols.faults import FaultKind
from referee.games.rage.rules import RageConfig, Variant
from referee.games.rage.cards import Play, find_play
from referee.games.thegame.rules import TheGameConfig, Turn
from referee.games.rage.match import RageMatch
from referee.games.thegame.match import TheGameMatch
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits
from protocols.clock import Clock
from tests.bot_text import BOT_TEXT, DETAIL_BOUND
from tests.protocols.message_strategies import (
    HINTS, PLAY, RAGE, THEGAME, TURN, Strategies, mutated,
)
from tests.protocols.transcript_support import PROTOCOLS

CODECS: dict[str, tuple[ModuleType, Strategies]] = {
    "rage": (rage, RAGE), "thegame": (thegame, THEGAME)}
CASES = [(game, kind) for game, (_, strategies) in CODECS.items() for kind in strategies]
CASE_IDS = [f"{game}-{kind.KEYWORD}" for game, kind in CASES]
FUZZ = settings(max_examples=300, deadline=None)


def assert_exact_or_refused(codec: ModuleType, line: str) -> None:
    """`line` decodes to a message that spells it exactly, or is refused with a WireError
    (with a short detail), and nothing else happens."""
    try:
        message: Message = codec.decode(line)
    except WireError as error:
        assert len(str(error)) <= DETAIL_BOUND
        return
    assert message.encode() == line


def decoded_exactly(codec: ModuleType, line: str) -> type[Message]:
    """The type of the message `line` decodes to; it must spell `line` exactly."""
    message: Message = codec.decode(line)
    assert message.encode() == line
    return type(message)


@pytest.mark.parametrize("game", CODECS)
def test_every_message_of_a_codec_has_a_strategy(game: str) -> None:
    codec, strategies = CODECS[game]
    assert set(codec.MESSAGES) == set(strategies)


@pytest.mark.parametrize("game", CODECS)
def test_a_codec_has_a_message_per_row_of_its_spec_table(game: str) -> None:
    """protocols/<game>.md, "Lines from the referee": the same lines, in the same order."""
    text = (PROTOCOLS / f"{game}.md").read_text(encoding="utf-8")
    table = text.split("## Lines from the referee", 1)[1].split("\n\n")[1].splitlines()
    keywords = [row.split("`")[1].split()[0] for row in table[2:]]
    assert keywords == [kind.KEYWORD for kind in CODECS[game][0].MESSAGES]


@pytest.mark.parametrize("game, kind", CASES, ids=CASE_IDS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_decode_inverts_encode(game: str, kind: type[Message], data: st.DataObject) -> None:
    codec, strategies = CODECS[game]
    message = data.draw(strategies[kind])
    assert codec.decode(message.encode()) == message  # a dataclass equals only its own type


@pytest.mark.parametrize("game, kind", CASES, ids=CASE_IDS)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_damaged_line_decodes_to_exactly_itself_or_is_refused(
        game: str, kind: type[Message], data: st.DataObject) -> None:
    codec, strategies = CODECS[game]
    line = data.draw(strategies[kind]).encode()
    assert_exact_or_refused(codec, data.draw(mutated(line)))


RAGE_GAME = "GAME rage protocol=2 seat=0 players=3 rounds=10 variants={} move_ms=1000 bank_ms=0"
COMMANDS = ("COMMANDS stop=3,39,56,92 skull=6,42,59,95 three=9,45,62,77 notalk=12,27,65,80 "
            "noreverse=15,30,68,83 onepile=18,33,71,86 drawone=21,36,53,89")


@pytest.mark.parametrize("game, line", [
    ("rage", "BID 01 2"), ("rage", "BID -0 2"), ("rage", "BID 1 ٣"), ("rage", "HAND r5  J"),
    ("rage", "HAND "), ("rage", "HAND J J J"), ("rage", "PLAYED 0 J"), ("rage", "BID? 1 2 "),
    ("rage", RAGE_GAME.format("secret-bid,durchmarsch")),
    ("rage", RAGE_GAME.format("durchmarsch,durchmarsch")),
    ("rage", RAGE_GAME.format("none").replace("protocol=2", "protocol=1")),
    ("rage", RAGE_GAME.format("none").replace("move_ms=1000 bank_ms=0", "bank_ms=0 move_ms=1000")),
    ("rage", RAGE_GAME.format("none") + " clock=wall"),  # the default is never written
    ("rage", RAGE_GAME.format("none") + " clock=CPU"),
    ("rage", RAGE_GAME.format("none") + " clock="),
    ("rage", RAGE_GAME.format("none") + " clock=cpu clock=cpu"),
    ("rage", RAGE_GAME.format("none").replace("move_ms", "clock=cpu move_ms")),
    ("rage", "SCORE 9 bids=2,0 tricks=1,0,1 points=1,10,-4"), ("rage", "TRUMP none deal "),
    ("rage", "ERROR protocol a  b"), ("rage", "ERROR protocol"), ("rage", "ERROR protocol \tb"),
    ("rage", "BYE "), ("thegame", COMMANDS.replace("3,39", "39,3")),
    ("thegame", COMMANDS.replace("stop=3,39,56,92", "stop=3,39,56")),
    ("thegame", "TURNED 0 a:07"), ("thegame", "TURNED 0 a:100"), ("thegame", "TURNED 0"),
    ("thegame", "HINT 1"), ("thegame", "HINT 1 good:a good:b good:c good:d good:a"),
    ("thegame", "HINT 1 hold:7"), ("thegame", "HAND 1 2"), ("thegame", "HINTS? none"),
    ("thegame", "TURN? min=2 draw=2 a=55 b=20 c=61 d=101"),
    ("thegame", "END result=won reason=all-played left=00"),
    ("thegame", "GAME rage protocol=2 seat=0 players=2 hand=7 commands=on move_ms=1000 bank_ms=0"),
    ("thegame", "GAME thegame protocol=2 seat=0 players=2 hand=7 commands=yes move_ms=1 bank_ms=0"),
    ("thegame", "GAME thegame protocol=2 seat=0 players=2 hand=7 commands=on move_ms=1 bank_ms=0 "
                "clock=wall"),
])
def test_another_spelling_of_a_line_is_refused(game: str, line: str) -> None:
    """Each line has one spelling: no leading zeros, lists in their order, single spaces."""
    with pytest.raises(WireError):
        CODECS[game][0].decode(line)


@pytest.mark.parametrize("game", CODECS)
@FUZZ
@given(raw=st.binary(max_size=80) | BOT_TEXT.map(str.encode))
def test_any_bytes_give_a_message_or_a_wire_error(game: str, raw: bytes) -> None:
    codec, _ = CODECS[game]
    try:
        line = decode_line(raw)
    except WireError:
        return
    assert_exact_or_refused(codec, line)


@pytest.mark.parametrize("game", CODECS)
@FUZZ
@given(data=st.data())
def test_known_keywords_with_hostile_words_are_refused_or_exact(
        game: str, data: st.DataObject) -> None:
    codec, _ = CODECS[game]
    keyword = data.draw(st.sampled_from([kind.KEYWORD for kind in codec.MESSAGES]))
    assert_exact_or_refused(codec, f"{keyword} {data.draw(BOT_TEXT)}")


@pytest.mark.parametrize("game", CODECS)
@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(FaultKind), detail=BOT_TEXT)
def test_every_error_line_the_referee_writes_decodes(
        game: str, kind: FaultKind, detail: str) -> None:
    """Even one cut short to fit a line."""
    codec, _ = CODECS[game]
    line = error_line(kind.value, detail)
    message = codec.decode(line)
    assert isinstance(message, Error) and message.kind is kind and message.encode() == line


# ---- every line of real games -------------------------------------------------------

def recorded(players: int, seat_handler: Callable[[int], Callable[[str], str | None]],
             play: Callable[[list[FunctionPlayer]], Any]) -> list[str]:
    """Every line the referee sent any seat in one game."""
    lines: list[str] = []

    def recorder(seat: int) -> Callable[[str], str | None]:
        handler = seat_handler(seat)

        def on_line(line: str) -> str | None:
            lines.append(line)
            return handler(line)
        return on_line

    play([FunctionPlayer(f"p{seat}", recorder(seat)) for seat in range(players)])
    return lines


def first_option(seat: int) -> Callable[[str], str | None]:
    return lambda line: line.split()[1] if line.split()[0].endswith("?") else None


@pytest.mark.parametrize("variants", [frozenset(), frozenset({Variant.PLUS_MINUS_ONE}),
                                      frozenset({Variant.HIDDEN_BID, Variant.DURCHMARSCH}),
                                      frozenset({Variant.SECRET_BID})])
def test_every_line_of_a_rage_game_decodes(variants: frozenset[Variant]) -> None:
    lines = recorded(5, first_option, lambda players: RageMatch(
        players, RageConfig(5, variants), 11, TimeLimits()).run())
    kinds = {decoded_exactly(rage, line) for line in lines}
    assert {rage.Game, rage.Round, rage.Hand, rage.Flip, rage.Trump, rage.BidRequest,
            rage.Bid, rage.PlayRequest, rage.Played, rage.Trick, rage.Score, rage.End} <= kinds
    assert (rage.Bids in kinds) is bool(variants & {Variant.HIDDEN_BID, Variant.SECRET_BID})


@pytest.mark.parametrize("players, commands", [(1, True), (3, True), (4, False)])
def test_every_line_of_a_thegame_game_decodes(players: int, commands: bool) -> None:
    config = TheGameConfig(players) if commands else TheGameConfig(players, None)
    lines = recorded(players, lambda seat: RandomBot().on_line, lambda seats: TheGameMatch(
        seats, config, 7, TimeLimits()).run())
    kinds = {decoded_exactly(thegame, line) for line in lines}
    assert {thegame.Game, thegame.Hand, thegame.TurnRequest, thegame.Turned, thegame.Draw,
            thegame.Drew, thegame.End} <= kinds
    assert (thegame.Commands in kinds) is commands
    assert (thegame.HintsRequest in kinds) is (players > 1)


@pytest.mark.parametrize("clock", Clock)
def test_the_game_line_tells_the_clock_and_the_wall_clock_as_before(clock: Clock) -> None:
    """`clock=cpu` ends the GAME line where move_ms and bank_ms count CPU time; the wall
    clock, the default, is not written, so those lines read as before the key."""
    times = TimeLimits(move=0.25, bank=2.0, clock=clock)
    rage_lines = recorded(3, first_option, lambda players: RageMatch(
        players, RageConfig(3), 11, times).run())
    thegame_lines = recorded(2, lambda seat: RandomBot().on_line, lambda seats: TheGameMatch(
        seats, TheGameConfig(2), 7, times).run())
    games = [line for line in rage_lines + thegame_lines if line.startswith("GAME ")]
    assert len(games) == 5
    for line in games:
        codec = rage if line.startswith("GAME rage ") else thegame
        message = codec.decode(line)
        assert isinstance(message, (rage.Game, thegame.Game)) and message.encode() == line
        assert (message.clock, message.move_ms, message.bank_ms) == (clock, 250, 2000)
        tail = "bank_ms=2000" if clock is Clock.WALL else "bank_ms=2000 clock=cpu"
        assert line.endswith(tail)


# ---- the bots' replies: the SDK's encoders against the referee's parsers ------------

@given(bid=st.integers(0, 10 ** rage.MAX_BID_DIGITS - 1))
def test_a_bid_reply_reads_back(bid: int) -> None:
    assert rage.parse_bid(rage.bid_reply(bid)) == bid


@given(play=PLAY)
def test_a_play_reply_reads_back(play: Play) -> None:
    """The referee reads the notation and finds it among the legal plays (rage_match)."""
    reply = rage.play_reply(play)
    assert rage.check_play_syntax(reply) == reply
    assert find_play([play], reply) == play


@given(turn=TURN)
def test_a_turn_reply_reads_back(turn: Turn) -> None:
    assert thegame.parse_turn(thegame.turn_reply(turn)) == turn


@given(hints=HINTS | st.just(()))
def test_a_hints_reply_reads_back(hints: tuple[Hint, ...]) -> None:
    assert thegame.parse_hints(thegame.hints_reply(hints)) == hints
