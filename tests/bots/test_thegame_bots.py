"""The sample The Game Extreme bots, in process: legal, deterministic, tracking the game
exactly, talking, and the heuristic far ahead of random (rulings X1-X10, Hints)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bots.thegame_heuristic import HeuristicBot, Planner
from bots.thegame_random import RandomBot
from bots.thegame_sdk import TheGameBot
from referee.games.thegame import codec
from referee.games.thegame.codec import Hint, HintKind
from referee.games.thegame.rules import (
    Event,
    Placement,
    TheGameConfig,
    Turn,
    check_turn_at,
    shortest_legal_turns_at,
)
from referee.games.thegame.commands import DEFAULT_COMMANDS, Command
from tests.games.views import thegame_view as view
from referee.players.player import FunctionPlayer
from referee.settings import TimeLimits
from referee.games.thegame.match import TheGameMatch, TheGameResult

BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"
Handler = Callable[[str], str | None]


def config(players: int, commands: bool) -> TheGameConfig:
    return TheGameConfig(players) if commands else TheGameConfig(players, None)


def match(handlers: Sequence[Handler], seed: int, commands: bool = True,
          events: list[Event] | None = None) -> TheGameMatch:
    players = [FunctionPlayer(f"bot{i}", h) for i, h in enumerate(handlers)]
    observer = None if events is None else events.append
    return TheGameMatch(players, config(len(handlers), commands), seed, TimeLimits(),
                        observer=observer)


def play(bots: Sequence[TheGameBot], seed: int, commands: bool = True,
         events: list[Event] | None = None) -> TheGameResult:
    return match([b.on_line for b in bots], seed, commands, events).run()


def feed(bot: TheGameBot, *lines: str) -> str | None:
    """Give the bot lines; the reply to the last one."""
    reply = None
    for line in lines:
        reply = bot.on_line(line)
    return reply


def game_line(seat: int, players: int, commands: bool) -> str:
    return codec.game_line(seat, players, TheGameConfig(players).hand_size, commands, 1000, 0)


# --- whole games ---------------------------------------------------------------------------

def test_x1_sample_bots_never_fault_at_any_table_size_with_commands_on_and_off() -> None:
    """Every turn either bot submits passes the referee's check (X1): no fault, ever."""
    games = 0
    for players in range(1, 6):
        for commands in (False, True):
            for seed in range(8):
                bots: list[TheGameBot] = [HeuristicBot() if (s + seed) % 2 else RandomBot()
                                          for s in range(players)]
                result = play(bots, 100 * players + seed, commands)
                assert result.faults == () and result.reason != "fault", (players, seed, result)
                games += 1
    assert games == 80


def test_x1_all_heuristic_teams_play_long_games_without_fault() -> None:
    """All-heuristic teams reach the late game (many turns, every command met), no fault."""
    for players in range(1, 6):
        for commands in (False, True):
            for seed in range(6):
                deal = 500 + 10 * players + seed
                result = play([HeuristicBot() for _ in range(players)], deal, commands)
                assert result.faults == (), (players, commands, deal, result.faults)
                assert sum(result.cards_played) >= 40, (players, commands, deal, result)


def test_heuristic_clearly_beats_random_on_the_same_deals() -> None:
    """Paired over 60 deals (1-5 players, commands on and off): a gap of dozens of cards."""
    gaps: list[int] = []
    excellent = 0
    for players in range(1, 6):
        for commands in (False, True):
            for seed in range(6):
                deal = 1000 + 10 * players + seed
                heuristic = play([HeuristicBot() for _ in range(players)], deal, commands)
                random_ = play([RandomBot() for _ in range(players)], deal, commands)
                gaps.append(random_.cards_left - heuristic.cards_left)
                excellent += not commands and heuristic.cards_left < 10
    mean = statistics.fmean(gaps)
    spread = statistics.stdev(gaps) / len(gaps) ** 0.5
    assert mean > 40 and mean > 6 * spread, (mean, spread)
    assert excellent >= 8, excellent  # of 30 games without commands (published: 12-53%)


def test_bots_are_deterministic_for_a_seed_fresh_or_reused() -> None:
    """Same deal, same turns: with new bot objects and with the same objects reused."""
    def table() -> list[TheGameBot]:
        return [RandomBot(), HeuristicBot(), RandomBot()]

    for commands in (False, True):
        bots = table()
        first: list[Event] = []
        second: list[Event] = []
        reused: list[Event] = []
        result = play(bots, 5, commands, first)
        assert play(table(), 5, commands, second) == result
        assert play(bots, 5, commands, reused) == result
        assert first == second == reused
        assert len(first) > 6


def test_sdk_tracks_hand_piles_and_counts_like_the_referee() -> None:
    """At every request the tracked state equals the seat's view, and at the end the result."""
    checked: list[str] = []
    current: list[TheGameMatch] = []

    def checker(bot: TheGameBot) -> Handler:
        def on_line(line: str) -> str | None:
            if line.startswith((codec.TURN_REQUEST, codec.HINTS_REQUEST)):
                state = current[0].state
                seen = view(state, bot.game.seat)
                game = bot.game
                assert game.hand == list(seen.hand)
                assert tuple(game.tops) == seen.tops
                assert game.draw_pile_size == seen.draw_pile_size
                assert tuple(game.hand_counts) == seen.hand_counts
                assert game.visible_commands() == dict(seen.visible_commands)
                assert game.talking_allowed == seen.talking_allowed
                assert game.active_seat == state.current_seat
                assert game.played == {c for pile in state.piles for c in pile}
                if line.startswith(codec.TURN_REQUEST):
                    assert bot.position() == seen.position() == state.position()
                checked.append(line.split()[0])
            return bot.on_line(line)
        return on_line

    for players in range(1, 6):
        for commands in (False, True):
            bots: list[TheGameBot] = [HeuristicBot() if s % 2 == 0 else RandomBot()
                                      for s in range(players)]
            current[:] = [match([checker(b) for b in bots], 40 + players, commands)]
            result = current[0].run()
            assert result.faults == ()
            for bot in bots:
                end = bot.game.end
                assert end is not None
                assert (end.won, end.reason.value, end.cards_left) == (
                    result.won, result.reason, result.cards_left)
                assert bot.game.out == {s for s, h in enumerate(current[0].state.hands)
                                        if not h and not current[0].state.draw_pile}
    assert checked.count(codec.TURN_REQUEST) > 50 and codec.HINTS_REQUEST in checked


# --- hints -----------------------------------------------------------------------------

def test_hints_are_given_and_reach_every_teammate_before_the_turn() -> None:
    """docs/rules.md, Talking: a hint reply reaches every other seat before its next request,
    so the active seat has it when its TURN? comes (lines may be held until then)."""
    record: list[tuple[int, str, str]] = []  # (seat, "in"/"out", line) in time order
    bots = [HeuristicBot() for _ in range(3)]

    def spy(seat: int, bot: TheGameBot) -> Handler:
        def on_line(line: str) -> str | None:
            record.append((seat, "in", line))
            reply = bot.on_line(line)
            if line == codec.HINTS_REQUEST:
                record.append((seat, "out", reply or ""))
            return reply
        return on_line

    result = match([spy(s, b) for s, b in enumerate(bots)], 3, commands=False).run()
    assert result.faults == () and sum(result.hints_given) > 0
    delivered = before_turn = 0
    for index, (seat, direction, line) in enumerate(record):
        if direction != "out" or line == "none":
            continue
        for other in set(range(3)) - {seat}:
            lines = [ln for s, d, ln in record[index + 1:] if s == other and d == "in"]
            request = next((i for i, ln in enumerate(lines) if ln.split()[0].endswith("?")),
                           len(lines))
            assert f"HINT {seat} {line}" in lines[:request], (index, other, line)
            delivered += 1
            before_turn += request < len(lines) and lines[request].startswith("TURN?")
    assert delivered == 2 * sum(1 for _, d, ln in record if d == "out" and ln != "none") > 0
    assert before_turn > 0


def test_heuristic_says_leave_for_a_free_card_and_good_for_a_close_one() -> None:
    """2 costs nothing on a/b (leave), 98 skips only 99 on c/d (good); random says none."""
    lines = [game_line(1, 2, False), "HAND 2 40 50 60 70 98 30", codec.HINTS_REQUEST]
    assert feed(HeuristicBot(), *lines) == "leave:a leave:b good:c good:d"
    assert codec.parse_hints("leave:a leave:b good:c good:d") == (
        Hint(HintKind.LEAVE, "a"), Hint(HintKind.LEAVE, "b"),
        Hint(HintKind.GOOD, "c"), Hint(HintKind.GOOD, "d"))
    assert feed(RandomBot(), *lines) == "none"


def test_active_heuristic_keeps_off_a_pile_a_teammate_asked_to_leave() -> None:
    """docs/rules.md, Talking: the active player can act on hints given before its turn."""
    start = [game_line(0, 2, False), "HAND 2 3 50 51 52 53 54"]
    request = codec.turn_request(2, 84, (1, 1, 100, 100))
    plain = feed(HeuristicBot(), *start, request)
    hinted = feed(HeuristicBot(), *start, "HINT 1 leave:a", request)
    assert plain == "a:2 a:3"
    assert hinted == "b:2 b:3"


def test_hints_are_forgotten_once_the_turn_is_played() -> None:
    """Hints are asked afresh before every turn, so a played turn clears them."""
    bot = HeuristicBot()
    feed(bot, game_line(0, 2, False), "HAND 2 3 50 51 52 53 54", "HINT 1 leave:a good:c")
    assert bot.game.hints_about(0) == {HintKind.LEAVE}
    assert bot.game.hints_about(2) == {HintKind.GOOD}
    feed(bot, "TURNED 0 b:2 b:3")
    assert bot.game.hints == {} and bot.game.hints_about(0) == set()


# --- the heuristic's choices ---------------------------------------------------------------

def test_heuristic_takes_a_reverse_trick() -> None:
    """Reverse trick: 20 on an ascending pile at 30 wins back the cards 21..29."""
    bot = HeuristicBot()
    reply = feed(bot, game_line(1, 2, False), "HAND 20 45 50 60 70 80 90",
                 "TURNED 0 a:25 a:30", "DREW 0 2", codec.turn_request(2, 82, (30, 1, 100, 100)))
    assert reply is not None
    turn = codec.parse_turn(reply)
    assert Placement(0, 20) in turn
    check_turn_at(bot.position(), turn)


def test_heuristic_opens_with_a_stop_for_a_one_card_turn() -> None:
    """Stop: as the first card it makes a legal 1-card turn, here the cheapest turn."""
    assert DEFAULT_COMMANDS.command_of(3) is Command.STOP
    bot = HeuristicBot()
    reply = feed(bot, game_line(0, 1, True), codec.commands_line(DEFAULT_COMMANDS),
                 "HAND 3 40 50 60 70 75 90 97", codec.turn_request(2, 90, (1, 1, 100, 100)))
    assert reply is not None
    turn = codec.parse_turn(reply)
    assert [p.card for p in turn] == [3]
    check_turn_at(bot.position(), turn)


def test_x6_heuristic_covers_its_skull_in_the_same_turn() -> None:
    """Skull (X6): 6 is a skull; the free 6-then-7 is played only as a covered pair."""
    assert DEFAULT_COMMANDS.command_of(6) is Command.SKULL
    bot = HeuristicBot()
    reply = feed(bot, game_line(1, 2, True), codec.commands_line(DEFAULT_COMMANDS),
                 "HAND 6 7 50 60 70 75 90", "TURNED 0 a:4 a:5", "DREW 0 2",
                 codec.turn_request(2, 82, (5, 1, 100, 100)))
    assert reply == "a:6 a:7"
    check_turn_at(bot.position(), codec.parse_turn(reply))


def test_heuristic_falls_back_to_the_engines_cheapest_shortest_turn() -> None:
    """X1: when its own plan is refused by check_turn_at, it still submits a legal turn."""
    class Broken(Planner):
        def plan(self) -> Turn | None:
            return (Placement(0, 99),)  # not in the hand: the engine refuses it

    class Stubborn(HeuristicBot):
        def planner(self) -> Planner:
            base = super().planner()
            return Broken(base.position, self.game.unplayed(), base.penalty, self.weights)

    bot = Stubborn()
    reply = feed(bot, game_line(0, 1, True), codec.commands_line(DEFAULT_COMMANDS),
                 "HAND 2 4 50 60 70 75 90 97", codec.turn_request(2, 90, (1, 1, 100, 100)))
    assert reply is not None
    turn = codec.parse_turn(reply)
    shortest = shortest_legal_turns_at(bot.position())
    assert turn in shortest
    planner = bot.planner()
    assert planner.turn_cost(turn) == min(planner.turn_cost(t) for t in shortest)


# --- as programs -----------------------------------------------------------------------

def test_bots_run_as_executables_over_stdio() -> None:
    """Each bot file is an executable that handshakes and answers a TURN? legally."""
    lines = [game_line(0, 1, False), "HAND 2 3 50 51 52 53 54 60",
             codec.turn_request(2, 90, (1, 1, 100, 100)), "BYE"]
    env = {**os.environ, "REFEREE_ENDPOINT": "stdio", "REFEREE_TOKEN": "t0"}
    for name in ("thegame_random", "thegame_heuristic"):
        path = BOTS_DIR / f"{name}.py"
        assert os.access(path, os.X_OK) and path.read_text().startswith("#!/usr/bin/env python3")
        done = subprocess.run([sys.executable, str(path)], input="\n".join(lines) + "\n",
                              capture_output=True, text=True, env=env, timeout=20, check=True)
        hello, reply = done.stdout.splitlines()
        assert hello == f"HELLO 2 t0 {name} 1.0"
        bot = RandomBot()
        feed(bot, *lines[:2])
        check_turn_at(bot.position(), codec.parse_turn(reply))
