"""The game log is complete (issue 14, part 1): every seat's lines out and in, as the
log's one reader gives them back, are exactly the lines that seat was sent and sent, in
order, whatever faults the game had (docs/rules.md, Faults: a faulted seat is told why,
then nothing more). Each seat's bot is its own witness, keeping what it was sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from bots.rage_random import RandomBot as RageRandom
from bots.thegame_random import RandomBot as TheGameRandom
from referee.errors import BotCrashed, BotTimeout
from referee.games.rage.rules import RageConfig
from referee.games.thegame.rules import TheGameConfig
from referee.logs.writer import GameLog
from referee.registry.game_logs import read_log
from referee.games.rage.match import RageMatch, game_settings as rage_settings
from referee.games.thegame.match import TheGameMatch, game_settings as thegame_settings
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits

# What a seat does at its nth request instead of its bot's reply.
MISDEEDS: dict[str, Callable[[str], str]] = {
    "garbage": lambda request: "not a move at all",
    "timeout": lambda request: _raise(BotTimeout("no reply within 1 s")),
    "crash": lambda request: _raise(BotCrashed("exited with code 1", 1)),
}


def _raise(error: Exception) -> str:
    raise error


class Witness(FunctionPlayer):
    """An in-process bot that keeps every line it was sent, whatever the log says."""

    def __init__(self, name: str, on_line: Callable[[str], str | None],
                 misdeed: tuple[int, str] | None) -> None:
        super().__init__(name, self._handle)
        self.received: list[str] = []
        self.replies: list[str] = []
        self._on_line, self._misdeed, self._asked = on_line, misdeed, 0

    def _handle(self, line: str) -> str | None:
        self.received.append(line)
        reply = self._on_line(line)
        if reply is not None:
            self._asked += 1
            if self._misdeed is not None and self._asked == self._misdeed[0]:
                reply = MISDEEDS[self._misdeed[1]](line)
            self.replies.append(reply)
        return reply


def assert_log_is_what_each_seat_was_sent(path: Path, witnesses: list[Witness]) -> None:
    records = read_log(path)
    for seat, witness in enumerate(witnesses):
        lines = [r for r in records if r["type"] == "line" and r["seat"] == seat]
        assert [r["line"] for r in lines if r["dir"] == "out"] == witness.received
        assert [r["line"] for r in lines if r["dir"] == "in"] == witness.replies


misdeeds = st.none() | st.tuples(st.integers(1, 9), st.sampled_from(sorted(MISDEEDS)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 5),
       misdeed=st.lists(misdeeds, min_size=5, max_size=5), timestamps=st.booleans())
def test_every_rage_seat_was_sent_exactly_the_lines_its_log_shows(
        tmp_path_factory: pytest.TempPathFactory, seed: int, players: int,
        misdeed: list[tuple[int, str] | None], timestamps: bool) -> None:
    path = tmp_path_factory.mktemp("log") / "game.jsonl.gz"
    witnesses = [Witness(f"bot{seat}", RageRandom().on_line, misdeed[seat])
                 for seat in range(players)]
    config = RageConfig(players, rounds=3)
    log = GameLog.open(path, timestamps)
    log.header("rage", seed, rage_settings(config, TimeLimits()),
               [{"seat": seat} for seat in range(players)])
    RageMatch(witnesses, config, seed, TimeLimits(), log).run()
    log.close()
    assert_log_is_what_each_seat_was_sent(path, witnesses)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 5),
       misdeed=st.lists(misdeeds, min_size=5, max_size=5))
def test_every_thegame_seat_was_sent_exactly_the_lines_its_log_shows(
        tmp_path_factory: pytest.TempPathFactory, seed: int, players: int,
        misdeed: list[tuple[int, str] | None]) -> None:
    path = tmp_path_factory.mktemp("log") / "game.jsonl"
    witnesses = [Witness(f"bot{seat}", TheGameRandom().on_line, misdeed[seat])
                 for seat in range(players)]
    log = GameLog.open(path, timestamps=False)
    log.header("thegame", seed, thegame_settings(TheGameConfig(players), TimeLimits()),
               [{"seat": seat} for seat in range(players)])
    TheGameMatch(witnesses, TheGameConfig(players), seed, TimeLimits(), log).run()
    log.close()
    assert_log_is_what_each_seat_was_sent(path, witnesses)
