"""Fixtures shared by the referee's tests."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Protocol

import pytest

from referee.processes.bot_command import BotCommand
from referee.processes.bot_process import BotProcess
from referee.processes.live_bots import live_processes
from referee.processes.sandbox import View
from referee.settings import ResourceLimits
from referee.transport.zmq_channel import ZmqHub
from tests.referee.scripted_channel import Scripted


UNLIMITED = ResourceLimits(memory_mb=None, cpu_seconds=None, processes=None)


class Spawn(Protocol):
    def __call__(self, command: BotCommand, *, limits: ResourceLimits = ...,
                 env: Mapping[str, str] | None = ..., stderr: Path | None = ...,
                 view: View | None = ...) -> BotProcess: ...


@pytest.fixture
def spawned() -> Iterator[list[BotProcess]]:
    """Processes a test spawns; all killed afterwards."""
    processes: list[BotProcess] = []
    yield processes
    for process in processes:
        process.kill()


@pytest.fixture
def spawn(spawned: list[BotProcess]) -> Spawn:
    """Start a bot process of `command` (unlimited, the referee's environment and `env`,
    stderr to the referee's unless given); every one is killed after the test."""

    def start(command: BotCommand, *, limits: ResourceLimits = UNLIMITED,
              env: Mapping[str, str] | None = None, stderr: Path | None = None,
              view: View | None = None) -> BotProcess:
        process = BotProcess.spawn(command, {**os.environ, **(env or {})}, limits, stderr,
                                   view)
        spawned.append(process)
        return process

    return start


@pytest.fixture
def hub() -> Iterator[ZmqHub]:
    """A ZeroMQ hub (ipc) for the test's bots."""
    with ZmqHub() as the_hub:
        yield the_hub


@pytest.fixture
def no_bot_left() -> Iterator[None]:
    """After the test, no bot process of this referee is alive (use it autouse:
    `pytestmark = pytest.mark.usefixtures("no_bot_left")`)."""
    yield
    assert live_processes() == []


@pytest.fixture
def box() -> Iterator[Path]:
    """A folder for a bot of its own, outside /tmp (the sandbox's /tmp is private)."""
    folder = Path(tempfile.mkdtemp(prefix="zoo-box-", dir="/var/tmp"))
    folder.chmod(0o755)  # readable by the sandbox's user, like any bot's folder
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scripted]:
    """RemotePlayers on scripted channels, on a virtual clock (tests/referee/
    scripted_channel.py); every player closed after the test."""
    made = Scripted()
    made.install(monkeypatch)
    yield made
    made.close()
