"""ZmqHub's keep-alive, which reads the other bots while one is waited for: a bot that
floods meanwhile is charged alone and costs the referee a bounded amount, and a waited-for
bot's own heartbeats keep the others' from being answered no longer.

Real processes: tests/referee/fault_bots/idle_hostile.py floods right after its HELLO and
keeps, in a file, the bytes it got into its socket. Once the referee stops reading, the
socket fills and the flooder blocks: its count stops.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
import zmq

from referee.errors import BotTimeout, OutputFlood
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.processes.bot_command import parse_bot_command
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.settings import TimeLimits
from referee.transport.zmq_channel import KEEP_ALIVE_READ, ZmqChannel, ZmqHub
from tests.referee.fault_bots.support import argv_command, wait_until
from tests.referee.test_heartbeats import heartbeating
from tests.referee.conftest import Spawn

FAULT_BOTS = Path(__file__).parent / "fault_bots"
HOSTILE = FAULT_BOTS / "idle_hostile.py"
WAIT = 1.0  # one wait for a silent bot: ten keep-alive slices


def start(hub: ZmqHub, spawn: Spawn, token: str, argv: list[str],
          env: dict[str, str] | None = None) -> ZmqChannel:
    channel = hub.channel(token)
    channel.attach(spawn(argv_command(*argv), env={
        **(env or {}), "REFEREE_ENDPOINT": channel.endpoint, "REFEREE_TOKEN": token}))
    return channel


def flooder(hub: ZmqHub, spawn: Spawn, mode: str, count: Path) -> ZmqChannel:
    channel = start(hub, spawn, "f" * 32, [sys.executable, str(HOSTILE), mode, "hello"],
                    {"HOSTILE_COUNT": str(count)})
    assert channel.recv(time.monotonic() + 30).startswith("HELLO 2")
    assert wait_until(count.exists, 30)
    return channel


def sent(count: Path) -> int:
    return int(count.read_text() or 0)


def silent_wait(channel: ZmqChannel) -> None:
    with pytest.raises(BotTimeout):
        channel.recv(time.monotonic() + WAIT)


def test_a_flood_read_during_another_bots_wait_is_the_flooders_and_then_left_unread(
        hub: ZmqHub, spawn: Spawn, tmp_path: Path) -> None:
    """Past the inbox's bound nothing more it sends is kept, so nothing more is read: the
    flooder blocks instead of keeping the referee parsing its lines (before, a wait for
    another bot spent its whole time reading them: tens of MiB a second)."""
    count = tmp_path / "count"
    loud = flooder(hub, spawn, "flood", count)
    silent = start(hub, spawn, "s" * 32, ["sleep", "60"])
    silent_wait(silent)  # the keep-alive reads the flood past the inbox's bound
    before = sent(count)
    silent_wait(silent)
    assert sent(count) == before, "read on after its inbox held a flood"
    with pytest.raises(OutputFlood):  # its own fault, after the lines it queued
        while True:
            assert loud.recv(time.monotonic() + 10) == "chatter"


def test_a_ping_flood_during_another_bots_wait_is_read_a_little_at_a_time(
        hub: ZmqHub, spawn: Spawn, tmp_path: Path) -> None:
    """PINGs fill no inbox, so they are read on (and answered): at most KEEP_ALIVE_READ
    bytes a keep-alive, not all the referee can parse."""
    count = tmp_path / "count"
    flooder(hub, spawn, "ping", count)
    silent = start(hub, spawn, "s" * 32, ["sleep", "60"])
    silent_wait(silent)
    before = sent(count)
    silent_wait(silent)
    slices = 2 * WAIT / 0.1  # twice the keep-alives a wait can have, for a loaded machine
    assert sent(count) - before <= slices * KEEP_ALIVE_READ


def test_an_idle_bot_keeps_its_connection_while_a_heartbeating_bot_is_waited_for(
        hub: ZmqHub, spawn: Spawn) -> None:
    """The waited-for bot's PINGs wake its wait every 20 ms: the others are read every
    KEEP_ALIVE_SLICE all the same (before, only after 0.1 s with nothing from it, so the
    idle bot's library dropped its connection: a crash charged to it)."""
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    thinking_channel = start(hub, spawn, "t" * 32, ["sleep", "60"])
    idle_channel = start(hub, spawn, "i" * 32, ["sleep", "60"])
    try:
        thinking = heartbeating(context, thinking_channel, "t" * 32)
        idle = heartbeating(context, idle_channel, "i" * 32)
        silent_wait(thinking_channel)  # five of its heartbeat timeouts, for the idle bot
        assert not thinking.closed
        idle_channel.send("PLAY? r3")
        assert idle.poll(5000) and idle.recv() == b"PLAY? r3"
        idle.send(b"r3")
        assert idle_channel.recv(time.monotonic() + 10) == "r3"
    finally:
        context.destroy(linger=0)


def test_a_heartbeating_bot_keeps_its_connection_while_a_stdio_bot_thinks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stdio seat's wait reads the ZeroMQ seats too (before, only a ZeroMQ seat's
    did: a stdio opponent that thought past the heartbeat timeout cost the other bot its
    connection, a crash charged to it)."""
    monkeypatch.setenv("FAULT_SLEEP", "1.0")  # five of the heartbeat bot's timeouts
    specs = [BotSpec(parse_bot_command(f"stdio:python {FAULT_BOTS / 'misbehave.py'} slow"),
                     "thinker"),
             BotSpec(parse_bot_command(f"python {FAULT_BOTS / 'heartbeat_bot.py'}"),
                     "beating")]
    settings = LaunchSettings(TimeLimits(startup=10.0, move=10.0),
                              sandbox=SandboxSettings(SandboxMode.OFF))
    with Lineup(settings) as lineup:
        thinker, beating = lineup.launch_all(specs)
        assert thinker.ask("PLAY? r3") == "r3"
        assert beating.ask("PLAY? g5") == "g5"
