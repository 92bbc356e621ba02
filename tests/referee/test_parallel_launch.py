"""Bots of a table start together (Lineup.launch_many, referee/players/greeting.py): all
processes first, then one wait for every HELLO. Real processes: slow, silent, crashing
and unstartable bots beside good ones; each fault is charged to its own bot only."""

from __future__ import annotations

import shlex
import sys
import time

import pytest

from referee.errors import BotStartError, BotStartFailed
from referee.players import greeting
from referee.players.lineup import BotSpec, FaultedPlayer, LaunchSettings, Lineup
from referee.players.remote_player import RemotePlayer
from referee.processes.bot_command import BotCommand, parse_bot_command
from referee.processes.live_bots import live_processes
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.settings import TimeLimits
from tests.referee.fault_bots.support import MISBEHAVE

BOOT = 1.5  # seconds each slow bot sleeps before it starts: sequential starts add them up
LATE = 5.0  # how far past its deadline a wait may end on a loaded machine: a bound
TRANSPORTS = [pytest.param(False, id="zmq"), pytest.param(True, id="stdio")]


def settings(startup: float) -> LaunchSettings:
    return LaunchSettings(TimeLimits(startup=startup, move=10.0),
                          sandbox=SandboxSettings(SandboxMode.OFF))


def bot(name: str, mode: str, stdio: bool, boot: float = 0.0) -> BotSpec:
    """misbehave.py MODE, started after `boot` seconds of sleep."""
    run = shlex.join([sys.executable, str(MISBEHAVE), mode])
    prefix = "stdio:" if stdio else ""
    return BotSpec(parse_bot_command(f"{prefix}sh -c {shlex.quote(f'sleep {boot}; exec {run}')}"),
                   name)


pytestmark = pytest.mark.usefixtures("no_bot_left")


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_the_bots_of_a_table_boot_side_by_side(stdio: bool) -> None:
    specs = [bot(f"slow{i}", "good", stdio, BOOT) for i in range(4)]
    with Lineup(settings(startup=30.0)) as lineup:
        began = time.monotonic()
        players = lineup.launch_all(specs)
        took = time.monotonic() - began
        assert all(isinstance(p, RemotePlayer) and p.hello.token for p in players)
    # One after another would take 4 x BOOT at least; side by side, one BOOT and a bit.
    assert BOOT <= took < 3 * BOOT


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_a_seat_failing_at_start_is_charged_alone_and_the_others_play(stdio: bool) -> None:
    crash = BotSpec(parse_bot_command(("stdio:" if stdio else "") + "sh -c 'exit 3'"), "crash")
    specs = [bot("good", "good", stdio), bot("silent", "nohello", stdio),
             bot("late", "good", stdio, boot=1.0), crash, bot("oldproto", "oldproto", stdio)]
    with Lineup(settings(startup=2.5)) as lineup:
        players = lineup.launch_all(specs)
        faults = {p.name: p.error for p in players if isinstance(p, FaultedPlayer)}
        assert sorted(faults) == ["crash", "oldproto", "silent"]
        # Each a start-up failure (issue 29: told apart from a crash in the game) that
        # says which: no HELLO, died before it, a bad one.
        assert all(isinstance(fault, BotStartFailed) for fault in faults.values())
        assert str(faults["silent"]).startswith("no HELLO within")
        assert str(faults["crash"]).startswith("died before its HELLO: ")
        assert "code 3" in str(faults["crash"])
        assert str(faults["oldproto"]).startswith("a bad HELLO: ")
        good = [p for p in players if isinstance(p, RemotePlayer)]
        assert [p.name for p in good] == ["good", "late"]
        for player in good:  # still up and answering, though a neighbour timed out
            assert player.ask("PLAY? a b") == "a"
        # Only the good bots' processes are left running until the lineup closes.
        assert sorted(p.pid for p in live_processes()) == sorted(p.process.pid for p in good)


def test_a_bot_that_cannot_start_closes_the_others_started_with_it() -> None:
    gone = BotSpec(BotCommand("gone", ("/nonexistent/bot",), stdio=True), "gone")
    with Lineup(settings(startup=30.0)) as lineup:
        with pytest.raises(BotStartError, match="cannot start bot"):
            lineup.launch_all([bot("good", "good", True, BOOT), gone])
        assert live_processes() == []


def test_bots_booting_together_on_fewer_cpus_get_their_start_up_time_stretched(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two bots on one CPU: each has at least half of it, so each may take twice its
    start-up time; the fault says so."""
    monkeypatch.setattr(greeting, "_cpus", lambda: 1)
    with Lineup(settings(startup=0.5)) as lineup:
        began = time.monotonic()
        players = lineup.launch_all([bot("silent", "nohello", True), bot("good", "good", True)])
        took = time.monotonic() - began
        assert isinstance(players[1], RemotePlayer)
    assert isinstance(players[0], FaultedPlayer)
    assert str(players[0].error).startswith("no HELLO within 1 s (the start-up time of 0.5 s")
    assert 1.0 <= took < 1.0 + LATE


def test_one_bot_alone_keeps_its_start_up_time() -> None:
    with Lineup(settings(startup=0.5)) as lineup:
        player = lineup.launch(bot("silent", "nohello", True))
    assert isinstance(player, FaultedPlayer)
    assert str(player.error) == "no HELLO within 0.5 s"
