"""The Python bot SDK: connect, handshake, the message loop, and dispatch by message type.

A bot is an object with `on_line(line) -> str | None`: it is given every referee line and
returns the reply to requests (lines whose first word ends in '?'). `run_bot` does the rest:

    run_bot("mybot", "1.0", MyBot())

`MessageBot` is the base of the game SDKs (bots/rage_sdk.py, bots/thegame_sdk.py): it
decodes each line with the game's codec (protocols/<game>.py) and hands the typed message
to the handler its subclass routed that message type to.

It connects over ZeroMQ (a DEALER to $REFEREE_ENDPOINT, spoken by bots/zmtp_dealer.py
without a ZeroMQ library) or, when the referee started it as `stdio:COMMAND`, over
standard input and output. See protocols/README.md.
"""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import Any, Callable, Protocol, TypeVar

from protocols.message import Bye, Message, decode_as
from protocols.wire import (
    ENV_ENDPOINT, ENV_TOKEN, STDIO_ENDPOINT, format_hello, is_request,
)

M = TypeVar("M", bound=Message)
BYE = Bye.line()


class Bot(Protocol):
    def on_line(self, line: str) -> str | None:
        """Handle one referee line; return the reply if it is a request."""


class MessageBot:
    """Dispatches each referee line, decoded, to the handler routed to its message type.

    Only routed lines are decoded (a bot ignores the rest), and a routed line that does not
    decode raises the codec's WireError: the referee never sends one.
    """

    def __init__(self) -> None:
        # keyword -> (message type, handler); Any: each pair's types agree, by `route`
        self._routes: dict[str, tuple[type[Message], Callable[[Any], str | None]]] = {}

    def route(self, kind: type[M], handler: Callable[[M], str | None]) -> None:
        """Hand every `kind` line, decoded, to `handler`; a request's handler returns the reply."""
        self._routes[kind.KEYWORD] = (kind, handler)

    def on_line(self, line: str) -> str | None:
        route = self._routes.get(line.partition(" ")[0])
        if route is None:
            return None
        kind, handler = route
        return handler(decode_as(kind, line))

    def take_lines(self, lines: list[str], send: Callable[[str], None]) -> bool:
        """take_each(self.on_line, lines, send), in one loop: a batch holds a decision's
        lines (some seven in Rage) and a call per line was most of a bot's time. Each
        line is split once; its keyword routes it and says whether it is a request."""
        routes = self._routes
        for line in lines:
            if line == BYE:
                return False
            keyword, space, rest = line.partition(" ")
            route = routes.get(keyword)
            reply = None
            if route is not None:
                kind, handler = route  # decode_as, its keyword already matched
                reply = handler(kind.from_words(rest.split(" ") if space else []))
            if keyword[-1:] == "?":  # is_request(line)
                send(reply if reply is not None else "")
        return True


class Connection(Protocol):
    def send(self, line: str) -> None: ...
    def recv_lines(self) -> list[str] | None: ...  # the next batch; None: the referee is gone
    def close(self) -> None: ...


class StdioConnection:
    """Lines over this process's standard streams."""

    def send(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def recv_lines(self) -> list[str] | None:
        line = sys.stdin.readline()
        return [line.rstrip("\n")] if line else None

    def close(self) -> None:
        pass


def connect() -> Connection:
    """The connection the referee asked for in this process's environment."""
    endpoint = os.environ.get(ENV_ENDPOINT)
    if not endpoint:
        sys.exit(f"{ENV_ENDPOINT} is not set: bots are started by the referee "
                 "(see `referee play --help`)")
    if endpoint == STDIO_ENDPOINT:
        return StdioConnection()
    from bots.zmtp_dealer import DealerConnection  # a stdio bot never needs it

    return DealerConnection(endpoint)


def take_each(on_line: Callable[[str], str | None], lines: list[str],
              send: Callable[[str], None]) -> bool:
    """Give each line to `on_line` and send its reply to every request (an empty line
    if it gave none); False at BYE, whose following lines are not read."""
    for line in lines:
        if line == BYE:
            return False
        reply = on_line(line)
        if is_request(line):
            send(reply if reply is not None else "")
    return True


def line_taker(bot: Bot) -> Callable[[list[str], Callable[[str], None]], bool]:
    """How run_bot hands `bot` a batch: a MessageBot's own loop, unless its class
    changed on_line (then every line goes through that)."""
    if isinstance(bot, MessageBot) and type(bot).on_line is MessageBot.on_line:
        return bot.take_lines
    return partial(take_each, bot.on_line)


def run_bot(name: str, version: str, bot: Bot) -> None:
    """Handshake, then feed every line to `bot` until BYE or the referee goes away."""
    connection = connect()
    connection.send(format_hello(os.environ.get(ENV_TOKEN, ""), name, version))
    take, send = line_taker(bot), connection.send
    try:
        while (lines := connection.recv_lines()) is not None:
            if not take(lines, send):
                return
    finally:
        connection.close()

