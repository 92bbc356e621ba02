"""Whole Rage games with one real misbehaving bot process (docs/rules.md, Faults).

Each game must still be played to the end, blame exactly the misbehaving seat with the
right fault kind, place it last, let the fallback finish its seat, and leave no process.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from bots.rage_random import RandomBot as RageRandom
from referee.logs.writer import GameLog
from referee.logs.replay import replay
from referee.players.player import FunctionPlayer
from referee.registry.games import lookup

from referee.processes.bot_command import parse_bot_command
from referee.processes.live_bots import live_processes
from referee.errors import BotCrashed
from protocols.faults import FaultKind
from referee.registry.game_logs import read_log
from referee.games.rage.rules import RageConfig
from referee.players.lineup import BotSpec, LaunchSettings
from referee.matches.logged_game import LogOptions, play_game
from referee.games.rage.definition import RAGE
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.games.rage.match import RageMatch, RageResult, game_settings as rage_settings
from referee.settings import TimeLimits
from tests.referee.fault_bots.support import MISBEHAVE, alive, wait_until

CHEAT = Path(__file__).parent / "fault_bots" / "rage_cheat.py"
RANDOM = "python bots/rage_random.py"
# The hanging culprits wait out the move time; the good bots answer far within it.
FAST = LaunchSettings(TimeLimits(startup=3.0, move=1.0, bank=0.0))
# For culprits told what to do in their environment, which a sandbox does not pass on.
UNSANDBOXED = SandboxSettings(SandboxMode.OFF)


def play_with(culprit: str, tmp_path: Path, launch: LaunchSettings = FAST,
              faulty: bool = True) -> RageResult:
    """A 3-player game, the culprit in seat 1, and the log checked against the result."""
    specs = [BotSpec(parse_bot_command(c), label)
             for c, label in [(RANDOM, "good-0"), (culprit, "culprit"), (RANDOM, "good-2")]]
    log_path = tmp_path / "game.jsonl"
    result = play_game(RAGE, specs, RageConfig(3), 11, launch, LogOptions(log_path), lambda _: None)
    faults = [r for r in read_log(log_path) if r["type"] == "fault"]
    assert [f["seat"] for f in faults] == ([1] if faulty else [])
    assert live_processes() == []
    return result


def assert_blamed(result: RageResult, kind: FaultKind) -> None:
    assert len(result.rounds) == 10, "the game is played to the end"
    assert [(f.seat, f.bot, f.kind) for f in result.faults] == [(1, "culprit", kind)]
    assert result.places[1] == 3, "the faulty bot places last"
    assert sorted(result.places[s] for s in (0, 2)) in ([1, 2], [1, 1])


@pytest.mark.parametrize("mode, nth, kind", [
    ("sleep", 1, FaultKind.TIMEOUT),        # hangs on its first request
    ("sleep", 30, FaultKind.TIMEOUT),       # hangs mid-game
    ("exit", 25, FaultKind.CRASH),          # exits mid-game
    ("garbage", 3, FaultKind.PROTOCOL),     # bytes that are not UTF-8
    ("overlong", 3, FaultKind.PROTOCOL),    # a 10,000-character line
    ("flood", 3, FaultKind.FLOOD),          # endless LOG lines
    ("nohello", 1, FaultKind.STARTUP),      # never finishes the handshake
])
def test_misbehaving_zmq_bot_is_blamed_and_game_completes(
        mode: str, nth: int, kind: FaultKind, tmp_path: Path) -> None:
    result = play_with(f"python {MISBEHAVE} {mode} {nth}", tmp_path)
    assert_blamed(result, kind)


def test_bot_that_exits_at_once_is_a_startup_fault_with_its_exit_code(tmp_path: Path) -> None:
    result = play_with("sh -c 'exit 5'", tmp_path)
    assert_blamed(result, FaultKind.STARTUP)  # not a crash in the game (issue 29)
    assert result.faults[0].detail.startswith("died before its HELLO: ")
    assert "5" in result.faults[0].detail


def test_bot_exiting_mid_game_reports_its_exit_code(tmp_path: Path) -> None:
    result = play_with(f"python {MISBEHAVE} exit 25", tmp_path)
    assert "code 3" in result.faults[0].detail


@pytest.mark.parametrize("mode, kind", [
    ("illegal", FaultKind.ILLEGAL),   # plays a held card that does not follow suit (R1)
    ("unknown", FaultKind.PROTOCOL),  # `x99` is not a card in the notation
    ("bid", FaultKind.ILLEGAL),       # bids more than its cards
])
def test_cheating_stdio_bot_is_blamed(mode: str, kind: FaultKind, tmp_path: Path) -> None:
    result = play_with(f"stdio:python {CHEAT} {mode}", tmp_path)
    assert_blamed(result, kind)
    assert result.faults[0].line is not None, "the offending line is recorded"


def test_garbage_stdio_bot_is_blamed(tmp_path: Path) -> None:
    result = play_with(f"stdio:python {MISBEHAVE} garbage 2", tmp_path)
    assert_blamed(result, FaultKind.PROTOCOL)


def test_child_left_running_is_killed_with_its_bot(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("FAULT_CHILD_PIDFILE", str(pidfile))
    unsandboxed = LaunchSettings(FAST.times, sandbox=UNSANDBOXED)  # it writes a pid file
    result = play_with(f"python {MISBEHAVE} child 2", tmp_path, unsandboxed, faulty=False)
    assert result.faults == ()
    child = int(pidfile.read_text())
    assert wait_until(lambda: not alive(child)), "the bot's child outlived the game"


def test_fallback_plays_the_faulty_seat_in_the_log(tmp_path: Path) -> None:
    play_with(f"python {MISBEHAVE} exit 25", tmp_path)
    moves = [r for r in read_log(tmp_path / "game.jsonl") if r["type"] == "move"]
    culprit = [m["by"] for m in moves if m["seat"] == 1]
    assert set(culprit[:24]) == {"bot"} and set(culprit[24:]) == {"fallback"}
    assert {m["by"] for m in moves if m["seat"] != 1} == {"bot"}
    assert len(moves) == 3 * 10 + 3 * sum(range(1, 11)), "every bid and play was made"


def test_time_bank_absorbs_late_replies_then_runs_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_SLEEP", "0.35")  # at least 0.15 s over the move time, every reply
    banked = LaunchSettings(TimeLimits(startup=3.0, move=0.2, bank=0.7), sandbox=UNSANDBOXED)
    result = play_with(f"python {MISBEHAVE} slow 1", tmp_path, banked)
    assert_blamed(result, FaultKind.TIMEOUT)
    moves = [r for r in read_log(tmp_path / "game.jsonl") if r["type"] == "move"]
    by_bot = [m for m in moves if m["seat"] == 1 and m["by"] == "bot"]
    # A loaded machine makes the overruns longer, so fewer replies are paid, never more.
    assert 1 <= len(by_bot) <= math.ceil(0.7 / 0.15), "the bank paid, then ran out"


class GoneAtEnd(FunctionPlayer):
    """A random bot that has exited by the time it is told END (after its last reply)."""

    def tell_many(self, lines: Sequence[str]) -> None:
        if any(line.startswith("END ") for line in lines):
            raise BotCrashed("bot exited with code 0", 0)
        super().tell_many(lines)


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seat_that_faults_as_it_is_told_end_places_last_and_the_log_replays(
        seat: int, tmp_path: Path) -> None:
    """docs/rules.md, Faults and R9 (the referee's fault policy, beyond the rulings' R9 on
    equal totals): faulted seats place last, whenever the fault. A bot gone
    after its last reply faults when the END line is sent: the result places it last, as
    `referee replay` does from the log (a hunt for hostile bots found them disagreeing)."""
    players = [(GoneAtEnd if s == seat else FunctionPlayer)(f"bot{s}", RageRandom().on_line)
               for s in range(3)]
    config, path = RageConfig(3, rounds=2), tmp_path / "game.jsonl"
    log = GameLog.open(path, timestamps=False)
    log.header("rage", 5, rage_settings(config, TimeLimits()), [{"seat": s} for s in range(3)])
    result = RageMatch(players, config, 5, TimeLimits(), log).run()
    log.close()
    assert [(f.seat, f.kind) for f in result.faults] == [(seat, FaultKind.CRASH)]
    assert result.places[seat] == 3
    assert "result reproduced" in replay(path, lookup)
