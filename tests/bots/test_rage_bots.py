"""The sample Rage bots, in process: legal, deterministic, and the heuristic beats random."""

from __future__ import annotations

import argparse
import random
import statistics
from typing import Callable

import pytest

from bots.rage_heuristic import HeuristicBot, MistakenBot, mistake_rate
from bots.rage_random import RandomBot
from bots.rage_sdk import RageBot
from bots.sdk import Bot
from protocols.message import decode_as
from referee.games.rage.codec import PlayRequest
from protocols.wire import WireError
from referee.games.rage.rules import RageConfig, Variant
from referee.games.rage.cards import Play
from tests.games.views import rage_view as view
from referee.players.player import FunctionPlayer
from referee.games.rage.match import RageMatch, RageResult
from referee.settings import TimeLimits

VARIANT_SETS = [frozenset(), frozenset({Variant.PLUS_MINUS_ONE}),
                frozenset({Variant.HIDDEN_BID, Variant.DURCHMARSCH}),
                frozenset({Variant.SECRET_BID})]


class SeededSdkBot(RageBot):
    """Random choices made through the SDK's tracking (the sample random bot skips it)."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def choose_bid(self, legal: list[int]) -> int:
        return self.rng.choice(legal)

    def choose_play(self, legal: list[Play]) -> Play:
        return self.rng.choice(legal)


def play(bots: list[Bot], seed: int,
         variants: frozenset[Variant] = frozenset()) -> RageResult:
    players = [FunctionPlayer(f"bot{i}", bot.on_line) for i, bot in enumerate(bots)]
    return RageMatch(players, RageConfig(len(bots), variants), seed, TimeLimits()).run()


def test_sample_bots_never_fault_at_any_table_size_or_variant() -> None:
    for seed in range(16):
        players = 3 + seed % 6
        bots: list[Bot] = [HeuristicBot() if s % 2 else RandomBot() for s in range(players)]
        result = play(bots, seed, VARIANT_SETS[seed % len(VARIANT_SETS)])
        assert result.faults == (), (seed, result.faults)


def test_bots_are_deterministic_for_a_seed() -> None:
    def table() -> list[Bot]:
        return [RandomBot(), HeuristicBot(), RandomBot(), HeuristicBot()]
    assert play(table(), 3).totals == play(table(), 3).totals


def test_heuristic_clearly_beats_random() -> None:
    """One heuristic among three random bots, its seat rotated over 40 deals."""
    heuristic, random_ = [], []
    for seed in range(40):
        seat = seed % 4
        bots: list[Bot] = [HeuristicBot() if s == seat else RandomBot() for s in range(4)]
        totals = play(bots, seed).totals
        heuristic.append(totals[seat])
        random_.extend(t for s, t in enumerate(totals) if s != seat)
    gap = statistics.mean(heuristic) - statistics.mean(random_)
    spread = statistics.stdev(heuristic) / len(heuristic) ** 0.5
    assert gap > 4 * spread and gap > 30, (gap, spread)


def test_sdk_tracks_hand_trick_and_bids_like_the_referee() -> None:
    """At every request, the bot's tracked state equals its seat's view (R1-R3 inputs)."""
    checked: list[int] = []
    match: list[RageMatch] = []

    class Checker(SeededSdkBot):
        def on_line(self, line: str) -> str | None:
            if line.startswith("PLAY?"):
                seen = view(match[0].state, self.game.seat)
                assert sorted(c.face for c in self.game.hand) == sorted(c.face for c in seen.hand)
                assert [p.notation for p in self.game.trick_plays] == \
                    [p.notation for _, p in seen.trick]
                assert self.game.trump == seen.trump
                request = decode_as(PlayRequest, line)
                offered = self._offered(request.plays)  # what the reply is chosen from
                assert offered == self.game.legal_plays()
                checked.append(1)
            return super().on_line(line)

    players: list[Callable[[str], str | None]] = [Checker(seat).on_line for seat in range(4)]
    match.append(RageMatch([FunctionPlayer(f"c{i}", h) for i, h in enumerate(players)],
                           RageConfig(4), 9, TimeLimits()))
    assert match[0].run().faults == ()
    assert len(checked) == 4 * sum(range(1, 11))


def test_sdk_refuses_a_play_request_its_tracked_hand_cannot_make() -> None:
    bot = SeededSdkBot()
    for line in ["GAME rage protocol=2 seat=0 players=3 rounds=10 variants=none "
                 "move_ms=1000 bank_ms=0", "ROUND 10 cards=1 dealer=2", "HAND J"]:
        assert bot.on_line(line) is None
    assert bot.on_line("PLAY? J:r") == "J:r"
    assert bot.game.trick == [] and [c.face for c in bot.game.hand] == ["J"]
    with pytest.raises(WireError, match="'r5'"):
        bot.on_line("PLAY? r5")


def test_mistakes_weaken_the_heuristic_by_a_known_amount_and_stay_deterministic() -> None:
    """`--mistakes P` (the arena's bots of known strength, docs/arena.md): P = 0 plays as
    the heuristic does, P = 1 is a random bot, and any P replays a deal the same way."""
    def totals(rate: float, seed: int) -> tuple[int, ...]:
        return play([MistakenBot(rate), HeuristicBot(), HeuristicBot(), HeuristicBot()],
                    seed).totals
    plain = [play([HeuristicBot() for _ in range(4)], seed).totals for seed in range(6)]
    assert [totals(0.0, seed) for seed in range(6)] == plain
    assert [totals(0.5, seed) for seed in range(6)] == [totals(0.5, seed) for seed in range(6)]
    sloppy = statistics.mean(totals(1.0, seed)[0] for seed in range(30))
    sharp = statistics.mean(play([HeuristicBot() for _ in range(4)], seed).totals[0]
                            for seed in range(30))
    assert sloppy < sharp - 10, (sloppy, sharp)


def test_a_mistake_rate_outside_0_to_1_is_refused() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="from 0 to 1"):
        mistake_rate("1.5")
    assert mistake_rate("0.25") == 0.25
