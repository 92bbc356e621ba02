"""A wait for a bot's line ends by its deadline, whatever the bot keeps sending that is no
line: ZMTP commands (PINGs) on its own connection, or frames on a second connection that
never said HELLO. Before, each read of such bytes started the wait over, and the referee
waited as long as the bot kept sending (minutes: until its CPU limit killed it).

Real processes: tests/referee/fault_bots/idle_hostile.py floods for FLOOD seconds, so that
a referee that waits for the flood's end still ends the test.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.errors import BotTimeout
from referee.processes.bot_process import BotProcess
from referee.settings import ResourceLimits
from referee.transport.zmq_channel import ZmqChannel, ZmqHub
from tests.referee.fault_bots.support import argv_command

HOSTILE = Path(__file__).parent / "fault_bots" / "idle_hostile.py"
FLOOD = 40.0  # seconds the bot floods; a wait that lasts this long waited for the flood
LATE = 15.0  # how far past its deadline a wait may end on a loaded machine: a bound


@pytest.fixture
def channel() -> Iterator[tuple[ZmqHub, list[BotProcess]]]:
    processes: list[BotProcess] = []
    with ZmqHub("ipc") as hub:
        yield hub, processes
    for process in processes:
        process.kill()


def flooding(hub: ZmqHub, processes: list[BotProcess], mode: str, when: str) -> ZmqChannel:
    """The channel of an idle_hostile.py MODE WHEN that floods for FLOOD seconds."""
    token = "f" * 32
    channel = hub.channel(token)
    limits = ResourceLimits(memory_mb=None, cpu_seconds=None, processes=None)
    env = {**os.environ, "REFEREE_ENDPOINT": channel.endpoint, "REFEREE_TOKEN": token,
           "HOSTILE_SECONDS": str(FLOOD)}
    processes.append(BotProcess.spawn(
        argv_command(sys.executable, str(HOSTILE), mode, when), env, limits, None))
    channel.attach(processes[-1])
    return channel


def assert_times_out_by_its_deadline(channel: ZmqChannel, seconds: float) -> None:
    start = time.monotonic()
    with pytest.raises(BotTimeout):
        channel.recv(start + seconds)
    assert time.monotonic() - start < seconds + LATE, "waited for the flood to end"


@pytest.mark.parametrize("mode", ["ping", "flood"])
def test_a_wait_for_the_hello_ends_though_a_connection_without_one_floods(
        channel: tuple[ZmqHub, list[BotProcess]], mode: str) -> None:
    hub, processes = channel
    assert_times_out_by_its_deadline(flooding(hub, processes, mode, "nohello"), 1.0)


def test_a_wait_for_a_reply_ends_though_the_bot_sends_endless_pings(
        channel: tuple[ZmqHub, list[BotProcess]]) -> None:
    hub, processes = channel
    pinger = flooding(hub, processes, "ping", "hello")
    assert pinger.recv(time.monotonic() + 30).startswith("HELLO 2")
    assert_times_out_by_its_deadline(pinger, 1.0)
