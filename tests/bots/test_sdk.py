"""The SDK's dispatch (bots/sdk.py): a decoded message per routed line, to its handler."""

from __future__ import annotations

import pytest

from bots.sdk import MessageBot, line_taker, take_each
from referee.games.rage import codec as rage
from protocols.message import Message
from protocols.wire import WireError


def recording_bot(seen: list[Message]) -> MessageBot:
    bot = MessageBot()
    bot.route(rage.Bid, seen.append)
    bot.route(rage.BidRequest, lambda request: rage.bid_reply(max(request.bids)))
    return bot


def test_a_routed_line_reaches_its_handler_decoded() -> None:
    seen: list[Message] = []
    bot = recording_bot(seen)
    assert bot.on_line("BID 1 2") is None
    assert bot.on_line("BID? 0 1 2") == "2"  # a request's handler gives the reply
    assert seen == [rage.Bid(1, 2)]


def test_a_line_of_no_route_is_not_even_read() -> None:
    seen: list[Message] = []
    bot = recording_bot(seen)
    assert bot.on_line("TRICK x y") is None and bot.on_line("BIDS") is None
    assert seen == []


@pytest.mark.parametrize("line", ["BID 1 02", "BID 1", "BID? 0 x", "BID  1 2"])
def test_a_routed_line_that_does_not_decode_raises_wire_error(line: str) -> None:
    with pytest.raises(WireError):
        recording_bot([]).on_line(line)


BATCHES = [
    ["BID 1 2", "BID? 0 1 2"],
    ["TRICK 1 0", "PLAY? r7", "BID? 3"],  # a request of no route gets an empty reply
    ["?", " BID? 1", "BIDS", "x? y", "LOG? z"],  # is_request's edge cases
    ["BID 0 1", "BYE", "BID? 0 1"],  # nothing after BYE is read
    [],
]


@pytest.mark.parametrize("lines", BATCHES)
def test_take_lines_does_what_a_line_by_line_loop_does(lines: list[str]) -> None:
    seen_fast: list[Message] = []
    seen_each: list[Message] = []
    fast_replies: list[str] = []
    each_replies: list[str] = []
    fast = recording_bot(seen_fast).take_lines(lines, fast_replies.append)
    each = take_each(recording_bot(seen_each).on_line, lines, each_replies.append)
    assert (fast, fast_replies, seen_fast) == (each, each_replies, seen_each)
    assert fast == ("BYE" not in lines)


def test_a_bot_that_changes_on_line_gets_every_line_through_it() -> None:
    class Counting(MessageBot):
        def on_line(self, line: str) -> str | None:
            return "mine"

    replies: list[str] = []
    assert line_taker(Counting())(["BID? 0 1"], replies.append)
    assert replies == ["mine"]
    plain = MessageBot()
    assert line_taker(plain) == plain.take_lines
