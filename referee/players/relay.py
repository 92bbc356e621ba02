"""`referee connect`: the contestant's end of a remote seat.

It connects to the referee's `--listen` address over CurveZMQ with the contestant's key,
runs their unchanged bot here exactly as the referee runs a local one (ZeroMQ or stdio, the
same environment and HELLO with a one-time token, checked here), and carries lines both
ways: the referee's lines to the bot as they come, the bot's lines to the referee one by
one. A session starts when the referee seats the bot (START: the bot is started here)
and ends with BYE, the bot's end or a lost connection; sessions follow one another until
the referee says the event is over (END).

Nothing here judges a line: the referee does, with its clock, at its end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import zmq
from zmq.utils.monitor import parse_monitor_message

from protocols.remote_relay import (
    END, EXIT, JOIN, REFUSED, RELAYED_TOKEN, SEATED, START, note, read_note,
)
from protocols.message import Error
from protocols.wire import format_hello
from referee import __version__
from referee.errors import BotFault, ConfigError
from referee.players.remote_player import BYE, RemotePlayer
from referee.printable import printable
from referee.processes.bot_command import BotCommand
from referee.settings import ResourceLimits, TimeLimits
from referee.transport.channel import crash_fault
from referee.transport.curve_keys import KeyPair
from referee.transport.endpoints import TcpAddress
from referee.transport.zmq_channel import ZmqHub

SLICE = 0.02  # the longest the relay sleeps before it looks at everything again
SEND_LIMIT = 5.0  # seconds a bot slow to read its lines is given
HEARTBEAT_MS = 1000  # the referee's end answers within; silent 3 of them: gone
RECONNECT_MS = 200
FAULT_LINE = f"{Error.KEYWORD} "
# Handshakes the referee ends without a word, in a row, before the relay gives up: a
# CurveZMQ server hangs up on a client that used another server key (it cannot read the
# client's HELLO), and tells nothing; a retry would meet the same fate.
SILENT_HANGUPS = 3


class RelayStop(Exception):
    """The relay ends: `code` is its exit code, `message` says why."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class RelaySettings:
    address: TcpAddress
    keys: KeyPair
    server_key: bytes
    command: BotCommand
    times: TimeLimits = TimeLimits()
    limits: ResourceLimits = ResourceLimits()
    label: str = "bot"


class Relay:
    """One `referee connect`: its socket, its bot session (if any), and what it tells."""

    def __init__(self, settings: RelaySettings, tell: Callable[[str], None]) -> None:
        if settings.keys.secret is None:
            raise ConfigError("--key: the file holds no secret key")
        self._settings = settings
        self._tell = tell
        self._context = zmq.Context()
        self._socket = self._dealer()
        self._monitor = self._socket.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED
            | zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_CONNECT_RETRIED)
        self._socket.connect(settings.address.endpoint)
        self._hub = ZmqHub("ipc")
        self._bot: RemotePlayer | None = None
        self._connected = False
        self._hangups = 0  # handshakes failed without a word since the last success
        self._told_unanswered = False  # since the last success
        self._sessions = 0

    def _dealer(self) -> zmq.Socket[bytes]:
        s = self._settings
        socket = self._context.socket(zmq.DEALER)
        socket.curve_secretkey = s.keys.secret
        socket.curve_publickey = s.keys.public
        socket.curve_serverkey = s.server_key
        socket.linger = 500  # the last lines (EXIT) still go out on close
        socket.immediate = True  # nothing queued for a connection not made yet
        socket.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_MS)
        socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, 3 * HEARTBEAT_MS)
        socket.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        return socket

    @property
    def playing(self) -> bool:
        """Whether a bot session (a game, or a check's) is under way."""
        return self._bot is not None

    @property
    def sessions(self) -> int:
        """Bot sessions started so far."""
        return self._sessions

    def run(self) -> None:
        """Relay until the referee says END (returns) or refuses us (RelayStop)."""
        self._tell(f"connecting to {self._settings.address.endpoint}")
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self._monitor, zmq.POLLIN)
        while True:
            bot = self._bot
            items = bot.channel.wake_items() if bot is not None else []
            for fd, _ in items:
                poller.register(fd, zmq.POLLIN)
            events = dict(poller.poll(round(SLICE * 1000)))
            for fd, _ in items:
                poller.unregister(fd)
            # The referee's lines first: its END comes just before its disconnection.
            if self._socket in events or int(self._socket.getsockopt(zmq.EVENTS)) & zmq.POLLIN:
                if self._from_referee():
                    return
            if self._monitor in events:
                self._monitor_events()
            self._from_bot()

    def _monitor_events(self) -> None:
        while self._monitor.poll(0):
            event = parse_monitor_message(self._monitor.recv_multipart())
            kind = event["event"]
            if kind == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._connected, self._hangups, self._told_unanswered = True, 0, False
                self._send(note(JOIN, __version__))
                # Said: a seat the referee gave up waiting for is seated only as its next
                # game starts, and silence till then would look like a hang.
                self._tell("connected: the referee accepted this key; waiting to be "
                           "seated (now if a game waits for this seat, else as its next "
                           "game starts)")
            elif kind == zmq.EVENT_CONNECT_RETRIED and not self._told_unanswered:
                # Waiting is right (the referee may start later), but silently it looks
                # like a hang, and a mistyped address would wait for ever.
                self._told_unanswered = True
                self._tell(f"nothing answers at {self._settings.address.endpoint} yet (the "
                           "referee is not listening there, or the host cannot be reached "
                           "or its name resolved); still trying (Ctrl-C stops)")
            elif kind == zmq.EVENT_DISCONNECTED and self._connected:
                self._connected = False
                self._tell("lost the connection to the referee (a game in play counts "
                           "it as this bot's crash); reconnecting")
                self._end_session()
            elif kind == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                raise RelayStop("the referee refused this key: it is listed for no seat "
                                "there, or a connection with it is playing already (if "
                                "yours just dropped, try again in a few seconds: the "
                                "referee notices a lost connection within its heartbeat "
                                "time)", 1)
            elif kind == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:
                raise RelayStop("the CurveZMQ handshake failed: is --server-key the "
                                "referee's public key?", 1)
            elif kind == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                self._hangups += 1
                if self._hangups >= SILENT_HANGUPS:
                    raise RelayStop(
                        f"the referee hung up during the CurveZMQ handshake "
                        f"{self._hangups} times in a row: is --server-key the referee's "
                        "public key (referee.pub, from the organiser)?", 1)

    def _from_referee(self) -> bool:
        """Take what the referee sent; True once it said END."""
        for _ in range(256):
            try:
                parts = self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return False
            relay = read_note(parts)
            if relay is not None:
                if self._note(*relay):
                    return True
            elif len(parts) == 1:
                self._to_bot(parts[0])
        return False

    def _note(self, word: str, text: str) -> bool:
        if word == SEATED:
            self._tell(f"seated as {text}")
        elif word == START:
            self._end_session()  # a session the referee has given up on
            self._start_session()
        elif word == REFUSED:
            raise RelayStop(f"the referee refused this connection: {text}", 1)
        elif word == END:
            self._tell("the referee is done: no more games")
            self._end_session()
            return True
        return False

    def _start_session(self) -> None:
        s = self._settings
        self._sessions += 1
        try:
            bot = RemotePlayer.start(s.command, s.label, self._hub, s.times, s.limits)
            bot.greet()
        except BotFault as fault:
            self._send(note(EXIT, f"failed to start: {fault}"))
            raise RelayStop(f"the bot failed to start here: {fault}", 1) from None
        self._bot = bot
        self._send([format_hello(RELAYED_TOKEN, bot.hello.name, bot.hello.version)
                    .encode("utf-8")])

    def _end_session(self) -> None:
        bot, self._bot = self._bot, None
        if bot is not None:
            bot.close()

    def _to_bot(self, data: bytes) -> None:
        bot = self._bot
        if bot is None:
            return  # lines for a session that ended: nobody to give them to
        lines = data.decode("utf-8", "replace").split("\n")
        for line in lines:
            if line.startswith(FAULT_LINE):  # recorded over there: say it here
                kind, _, detail = line[len(FAULT_LINE):].partition(" ")
                self._tell(f"the referee recorded a fault of your bot: {printable(kind)}: "
                           f"{printable(detail)}")
        try:
            bot.channel.send_lines(lines, time.monotonic() + SEND_LIMIT)
        except BotFault as fault:
            self._bot_ended(str(fault))
            return
        if BYE in lines:  # the session is over: the bot exits
            self._end_session()

    def _from_bot(self) -> None:
        bot = self._bot
        if bot is None:
            return
        channel = bot.channel
        try:
            while channel.pending():
                self._send([channel.recv(time.monotonic()).encode("utf-8")])
            if bot.process.exited():  # and all it said is passed on
                raise crash_fault(bot.process, "ended")
        except BotFault as fault:
            self._bot_ended(str(fault))

    def _bot_ended(self, detail: str) -> None:
        """The bot crashed or broke the framing here: the referee hears it (a fault), and
        a new one is started when the referee seats it again."""
        self._tell(f"the bot ended: {detail}")
        self._send(note(EXIT, detail))
        self._end_session()

    def _send(self, parts: list[bytes]) -> None:
        try:
            self._socket.send_multipart(parts, zmq.NOBLOCK)
        except zmq.Again:
            pass  # not connected: the referee counts the session lost anyway

    def close(self) -> None:
        self._end_session()
        self._hub.close()
        self._socket.disable_monitor()
        self._monitor.close(0)
        self._socket.close()
        self._context.term()
