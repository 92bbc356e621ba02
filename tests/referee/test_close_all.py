"""Closing a table's bots (Lineup.close, a tournament worker's give_back): BYE goes to
every bot first, and they share one BYE_GRACE to exit before the kill, instead of each
waiting its own grace after the one before."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest

from referee.players.lineup import BotSpec, LaunchSettings, Lineup, close_all
from referee.players.player import Player
from referee.players.remote_player import BYE_GRACE, RemotePlayer
from referee.processes.bot_command import parse_bot_command
from referee.processes.live_bots import live_processes
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.settings import TimeLimits

# Says HELLO, then ignores everything, BYE included: only the kill ends it.
STAYS = "stdio:sh -c 'echo HELLO 2 $REFEREE_TOKEN stays 1; exec sleep 600'"


class Recorded(Player):
    """A player that writes down what it is told, in one shared list."""

    def __init__(self, name: str, events: list[tuple[str, str, float | None]]) -> None:
        self.name, self.events = name, events

    def new_game(self, line: str) -> None: ...

    def tell(self, line: str) -> None: ...

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        return "0"

    def say_bye(self) -> None:
        self.events.append(("bye", self.name, None))

    def close(self, grace: float | None = None) -> None:
        self.events.append(("close", self.name, grace))


pytestmark = pytest.mark.usefixtures("no_bot_left")


def test_every_bot_hears_bye_before_any_is_closed_and_they_share_one_grace() -> None:
    events: list[tuple[str, str, float | None]] = []
    close_all([Recorded(name, events) for name in "abcd"])
    assert [(kind, name) for kind, name, _ in events] == [
        ("bye", "a"), ("bye", "b"), ("bye", "c"), ("bye", "d"),
        ("close", "a"), ("close", "b"), ("close", "c"), ("close", "d")]
    graces = [grace for kind, _, grace in events if kind == "close"]
    assert all(grace is not None and 0 <= grace <= BYE_GRACE for grace in graces)
    assert graces == sorted(graces, reverse=True)  # one deadline, not one grace each


def test_four_bots_that_ignore_bye_are_all_killed_within_about_one_grace() -> None:
    settings = LaunchSettings(TimeLimits(startup=30.0),
                              sandbox=SandboxSettings(SandboxMode.OFF))
    specs = [BotSpec(parse_bot_command(STAYS), f"stays{i}") for i in range(4)]
    with Lineup(settings) as lineup:
        players = lineup.launch_all(specs)
        assert all(isinstance(player, RemotePlayer) for player in players)
        began = time.monotonic()
        close_all(players)
        took = time.monotonic() - began
        assert all(isinstance(player, RemotePlayer) and player.closed for player in players)
        assert live_processes() == []
    # One after another, each close waits its full grace: 4 x BYE_GRACE at least.
    assert BYE_GRACE <= took < 4 * BYE_GRACE
