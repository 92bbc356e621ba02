"""A format 4 log derives whatever the bots do: hypothesis draws a game (Rage with its
variants, The Game with or without commands), its seats' transports, and for every seat
a script of hostile actions (fault_bots/scripted.py), plays it with real processes into
a log that counts the lines out and one that writes them, and both must read back the
same (the oracle of test_log_rederive.py). Behaviours it found are regression tests
below."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee.games.rage.rules import RageConfig, Variant
from referee.matches.game import GameDefinition, Options
from referee.matches.logged_game import write_header
from referee.players.lineup import BotSpec, LaunchSettings, Lineup
from referee.processes.bot_command import BotCommand
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from referee.settings import TimeLimits
from tests.referee.test_log_rederive import TeeLog, assert_same_records

SCRIPTED = Path(__file__).parent / "fault_bots" / "scripted.py"
LAUNCH = LaunchSettings(TimeLimits(startup=5.0, move=1.0, bank=0.0),
                        sandbox=SandboxSettings(SandboxMode.OFF))
INNOCENT = ("ok", "log", "postlog", "odd")  # actions no referee may take for a fault
HOSTILE = ("bad", "logs", "twice", "after", "afterutf8", "later", "junk", "empty", "utf8",
           "hello", "long", "huge", "multi", "frames", "oddreply", "slow", "exit",
           "exitafter", "close", "mute")
FIRST = ("@log", "@junk", "@utf8", "@gone")
RAGE_VARIANTS = [(), (Variant.PLUS_MINUS_ONE,), (Variant.HIDDEN_BID,),
                 (Variant.SECRET_BID, Variant.DURCHMARSCH)]


@dataclass(frozen=True)
class Seat:
    """One scripted bot: over stdio or ZeroMQ, and its actions, request by request."""

    stdio: bool
    script: tuple[str, ...]

    def command(self, game: str) -> BotCommand:
        argv = (sys.executable, str(SCRIPTED), game, ",".join(self.script) or "ok")
        return BotCommand(" ".join(argv), argv, stdio=self.stdio)

    @property
    def hostile(self) -> bool:
        return any(action not in (*INNOCENT, "@log") for action in self.script)


def play_scripted(game: GameDefinition[Any, Any], config: Any, seats: list[Seat],
                  folder: Path, seed: int = 11) -> list[dict[str, Any]]:
    """Play one game of the scripted seats into a counted and a written log; the records
    both read back as, which must be the same."""
    counted, written = folder / "counted.jsonl.gz", folder / "written.jsonl"
    specs = [BotSpec(seat.command(game.name), f"seat{index}")
             for index, seat in enumerate(seats)]
    log = TeeLog(counted, written)
    try:
        with Lineup(LAUNCH) as lineup:
            players = lineup.launch_all(specs)
            write_header(log, game, config, seed, LAUNCH.times, specs, players)
            game.run(players, config, seed, LAUNCH.times, log, lambda _: None)
    finally:
        log.close()
    return assert_same_records(counted, written)


def faulted(records: list[dict[str, Any]]) -> set[int]:
    return {r["seat"] for r in records if r["type"] == "fault"}


actions = st.one_of(st.just("ok"), st.sampled_from(INNOCENT + HOSTILE))
scripts = st.tuples(st.one_of(st.just(()), st.tuples(st.sampled_from(FIRST))),
                    st.lists(actions, max_size=5)).map(lambda s: (*s[0], *s[1]))
drawn_seats = st.builds(Seat, st.booleans(), scripts)


@st.composite
def games(draw: st.DrawFn) -> tuple[GameDefinition[Any, Any], Any, list[Seat]]:
    if draw(st.booleans()):
        players = draw(st.integers(3, 8))
        config = RageConfig(players, frozenset(draw(st.sampled_from(RAGE_VARIANTS))),
                            rounds=2)
        return RAGE, config, draw(st.lists(drawn_seats, min_size=players, max_size=players))
    players = draw(st.integers(1, 5))
    options = Options.of(THEGAME, {"no_commands": draw(st.booleans())})
    return (THEGAME, THEGAME.configure(players, options),
            draw(st.lists(drawn_seats, min_size=players, max_size=players)))


@settings(max_examples=12, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(drawn=games())
def test_a_log_derives_whatever_the_bots_do(
        tmp_path: Path, drawn: tuple[GameDefinition[Any, Any], Any, list[Seat]]) -> None:
    """The counted log reads back as the written one, and no seat whose bot did nothing
    wrong is charged a fault."""
    game, config, seats = drawn
    records = play_scripted(game, config, seats, tmp_path)
    assert faulted(records) <= {i for i, seat in enumerate(seats) if seat.hostile}


@pytest.mark.parametrize("stdio", [False, True], ids=["zmq", "stdio"])
@pytest.mark.parametrize("action", INNOCENT[1:] + HOSTILE + FIRST)
def test_each_action_derives(action: str, stdio: bool, tmp_path: Path) -> None:
    """Every action once, on its own, at the second request of a Rage seat: the fault
    charged to that seat, or none where the action is allowed."""
    seats = [Seat(stdio, ()), Seat(stdio, ("ok", action) if action[0] != "@" else (action,)),
             Seat(not stdio, ())]
    records = play_scripted(RAGE, RageConfig(3, rounds=1), seats, tmp_path)
    if not Seat(stdio, (action,)).hostile or (stdio and action in ("multi", "frames")):
        assert faulted(records) == set()  # over stdio: two lines; a line ended by "\r\n"
    elif action != "@junk":  # dropped, unless it comes after the game's first line
        assert faulted(records) == {1}


def bot_moves_before_the_fault(records: list[dict[str, Any]], seat: int) -> list[str]:
    at = next(i for i, r in enumerate(records) if r["type"] == "fault")
    return [r["kind"] for r in records[:at]
            if r["type"] == "move" and r["seat"] == seat and r["by"] == "bot"]


@pytest.mark.parametrize("stdio", [False, True], ids=["zmq", "stdio"])
@pytest.mark.parametrize("action", ["twice", "after", "afterutf8"])
def test_a_fault_found_before_a_rage_batch_is_not_the_last_exchanges(
        action: str, stdio: bool, tmp_path: Path) -> None:
    """Regression: a seat's line after its reply is found when it is next asked, before
    that batch goes out. The reader took the fault for one in the seat's last exchange,
    so its reply there was never played (the fallback's was) and the log did not derive."""
    seats = [Seat(stdio, ()), Seat(stdio, ("ok", action)), Seat(stdio, ())]
    records = play_scripted(RAGE, RageConfig(3, rounds=1), seats, tmp_path)
    assert faulted(records) == {1}
    assert bot_moves_before_the_fault(records, 1) == ["bid", "play"]


@pytest.mark.parametrize("stdio", [False, True], ids=["zmq", "stdio"])
@pytest.mark.parametrize("action", ["twice", "after", "afterutf8"])
def test_a_fault_found_after_hints_derives(action: str, stdio: bool, tmp_path: Path) -> None:
    """Regression: The Game, a seat answers HINTS? (no move: nothing to close its
    exchange) and sends one line more, found at its next request. The reader ended the
    game at the hints, before the active seat's turn; without a line heard (not UTF-8)
    the log could not tell either, until the referee logged an empty batch there."""
    seats = [Seat(stdio, ()), Seat(stdio, (action,))]
    config = THEGAME.configure(2, Options.of(THEGAME, {}))
    records = play_scripted(THEGAME, config, seats, tmp_path)
    assert faulted(records) == {1}
    assert "turn" in bot_moves_before_the_fault(records, 0)
