"""What reaches each seat during a match is exactly what its view may see: every event
line of the game, in order, once, and nothing of another seat's hand or hidden bid."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bots.rage_random import RandomBot as RageRandom
from bots.thegame_random import RandomBot as TheGameRandom
from referee.games.rage import codec as rage_codec
from referee.games.thegame import codec as thegame_codec
from protocols.wire import is_request
from referee.errors import ProtocolError
from referee.games.rage.rules import RageConfig, Variant
from tests.games.views import visible_events
from referee.games.thegame.rules import TheGameConfig
from tests.games.views import thegame_view as view
from referee.players.player import FunctionPlayer
from referee.games.rage.match import RageMatch
from referee.settings import TimeLimits
from referee.games.thegame.match import TheGameMatch

Handler = Callable[[str], "str | None"]


def recording(seat_lines: list[str], handler: Handler) -> Handler:
    def handle(line: str) -> str | None:
        seat_lines.append(line)
        return handler(line)
    return handle


def told(lines: list[str], keywords: set[str]) -> list[str]:
    """The lines that announce engine events (by keyword), in the order received."""
    return [line for line in lines if line.split(" ", 1)[0] in keywords and not is_request(line)]


@pytest.mark.parametrize("variants", [
    frozenset(), frozenset({Variant.HIDDEN_BID}), frozenset({Variant.SECRET_BID}),
    frozenset({Variant.PLUS_MINUS_ONE, Variant.DURCHMARSCH})])
def test_rage_seats_receive_exactly_their_visible_events(variants: frozenset[Variant]) -> None:
    received: list[list[str]] = [[] for _ in range(4)]
    players = [FunctionPlayer(f"b{s}", recording(received[s], RageRandom().on_line))
               for s in range(4)]
    match = RageMatch(players, RageConfig(4, variants, rounds=4), 5, TimeLimits())
    assert match.run().faults == ()
    keywords = {"ROUND", "HAND", "FLIP", "TRUMP", "BID", "BIDS", "PLAYED", "TRICK", "SCORE"}
    for seat in range(4):
        expected = [line for e in visible_events(match.state, seat)
                    if (line := rage_codec.encode_event(e)) is not None]
        assert told(received[seat], keywords) == expected
        assert sum(line.startswith("HAND ") for line in received[seat]) == 4  # its own only


@pytest.mark.parametrize("players", [1, 3])
def test_thegame_seats_receive_exactly_their_visible_events(players: int) -> None:
    received: list[list[str]] = [[] for _ in range(players)]
    bots = [FunctionPlayer(f"b{s}", recording(received[s], TheGameRandom().on_line))
            for s in range(players)]
    match = TheGameMatch(bots, TheGameConfig(players), 3, TimeLimits())
    match.run()
    keywords = {"HAND", "DRAW", "DREW", "TURNED", "OUT", "END"}
    for seat in range(players):
        expected = [line for e in view(match.state, seat).events
                    if (line := thegame_codec.encode_event(e)) is not None]
        assert told(received[seat], keywords) == expected
        assert expected[0].startswith("HAND ") and expected[-1].startswith("END ")


def faulting_at(ask_no: int, handler: Handler) -> Handler:
    """`handler`, but the `ask_no`-th request is answered by a protocol fault."""
    asks = 0

    def handle(line: str) -> str | None:
        nonlocal asks
        if is_request(line):
            asks += 1
            if asks == ask_no:
                raise ProtocolError("a fault made up by the test", line)
        return handler(line)
    return handle


def test_after_a_seat_faults_the_others_still_receive_exactly_their_events() -> None:
    """Table keeps each seat's held lines in one list for the game: after a fault, the
    faulted seat gets nothing more and every other seat still gets all it may see."""
    received: list[list[str]] = [[] for _ in range(4)]
    handlers = [RageRandom().on_line for _ in range(4)]
    handlers[1] = faulting_at(7, handlers[1])
    players = [FunctionPlayer(f"b{s}", recording(received[s], handlers[s]))
               for s in range(4)]
    match = RageMatch(players, RageConfig(4, rounds=4), 5, TimeLimits())
    assert [fault.seat for fault in match.run().faults] == [1]
    keywords = {"ROUND", "HAND", "FLIP", "TRUMP", "BID", "BIDS", "PLAYED", "TRICK", "SCORE"}
    for seat in (0, 2, 3):
        expected = [line for e in visible_events(match.state, seat)
                    if (line := rage_codec.encode_event(e)) is not None]
        assert told(received[seat], keywords) == expected
    faulted = received[1]
    assert faulted[-1].startswith("ERROR protocol ")
    assert sum(is_request(line) for line in faulted) == 7


@pytest.mark.parametrize("variants", [frozenset(), frozenset({Variant.SECRET_BID})])
def test_rage_lines_are_the_same_with_an_observer(variants: frozenset[Variant]) -> None:
    """With an observer the match delivers built events, without one the engine's raw
    records (RageMatch._deliver): each seat receives the same lines either way."""
    def run(observed: bool) -> list[list[str]]:
        received: list[list[str]] = [[] for _ in range(4)]
        players = [FunctionPlayer(f"b{s}", recording(received[s], RageRandom().on_line))
                   for s in range(4)]
        seen: list[object] = []
        RageMatch(players, RageConfig(4, variants, rounds=3), 9, TimeLimits(),
                  observer=seen.append if observed else None).run()
        assert bool(seen) == observed
        return received

    assert run(observed=True) == run(observed=False)
