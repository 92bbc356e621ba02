"""The proof that the referee is generic over games (issue 11): a third game, defined and
registered here alone, runs through `referee play`, `referee replay`, a tournament (in
worker processes too) and `referee results`, with no edit outside tests/third_game/."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from referee.errors import BotCrashed
from referee.matches.game import Options
from referee.logs.writer import GameLog
from referee.logs.replay import replay
from referee.players.player import FunctionPlayer
from referee.registry import games
from referee.settings import TimeLimits
from tests.cli_support import run_main
from tests.third_game.high_card.cards import deal
from tests.third_game.high_card.definition import HIGH_CARD

BOT = Path(__file__).with_name("high_card_bot.py")
HIGH = f"stdio:{shlex.quote(sys.executable)} {shlex.quote(str(BOT))}"
LOW = f"{HIGH} low"


pytestmark = pytest.mark.usefixtures("high_card")  # tests/conftest.py


def test_play_and_replay_a_game_the_referee_never_heard_of(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    code, out, err = run_main(["play", "high-card", HIGH, LOW, "--seed", "7", "--log",
                               str(log)])
    assert code == 0, err
    hands = deal(2, 7)
    assert out.splitlines()[0] == "High Card, 2 players, seed 7"
    assert f"seat 0 plays {max(hands[0])}" in out and f"seat 1 plays {min(hands[1])}" in out
    header = json.loads(log.read_text().splitlines()[0])
    assert header["game"] == "high-card" and header["players"][0]["hello"]["name"] == \
        "highcard-bot"
    code, out, err = run_main(["replay", str(log)])
    assert code == 0 and "result reproduced" in out, err


def test_its_seat_range_and_help_come_from_its_definition() -> None:
    code, _, err = run_main(["play", "high-card", HIGH])
    assert code == 2 and "High Card needs 2 to 4 bots, got 1" in err
    code, out, _ = run_main(["play", "--help"])
    assert code == 0 and "high-card" in out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_tournament_and_its_report(tmp_path: Path, jobs: str) -> None:
    db = tmp_path / "hc.sqlite"
    code, out, err = run_main(["tournament", "high-card", HIGH, LOW, "--deals", "3",
                               "--db", str(db), "--jobs", jobs])
    assert code == 0, err
    assert "high-card: 6/6 games, 0 faults" in err  # 2 bots, tables of 2, 2 rotations
    ranked = [line.split()[:3] for line in out.splitlines()
              if line.split()[:1] in (["1"], ["2"])]
    # Over both rotations of a deal the high bot wins at least once (its highest card
    # beats the low bot's lowest in one of them): it ranks first, shared at worst.
    assert ranked[0] == ["1", "high_card_bot-1", "6"], out
    assert ranked[1][1:] == ["high_card_bot-2", "6"], out
    assert out.startswith("High Card standings")
    code, again, err = run_main(["results", str(db)])
    assert code == 0 and again == out, err


class GoneAtEnd(FunctionPlayer):
    """A bot that has exited by the time it is told END (after its card)."""

    def tell_many(self, lines: Sequence[str]) -> None:
        if any(line.startswith("END") for line in lines):
            raise BotCrashed("bot exited with code 0", 0)
        super().tell_many(lines)


def play_highest(line: str) -> str | None:
    return max(line.split()[1:], key=int) if line.startswith("PLAY?") else None


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seat_that_faults_as_it_is_told_end_places_last_and_the_log_replays(
        seat: int, tmp_path: Path) -> None:
    """Match.tell_end: a seat that faults as it is told END places last in the result,
    as replay places every logged fault, in any game built on Match."""
    players = [(GoneAtEnd if s == seat else FunctionPlayer)(f"bot{s}", play_highest)
               for s in range(3)]
    path = tmp_path / "game.jsonl"
    log = GameLog.open(path, timestamps=False)
    config = HIGH_CARD.configure(3, Options.of(HIGH_CARD, {}))
    log.header(HIGH_CARD.name, 7, HIGH_CARD.log_settings(config, TimeLimits()),
               [{"seat": s} for s in range(3)])
    result = HIGH_CARD.run(players, config, 7, TimeLimits(), log)
    log.close()
    assert [fault.seat for fault in result.faults] == [seat]
    assert result.places[seat] == max(result.places)
    assert "result reproduced" in replay(path, games.lookup)
