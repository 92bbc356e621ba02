"""RemotePlayer with a well-behaved bot: handshake, lines, LOG handling, time bank, close."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

import pytest

from protocols.wire import PROTOCOL_VERSION
from referee.processes.bot_command import BotCommand, parse_bot_command
from referee.errors import BotStartError, OutputFlood
from referee.players.remote_player import RemotePlayer
from referee.settings import ResourceLimits, TimeLimits
from referee.transport.zmq_channel import ZmqHub
from tests.referee.fault_bots.support import alive, misbehave, wait_until

# Generous: no bot here is meant to be late, and a loaded machine must not make it so.
TIMES = TimeLimits(startup=30.0, move=30.0, bank=0.5, tolerance=0.05)
LIMITS = ResourceLimits()
TRANSPORTS = [pytest.param(False, id="zmq"), pytest.param(True, id="stdio")]


@pytest.fixture
def heard() -> list[tuple[str, str]]:
    return []


class Heard:
    """A LineListener keeping every line as (direction, line)."""

    def __init__(self, lines: list[tuple[str, str]]) -> None:
        self.lines = lines

    def sent(self, lines: Sequence[str], at: float) -> None:
        self.lines.extend(("out", line) for line in lines)

    def heard(self, line: str) -> None:
        self.lines.append(("in", line))

    def replied(self, line: str, at: float) -> None:
        self.lines.append(("in", line))

    def found(self, line: str) -> None:
        self.lines.append(("in", line))


class Launcher(Protocol):
    def __call__(self, cmd: BotCommand, times: TimeLimits = ...,
                 stderr: Path | None = None) -> RemotePlayer: ...


@pytest.fixture
def launch(hub: ZmqHub, heard: list[tuple[str, str]]) -> Iterator[Launcher]:
    """Start bots on the shared hub, recording every line; closed after the test."""
    players: list[RemotePlayer] = []

    def start(cmd: BotCommand, times: TimeLimits = TIMES,
              stderr: Path | None = None) -> RemotePlayer:
        player = RemotePlayer.launch(cmd, "bot", hub, times, LIMITS, stderr,
                                     listener=Heard(heard))
        players.append(player)
        return player

    yield start
    for player in players:
        player.close()


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_handshake_then_replies_and_every_line_heard(
        launch: Launcher, heard: list[tuple[str, str]], stdio: bool) -> None:
    cmd = misbehave("good", stdio=stdio)
    player = launch(cmd)
    assert (player.name, player.command) == ("bot", cmd)
    assert (player.hello.name, player.hello.version, player.hello.protocol) == (
        "misbehave-good", "1.0", PROTOCOL_VERSION)
    player.new_game("GAME rage seat=0")
    assert player.ask("PLAY? r3 r9") == "r3"
    player.tell("PLAYED 1 r3")
    assert player.ask("BID?") == "ok"
    assert player.ask("PLAY? y4", preamble=["PLAYED 2 b1", "TRICK 1 2"]) == "y4"
    player.close()
    assert heard[0][0] == "in" and heard[0][1].startswith("HELLO 2 ")
    assert heard[1:] == [("out", "GAME rage seat=0"), ("out", "PLAY? r3 r9"), ("in", "r3"),
                         ("out", "PLAYED 1 r3"), ("out", "BID?"), ("in", "ok"),
                         ("out", "PLAYED 2 b1"), ("out", "TRICK 1 2"), ("out", "PLAY? y4"),
                         ("in", "y4"), ("out", "BYE")]


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_close_says_bye_and_the_bot_exits_cleanly(launch: Launcher, stdio: bool) -> None:
    player = launch(misbehave("good", stdio=stdio))
    player.close()
    player.close()
    assert player.process.exit_code == 0  # it left on BYE, before the group kill
    assert not alive(player.process.pid)


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_log_lines_go_to_the_listener_and_not_into_replies(
        launch: Launcher, heard: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch,
        stdio: bool) -> None:
    monkeypatch.setenv("FAULT_LOGS", "16")  # exactly the cap, twice in a row
    player = launch(misbehave("logs", stdio=stdio))
    assert player.ask("PLAY? a") == "a"
    assert player.ask("PLAY? b") == "b"
    logs = [line for direction, line in heard if line.startswith("LOG")]
    assert logs == [f"LOG thinking {i}" for i in range(16)] * 2


def test_one_log_line_over_the_cap_is_a_flood(
        launch: Launcher, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_LOGS", "17")
    player = launch(misbehave("logs"))
    with pytest.raises(OutputFlood, match="more than 16 LOG lines") as caught:
        player.ask("PLAY? a")
    assert caught.value.line == "LOG thinking 16"


def test_a_reply_within_the_move_limit_keeps_the_bank(launch: Launcher) -> None:
    player = launch(misbehave("good"))
    player.new_game("GAME x")
    for _ in range(5):
        player.ask("PLAY? a")
    assert player.bank_left == TIMES.bank


def test_a_late_reply_spends_its_overrun_and_new_game_refills_the_bank(
        launch: Launcher, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot replies 0.45 s after the request, over a move limit of 0.3 s: the bank pays
    the overrun, at least 0.15 s and at most what this test measured around the ask."""
    sleep = 0.45
    monkeypatch.setenv("FAULT_SLEEP", str(sleep))
    times = TimeLimits(startup=30.0, move=0.3, bank=5.0, tolerance=0.05)  # no timeout
    player = launch(misbehave("slow"), times)
    player.new_game("GAME 1")
    start = time.monotonic()
    assert player.ask("PLAY? a") == "a"
    measured = time.monotonic() - start
    assert times.bank - (measured - times.move) - 1e-9 <= player.bank_left
    assert player.bank_left <= times.bank - (sleep - times.move)
    player.new_game("GAME 2")
    assert player.bank_left == times.bank


def test_ask_and_tell_refuse_the_wrong_kind_of_line(launch: Launcher) -> None:
    player = launch(misbehave("good"))
    with pytest.raises(ValueError, match="not a request"):
        player.ask("GAME x")
    with pytest.raises(ValueError, match="of a request"):
        player.tell("PLAY? a")
    with pytest.raises(ValueError, match="of a request"):
        player.ask("PLAY? b", preamble=["BID? 0 1"])


def test_a_zeromq_bot_needs_a_hub() -> None:
    with pytest.raises(ValueError, match="needs a ZmqHub"):
        RemotePlayer.launch(misbehave("good"), "bot", None, TIMES, LIMITS)


def test_a_stdio_bot_needs_no_hub() -> None:
    player = RemotePlayer.launch(misbehave("good", stdio=True), "bot", None, TIMES, LIMITS)
    try:
        assert player.ask("PLAY? z") == "z"
    finally:
        player.close()


def test_bot_stderr_goes_to_the_given_file(launch: Launcher, tmp_path: Path) -> None:
    log = tmp_path / "bot.err"
    launch(misbehave("good", 1), stderr=log).close()
    assert log.read_text() == "misbehave good 1 starting\n"


def test_launching_a_command_that_vanished_raises_bot_start_error(tmp_path: Path) -> None:
    cmd = BotCommand("gone", (str(tmp_path / "gone"),), stdio=True)
    with pytest.raises(BotStartError):
        RemotePlayer.launch(cmd, "bot", None, TIMES, LIMITS)


@pytest.mark.parametrize("stdio", TRANSPORTS)
def test_round_trip_of_a_well_behaved_bot(launch: Launcher, stdio: bool) -> None:
    """Prints the median ask() round trip (run with -s to see it); asserts only the replies."""
    player = launch(misbehave("good", stdio=stdio))
    samples, replies = [], set()
    for _ in range(500):
        start = time.perf_counter()
        replies.add(player.ask("PLAY? r3 r9 b0 J"))
        samples.append(time.perf_counter() - start)
    assert replies == {"r3"}
    name = "stdio" if stdio else "zmq ipc"
    print(f"\n{name} ask() round trip: median {statistics.median(samples) * 1e6:.0f} us")


def test_a_line_sent_after_end_is_never_charged_to_the_next_game(tmp_path: Path) -> None:
    """Issue 10: a persistent bot's stray line after END belongs to the game that ended."""
    script = tmp_path / "stray.sh"
    script.write_text('echo "HELLO 2 $REFEREE_TOKEN stray 1.0"\n'
                      'while IFS= read -r line; do set -- $line\n'
                      '  case "$1" in END) echo stray ;; "BID?") echo "$2" ;; esac\ndone\n')
    times = TimeLimits(startup=5.0, move=2.0)
    player = RemotePlayer.launch(parse_bot_command(f"stdio:sh {script}"), "stray", None,
                                 times, ResourceLimits())
    try:
        player.new_game("GAME rage 1")
        assert player.ask("BID? 0 1") == "0"
        player.tell("END 1")
        assert wait_until(player._channel.pending), "the stray line arrived"
        player.new_game("GAME rage 2")
        assert player.ask("BID? 1 2") == "1"  # no 'line sent without a request'
    finally:
        player.close()
