"""Whole games of The Game with one real misbehaving bot process (ruling X1).

A rule-breaking turn, a timeout, a crash or a protocol error ends the team's game as lost,
charged to that bot, and the log says exactly what happened.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.processes.bot_command import parse_bot_command
from referee.processes.live_bots import live_processes
from protocols.faults import FaultKind
from referee.registry.game_logs import read_log
from referee.games.thegame.rules import TheGameConfig
from referee.players.lineup import BotSpec, LaunchSettings
from referee.matches.logged_game import LogOptions, play_game
from referee.games.thegame.definition import THEGAME
from referee.settings import TimeLimits
from tests.referee.fault_bots.support import MISBEHAVE

CHEAT = Path(__file__).parent / "fault_bots" / "thegame_cheat.py"
RANDOM = "python bots/thegame_random.py"
# The hanging culprit waits out the move time; the good bot answers far within it.
FAST = LaunchSettings(TimeLimits(startup=3.0, move=1.0, bank=0.0))


@pytest.mark.parametrize("culprit, kind", [
    (f"python {MISBEHAVE} sleep 1", FaultKind.TIMEOUT),     # hangs when asked for hints
    (f"python {MISBEHAVE} exit 1", FaultKind.CRASH),        # exits when first asked
    (f"python {MISBEHAVE} garbage 1", FaultKind.PROTOCOL),  # not UTF-8
    (f"python {MISBEHAVE} flood 1", FaultKind.FLOOD),       # endless LOG lines
    (f"stdio:python {CHEAT} steal", FaultKind.ILLEGAL),     # plays cards it does not hold
    (f"stdio:python {CHEAT} backwards", FaultKind.ILLEGAL),  # wrong direction
    (f"stdio:python {CHEAT} numbers", FaultKind.PROTOCOL),  # a hint with a number in it
])
def test_fault_ends_the_game_lost_and_is_charged_to_its_bot(
        culprit: str, kind: FaultKind, tmp_path: Path) -> None:
    specs = [BotSpec(parse_bot_command(RANDOM), "good"),
             BotSpec(parse_bot_command(culprit), "culprit")]
    log_path = tmp_path / "game.jsonl"
    result = play_game(THEGAME, specs, TheGameConfig(2), 5, FAST, LogOptions(log_path),
                          lambda _: None)
    assert not result.won and result.reason == "fault"
    assert [(f.seat, f.bot, f.kind) for f in result.faults] == [(1, "culprit", kind)]
    assert result.cards_left > 0
    records = read_log(log_path)
    faults = [r for r in records if r["type"] == "fault"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(1, kind.value)]
    assert records[-1]["type"] == "result" and records[-1]["faults"][0]["kind"] == kind.value
    assert live_processes() == []
