"""Faults of real misbehaving bot processes (fault_bots/misbehave.py), over ZeroMQ and stdio.

Each test checks the exact fault kind, its detail or offending line, that the wait was
bounded, and that close() leaves no process of the bot's group alive.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest

from referee.processes.bot_command import parse_bot_command
from referee.errors import (
    BotCrashed,
    BotStartError,
    BotTimeout,
    OutputFlood,
    ProtocolError,
)
from protocols.faults import FaultKind
from referee.players.remote_player import RemotePlayer
from referee.settings import ResourceLimits, TimeLimits
from referee.transport.zmq_channel import ZmqHub
from tests.referee.fault_bots.support import alive, group_members, misbehave, wait_until

# Generous limits wherever the fault under test is not a timeout, so that a loaded machine
# cannot turn it into one; short ones only where the test waits for a timeout.
TIMES = TimeLimits(startup=30.0, move=30.0, bank=0.0, tolerance=0.05)
SHORT_MOVE = TimeLimits(startup=30.0, move=0.3, bank=0.0, tolerance=0.05)
QUICK_START = TimeLimits(startup=0.5, move=0.3, bank=0.0, tolerance=0.05)
LATE = 5.0  # how far past its deadline a wait may end on a loaded machine: a bound, not a time
TRANSPORTS = [pytest.param(False, id="zmq"), pytest.param(True, id="stdio")]


class Launcher(Protocol):
    def __call__(self, mode: str, stdio: bool, nth: int = 1,
                 times: TimeLimits = ...) -> RemotePlayer: ...


@pytest.fixture
def launch(hub: ZmqHub) -> Iterator[Launcher]:
    """Start misbehave.py; afterwards close every player and check its group is gone."""
    players: list[RemotePlayer] = []

    def start(mode: str, stdio: bool, nth: int = 1, times: TimeLimits = TIMES) -> RemotePlayer:
        player = RemotePlayer.launch(misbehave(mode, nth, stdio), mode, hub, times,
                                     ResourceLimits())
        players.append(player)
        return player

    yield start
    for player in players:
        player.close()
        assert group_members(player.process.pid) == []


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_sleeping_bot_times_out_within_move_plus_tolerance(launch: Launcher, stdio: bool) -> None:
    player = launch("sleep", stdio, times=SHORT_MOVE)
    start = time.monotonic()
    with pytest.raises(BotTimeout, match=r"no reply to PLAY\? within 0.3 s") as caught:
        player.ask("PLAY? a b")
    elapsed = time.monotonic() - start
    limit = SHORT_MOVE.move + SHORT_MOVE.tolerance
    assert limit <= elapsed < limit + LATE
    assert caught.value.kind is FaultKind.TIMEOUT


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_exiting_bot_is_a_crash_with_its_code_reported_at_once(launch: Launcher,
                                                               stdio: bool) -> None:
    player = launch("exit", stdio, nth=2)
    assert player.ask("PLAY? a b") == "a"
    start = time.monotonic()
    with pytest.raises(BotCrashed, match="exited with code 3") as caught:
        player.ask("PLAY? a b")
    assert time.monotonic() - start < TIMES.move / 2  # the exit, not the move limit
    assert caught.value.exit_code == 3
    assert caught.value.kind is FaultKind.CRASH


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_non_utf8_reply_is_a_protocol_error_with_the_bytes(launch: Launcher, stdio: bool) -> None:
    player = launch("garbage", stdio)
    with pytest.raises(ProtocolError, match="not UTF-8") as caught:
        player.ask("PLAY? a b")
    assert caught.value.line == "\\xff\\xfe not utf-8 \\xc3("


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_overlong_reply_is_a_protocol_error(launch: Launcher, stdio: bool) -> None:
    player = launch("overlong", stdio)
    with pytest.raises(ProtocolError, match="longer than 4096 bytes") as caught:
        player.ask("PLAY? a b")
    assert caught.value.line == "x" * 200 + "..."


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_endless_log_lines_are_an_output_flood(launch: Launcher, stdio: bool) -> None:
    player = launch("flood", stdio, nth=2)
    assert player.ask("PLAY? a b") == "a"
    with pytest.raises(OutputFlood, match="more than 16 LOG lines") as caught:
        player.ask("PLAY? a b")
    assert caught.value.line == "LOG flood 16"
    assert caught.value.kind is FaultKind.FLOOD


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_endless_chatter_after_a_reply_is_an_unsolicited_line(launch: Launcher,
                                                              stdio: bool) -> None:
    player = launch("spew", stdio)
    assert player.ask("PLAY? a b") == "a"
    assert wait_until(player._channel.pending)
    with pytest.raises(ProtocolError, match="without a request") as caught:
        player.ask("PLAY? a b")
    assert caught.value.line == "chatter 0"


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_second_reply_is_caught_at_the_next_request(launch: Launcher, stdio: bool) -> None:
    # The wait lets the extra reply arrive: a line still in flight when the next request
    # goes out cannot be told from that request's reply (the protocol has no sequence ids).
    player = launch("twice", stdio)
    assert player.ask("PLAY? a b") == "a"
    assert wait_until(player._channel.pending)
    with pytest.raises(ProtocolError, match="without a request") as caught:
        player.ask("PLAY? c d")
    assert caught.value.line == "a"


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_second_reply_survives_tells_and_is_caught_at_the_next_request(
        launch: Launcher, stdio: bool) -> None:
    player = launch("twice", stdio)
    player.ask("PLAY? a b")
    assert wait_until(player._channel.pending)
    player.tell("PLAYED 0 a")  # tells never read the bot's lines
    with pytest.raises(ProtocolError, match="without a request") as caught:
        player.ask("PLAY? c d")
    assert caught.value.line == "a"


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_close_kills_the_bots_children_too(launch: Launcher, stdio: bool, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("FAULT_CHILD_PIDFILE", str(pidfile))
    player = launch("child", stdio)
    assert player.ask("PLAY? a b") == "a"
    assert player.ask("PLAY? c d") == "c"  # keeps answering properly
    child = int(pidfile.read_text())
    assert alive(child)
    assert os.getpgid(child) == player.process.pid
    player.close()
    assert wait_until(lambda: not alive(child))


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_close_kills_a_child_that_left_the_bots_process_group(
        launch: Launcher, stdio: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("FAULT_CHILD_PIDFILE", str(pidfile))
    player = launch("escape", stdio)
    assert player.ask("PLAY? a b") == "a"
    assert player.ask("PLAY? c d") == "c"
    child = int(pidfile.read_text())
    assert alive(child)
    assert os.getpgid(child) == os.getsid(child) == child != player.process.pid  # setsid
    player.close()
    assert wait_until(lambda: not alive(child))


@pytest.fixture
def pidfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where misbehave.py writes its pid: a failed launch leaves no player to ask."""
    path = tmp_path / "bot.pid"
    monkeypatch.setenv("FAULT_PIDFILE", str(path))
    return path


def assert_gone(pidfile: Path) -> None:
    pid = int(pidfile.read_text())
    assert not alive(pid)
    assert group_members(pid) == []


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_bot_without_hello_times_out_at_startup(hub: ZmqHub, pidfile: Path, stdio: bool) -> None:
    start = time.monotonic()
    with pytest.raises(BotTimeout, match="no HELLO within 0.5 s"):
        RemotePlayer.launch(misbehave("nohello", stdio=stdio), "x", hub, QUICK_START,
                            ResourceLimits())
    elapsed = time.monotonic() - start
    assert elapsed < QUICK_START.startup + QUICK_START.tolerance + LATE
    assert_gone(pidfile)


def test_zeromq_hello_with_a_wrong_token_is_ignored_until_the_startup_timeout(
        hub: ZmqHub, pidfile: Path) -> None:
    with pytest.raises(BotTimeout, match="without a valid token were ignored"):
        RemotePlayer.launch(misbehave("badtoken"), "x", hub, QUICK_START, ResourceLimits())
    assert_gone(pidfile)


def test_stdio_hello_with_a_wrong_token_is_a_protocol_error(hub: ZmqHub, pidfile: Path) -> None:
    with pytest.raises(ProtocolError, match="wrong token") as caught:
        RemotePlayer.launch(misbehave("badtoken", stdio=True), "x", hub, TIMES,
                            ResourceLimits())
    # any token, right or wrong, is redacted in what is recorded (token_redaction.py)
    assert caught.value.line == "HELLO 2 <token> misbehave-badtoken 1.0"
    assert_gone(pidfile)


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_old_protocol_version_is_a_protocol_error_naming_both(
        hub: ZmqHub, pidfile: Path, stdio: bool) -> None:
    with pytest.raises(ProtocolError, match="protocol version 0.*version 2") as caught:
        RemotePlayer.launch(misbehave("oldproto", stdio=stdio), "x", hub, TIMES,
                            ResourceLimits())
    assert caught.value.line is not None and caught.value.line.startswith("HELLO 0 ")
    assert_gone(pidfile)


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_time_bank_pays_late_replies_until_it_runs_dry_then_a_timeout_follows(
        launch: Launcher, stdio: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every reply comes 0.3 s after its request, over a move limit of 0.05 s: the bank of
    1.5 s pays each overrun (at least 0.25 s, at most what this test measured), until it
    runs dry; then the wait ends in a timeout, after the move limit and the last of the bank.
    Only bounds that hold however loaded the machine is."""
    sleep = 0.3
    monkeypatch.setenv("FAULT_SLEEP", str(sleep))
    times = TimeLimits(startup=30.0, move=0.05, bank=1.5, tolerance=0.05)
    player = launch("slow", stdio, times=times)
    player.new_game("GAME 1")
    banks = [player.bank_left]
    with pytest.raises(BotTimeout, match="time bank"):
        for n in range(int(times.bank / (sleep - times.move)) + 1):  # more than it can pay
            start = time.monotonic()
            assert player.ask(f"PLAY? c{n}") == f"c{n}"
            measured = time.monotonic() - start
            # the bot slept within the ask, and the ask lasted no longer than measured here
            assert banks[-1] - (measured - times.move) - 1e-9 <= player.bank_left
            assert player.bank_left <= max(0.0, banks[-1] - (sleep - times.move))
            banks.append(player.bank_left)
    waited = time.monotonic() - start
    limit = times.move + banks[-1] + times.tolerance
    assert limit <= waited < limit + LATE
    assert len(banks) > 1 and player.bank_left == 0.0  # the bank paid, then ran dry


def test_a_command_that_cannot_be_started_is_refused_before_launch() -> None:
    with pytest.raises(BotStartError, match="not found"):
        parse_bot_command("stdio:no-such-referee-bot --go")


def test_a_command_that_fails_to_exec_raises_bot_start_error(hub: ZmqHub, tmp_path: Path) -> None:
    script = tmp_path / "bot"
    script.write_text("#!/no/such/interpreter\n")
    script.chmod(0o755)
    cmd = parse_bot_command(str(script))  # passes the checks: the shebang is the problem
    with pytest.raises(BotStartError, match="cannot start bot"):
        RemotePlayer.launch(cmd, "x", hub, TIMES, ResourceLimits())


def test_close_after_a_fault_kills_a_bot_that_ignores_bye(launch: Launcher) -> None:
    player = launch("garbage", stdio=False)
    with pytest.raises(ProtocolError):
        player.ask("PLAY? a")
    player.close()
    assert player.process.describe_exit() == "killed by SIGKILL"
