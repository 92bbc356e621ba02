"""The SDK's dispatch (bots/sdk.py): a decoded message per routed line, to its handler."""

from __future__ import annotations

import pytest

from bots.sdk import MessageBot
from protocols import rage
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
