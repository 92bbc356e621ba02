"""ZeroMQ heartbeats: a bot whose library sends PINGs (ZMQ_HEARTBEAT_IVL) drops its
connection when a PONG is late, and it has to be answered even while the referee waits
for other bots, boots them, or plays games without it (KEEP_ALIVE_SLICE, ZmqHub.keep_alive).
Each test fails without the keep-alive: the bot's connection closes, a crash charged to it."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from protocols.wire import ENV_ENDPOINT, ENV_TOKEN
from referee.errors import BotTimeout
from referee.transport.stdio_channel import StdioChannel
from referee.transport.zmq_channel import ZmqChannel, ZmqHub
from tests.cli_support import run_main
from tests.referee.fault_bots.support import argv_command
from tests.referee.conftest import Spawn

HEARTBEAT_BOT = Path(__file__).parent / "fault_bots" / "heartbeat_bot.py"
TOKEN = "t" * 32


def heartbeating(context: zmq.Context[zmq.Socket[bytes]], channel: ZmqChannel,
                 token: str) -> zmq.Socket[bytes]:
    """libzmq's own DEALER with heartbeats on (a PING each 20 ms, gone after 200 ms
    without an answer: its library's I/O thread sends them), greeted on `channel`."""
    bot = context.socket(zmq.DEALER)
    bot.setsockopt(zmq.HEARTBEAT_IVL, 20)
    bot.setsockopt(zmq.HEARTBEAT_TIMEOUT, 200)
    bot.setsockopt(zmq.LINGER, 0)
    bot.connect(channel.endpoint)
    bot.send(f"HELLO 2 {token} beating 1".encode())
    assert channel.recv(time.monotonic() + 10).startswith("HELLO")
    return bot


@pytest.fixture
def beating(hub: ZmqHub, spawn: Spawn) -> Iterator[tuple[ZmqChannel, zmq.Socket[bytes]]]:
    """A channel greeted by a heartbeating DEALER in this process."""
    channel = hub.channel(TOKEN, spawn(argv_command("sleep", "60")))
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        yield channel, heartbeating(context, channel, TOKEN)
    finally:
        context.destroy(linger=0)


def still_connected(channel: ZmqChannel, bot: zmq.Socket[bytes]) -> None:
    channel.send("PLAY? r3")
    assert bot.poll(5000) and bot.recv() == b"PLAY? r3", "its library dropped the connection"
    bot.send(b"r3")
    assert channel.recv(time.monotonic() + 10) == "r3"


def test_a_bot_whose_library_sends_heartbeats_gets_its_pongs_while_it_is_read(
        beating: tuple[ZmqChannel, zmq.Socket[bytes]]) -> None:
    """The referee answers every PING it reads, so a bot waiting for a request stays."""
    channel, _ = beating
    end = time.monotonic() + 1.0  # five heartbeat timeouts, read all along
    while time.monotonic() < end:
        channel.pending()
        time.sleep(0.01)
    still_connected(*beating)


def test_an_idle_seat_keeps_its_connection_while_another_is_waited_for(
        hub: ZmqHub, spawn: Spawn,
        beating: tuple[ZmqChannel, zmq.Socket[bytes]]) -> None:
    silent = hub.channel("s" * 32, spawn(argv_command("sleep", "60")))
    with pytest.raises(BotTimeout):  # 1.5 s: seven of the bot's heartbeat timeouts
        silent.recv(time.monotonic() + 1.5)
    still_connected(*beating)


def test_an_idle_bot_keeps_its_connection_however_short_each_wait_for_the_others(
        hub: ZmqHub, spawn: Spawn,
        beating: tuple[ZmqChannel, zmq.Socket[bytes]]) -> None:
    """Like a persistent bot between its games, while others play fast ones: no single
    wait lasts the slice, so the hub's own clock says when the others are due."""
    token = "f" * 32
    fast = hub.channel(token)
    fast.attach(spawn(argv_command(sys.executable, str(HEARTBEAT_BOT), "0", "0"), env={ENV_ENDPOINT: fast.endpoint, ENV_TOKEN: token}))
    assert fast.recv(time.monotonic() + 10).startswith("HELLO")
    end, asked = time.monotonic() + 1.5, 0
    while time.monotonic() < end:
        fast.send("PLAY? a b")
        assert fast.recv(time.monotonic() + 10) == "a"
        asked += 1
    assert asked > 20  # many waits, each far shorter than the slice
    still_connected(*beating)


@pytest.mark.parametrize("slow", ["", "stdio:"], ids=["zmq", "stdio"])
def test_a_game_keeps_every_heartbeat_bot_through_a_slow_boot_and_a_slow_move(
        slow: str) -> None:
    """Seat 1 boots 1.5 s after the others said HELLO; seat 2 thinks 0.8 s over its
    first reply; the slow ones speak ZeroMQ or stdio. Nobody faults."""
    bots = [f"{prefix}python {HEARTBEAT_BOT} {boot} {think}" for prefix, boot, think in
            [("", 0, 0), (slow, 1.5, 0), (slow, 0, 0.8), ("", 0, 0)]]
    code, out, err = run_main(["play", "rage", "--seed", "1", *bots])
    assert code == 0, err
    assert "fault" not in err and "crash" not in out, err
    assert out.count("heartbeat_bot-") >= 4


@pytest.mark.parametrize("transport", ["zmq", "stdio"])
def test_an_idle_seat_keeps_its_connection_while_a_send_waits_for_a_bot_that_stopped_reading(
        hub: ZmqHub, spawn: Spawn,
        beating: tuple[ZmqChannel, zmq.Socket[bytes]], transport: str) -> None:
    """A send to a bot that stopped reading waits for room until its deadline (here 1.5
    s, seven of the other bot's heartbeat timeouts), reading the other bots meanwhile."""
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        deaf: ZmqChannel | StdioChannel
        if transport == "zmq":
            deaf, dealer = deaf_zmq_bot(hub, spawn, context)  # held: collected, it closes
        else:
            deaf = StdioChannel(spawn(argv_command(
                "python", "-c", "import time; time.sleep(60)", stdio=True)), None, hub)
        deadline = time.monotonic() + 1.5
        with pytest.raises(BotTimeout, match="stopped reading"):
            for _ in range(10_000):  # 40 MB: far more than the socket and the queue hold
                deaf.send("z" * 4000, deadline)
        assert time.monotonic() >= deadline
        still_connected(*beating)
    finally:
        context.destroy(linger=0)


def deaf_zmq_bot(hub: ZmqHub, spawn: Spawn,
                 context: zmq.Context[zmq.Socket[bytes]]
                 ) -> tuple[ZmqChannel, zmq.Socket[bytes]]:
    """A channel greeted by a DEALER in this process that reads one message, no more
    (the channel, and the DEALER: closed when collected)."""
    token = "d" * 32
    deaf = hub.channel(token, spawn(argv_command("sleep", "60")))
    bot = context.socket(zmq.DEALER)
    bot.setsockopt(zmq.RCVHWM, 1)  # its library stops reading after one message
    bot.setsockopt(zmq.LINGER, 0)
    bot.connect(deaf.endpoint)
    bot.send(f"HELLO 2 {token} deaf 1".encode())
    assert deaf.recv(time.monotonic() + 10).startswith("HELLO")
    return deaf, bot
