"""`--clock cpu` against real bots that sleep or burn CPU, sandboxed, over ZeroMQ and stdio.

Under the CPU clock a request's limit is the CPU time of all the bot's processes (its
cgroup's), capped by a generous wall-clock limit (settings.wall_cap). The bounds asserted
hold on any load: a bot's CPU time never runs ahead of the wall clock by more than its
threads, and loads below tenfold never reach the cap.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import pytest

from referee.errors import BotTimeout, ConfigError
from protocols.faults import FaultKind
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.players.remote_player import RemotePlayer
from referee.processes.bot_command import parse_bot_command
from referee.processes.cgroups import CgroupRoot
from referee.processes.live_bots import live_processes
from referee.processes.sandbox import SandboxMode, SandboxSettings, sandbox_problem
from referee.settings import TimeLimits, wall_cap
from protocols.clock import Clock

CLOCK_BOT = Path(__file__).parent / "fault_bots" / "clock_bot.py"
MOVE = 0.3
CPU = TimeLimits(startup=10.0, move=MOVE, bank=0.0, clock=Clock.CPU)
WALL = TimeLimits(startup=10.0, move=MOVE, bank=0.0, clock=Clock.WALL)
CAP = wall_cap(MOVE + CPU.tolerance)
TRANSPORTS = [pytest.param(False, id="zmq"), pytest.param(True, id="stdio")]

pytestmark = pytest.mark.skipif(
    sandbox_problem() is not None or CgroupRoot.find() is None,
    reason="--clock cpu needs a sandbox and a cgroup per bot")


class Launcher(Protocol):
    def __call__(self, mode: str, seconds: float, stdio: bool,
                 times: TimeLimits = ...) -> RemotePlayer: ...


@pytest.fixture
def launch() -> Iterator[Launcher]:
    """Start clock_bot.py MODE SECONDS in its sandbox, with a cgroup; stop all afterwards."""
    lineups: list[Lineup] = []

    def start(mode: str, seconds: float, stdio: bool, times: TimeLimits = CPU) -> RemotePlayer:
        lineup = Lineup(LaunchSettings(times, sandbox=SandboxSettings(SandboxMode.ON)))
        lineups.append(lineup)
        prefix = "stdio:" if stdio else ""
        command = parse_bot_command(f"{prefix}python {CLOCK_BOT} {mode} {seconds}")
        player = lineup.launch(BotSpec(command, mode))
        assert isinstance(player, RemotePlayer), player
        assert player.process.sandboxed and player.process.cgroup is not None
        return player

    yield start
    for lineup in lineups:
        lineup.close()


def test_the_wall_cap_is_ten_times_the_allowance_and_at_least_five_seconds_more() -> None:
    assert wall_cap(0.35) == pytest.approx(5.35)
    assert wall_cap(1.0) == pytest.approx(10.0)
    assert wall_cap(3.0) == pytest.approx(30.0)


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_a_bot_that_sleeps_twice_its_move_time_is_on_time_by_cpu(launch: Launcher,
                                                                  stdio: bool) -> None:
    player = launch("sleep", 2 * MOVE, stdio)
    start = time.monotonic()
    assert player.ask("PLAY? a b") == "a"
    assert time.monotonic() - start >= 2 * MOVE  # it did sleep past the move time


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_the_same_bot_times_out_by_the_wall_clock(launch: Launcher, stdio: bool) -> None:
    player = launch("sleep", 2 * MOVE, stdio, WALL)
    with pytest.raises(BotTimeout, match=r"within 0.3 s \+ 0.000 s of time bank$"):
        player.ask("PLAY? a b")


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_a_bot_that_burns_cpu_past_its_move_time_times_out(launch: Launcher,
                                                           stdio: bool) -> None:
    player = launch("spin", 30, stdio)
    start = time.monotonic()
    with pytest.raises(BotTimeout, match=r"of CPU time \(used") as caught:
        player.ask("PLAY? a b")
    elapsed = time.monotonic() - start
    # One thread's CPU time cannot outrun the wall clock; and it was the CPU limit, not
    # the cap, that ended the wait.
    assert MOVE + CPU.tolerance <= elapsed < CAP
    assert caught.value.kind is FaultKind.TIMEOUT


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_cpu_time_counts_every_process_of_the_bot(launch: Launcher, stdio: bool) -> None:
    """The bot itself only sleeps while its child burns the CPU: charged all the same."""
    player = launch("child", 30, stdio)
    start = time.monotonic()
    with pytest.raises(BotTimeout, match=r"of CPU time \(used"):
        player.ask("PLAY? a b")
    assert time.monotonic() - start < CAP


def test_the_bank_is_cpu_seconds(launch: Launcher) -> None:
    sleeper = launch("sleep", 2 * MOVE, False, replace(CPU, bank=2.0))
    assert sleeper.ask("PLAY? a b") == "a"
    assert sleeper.bank_left == 2.0  # sleeping costs no CPU: no bank spent
    spinner = launch("spin", 2 * MOVE, False, replace(CPU, bank=2.0))
    assert spinner.ask("PLAY? a b") == "a"
    # It used at least 2 x MOVE of CPU, so at least MOVE of the bank; far from all of it.
    assert 1.0 < spinner.bank_left <= 2.0 - MOVE


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_a_bot_that_sleeps_past_the_wall_cap_times_out(launch: Launcher, stdio: bool) -> None:
    player = launch("sleep", 3600, stdio)
    start = time.monotonic()
    with pytest.raises(BotTimeout, match=r"wall-clock cap of 5.35 s"):
        player.ask("PLAY? a b")
    elapsed = time.monotonic() - start
    assert CAP <= elapsed < CAP + 5.0


def test_a_bot_that_gets_no_cgroup_is_refused_and_stopped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine allows cgroups, but this bot's could not be made: not a wall clock."""
    def refused(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(CgroupRoot, "new_group", refused)
    command = parse_bot_command(f"python {CLOCK_BOT} sleep 0")
    with Lineup(LaunchSettings(CPU, sandbox=SandboxSettings(SandboxMode.ON))) as lineup:
        with pytest.raises(ConfigError, match="--clock cpu: bot .* got no cgroup"):
            lineup.launch(BotSpec(command, "sleep"))
    assert live_processes() == []
