"""A third game, registered from the tests only: one trick of "highest card wins".

Two to four players each get three cards from 1 to 20. In seat order each plays one card,
seen by all; the highest card wins the trick and scores 1. A faulted seat plays its lowest
card (the fallback) and places last. It exists to prove that a game needs nothing outside
its own files: the registry, `referee play`, tournaments, replay and reports are generic.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocols.wire import WireError, ascii_number
from referee.errors import Fault, RuleError
from referee.matches.game import Contest, Echo, GameDefinition, Options, Outcome
from referee.matches.game_log import DecidedBy, GameLog
from referee.matches.match import Match
from referee.players.player import Player
from referee.settings import FaultPolicy, OnFault, TimeLimits

HAND = 3
DECK = range(1, 21)


@dataclass(frozen=True)
class Config:
    players: int


@dataclass(frozen=True)
class Result:
    names: tuple[str, ...]
    played: tuple[int, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    faults: tuple[Fault, ...]

    def to_json(self) -> dict[str, object]:
        return {"played": list(self.played), "scores": list(self.scores),
                "places": list(self.places), "faults": [f.to_json() for f in self.faults]}


def deal(players: int, seed: int) -> list[list[int]]:
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    return [sorted(cards[seat * HAND:(seat + 1) * HAND]) for seat in range(players)]


def scores_and_places(played: Sequence[int], faulted: frozenset[int]) -> tuple[tuple[int, ...],
                                                                             tuple[int, ...]]:
    winner = max(range(len(played)), key=lambda seat: played[seat])
    scores = tuple(int(seat == winner) for seat in range(len(played)))
    places = tuple(len(played) if seat in faulted else 1 if seat == winner else 2
                   for seat in range(len(played)))
    return scores, places


def parse_card(reply: str, hand: Sequence[int]) -> int:
    card = ascii_number(reply, 2)
    if card is None:
        raise WireError(f"expected a card number, got {reply[:40]!r}")
    if card not in hand:
        raise RuleError(f"card {card} is not in the hand")
    return card


class HighCardMatch(Match[str]):
    def __init__(self, players: Sequence[Player], config: Config, seed: int,
                 times: TimeLimits, log: GameLog | None, echo: Echo | None) -> None:
        super().__init__(players, config.players, times, log, None)
        self.hands = deal(config.players, seed)
        self.echo = echo

    def run(self) -> Result:
        n = len(self.hands)
        self.table.start([f"GAME high-card seat {seat} players {n}" for seat in range(n)])
        played: list[int] = []
        for seat, hand in enumerate(self.hands):
            self.table.tell(seat, "HAND " + " ".join(map(str, hand)))
            card = self.table.ask(seat, "PLAY? " + " ".join(map(str, hand)),
                                  lambda reply, hand=hand: parse_card(reply, hand))
            by = DecidedBy.BOT if card is not None else DecidedBy.FALLBACK
            card = card if card is not None else min(hand)
            self.log_move(seat, "card", str(card), by)
            self.table.tell_all(f"PLAYED {seat} {card}")
            played.append(card)
            if self.echo is not None:
                self.echo(f"seat {seat} plays {card}")
        faulted = self.tell_end(lambda faulted: "END " + " ".join(
            map(str, scores_and_places(played, faulted)[1])))
        scores, places = scores_and_places(played, faulted)
        result = Result(tuple(p.name for p in self.table.players), tuple(played), scores,
                        places, tuple(self.table.faults[s] for s in sorted(self.table.faults)))
        if self.log is not None:
            self.log.result(result.to_json())
        return result


class HighCard(GameDefinition[Config, Result]):
    name = "high-card"
    title = "High Card"
    seats = range(2, 5)
    contest = Contest.COMPETITIVE
    fault_policy = FaultPolicy(OnFault.FALLBACK)

    def check_options(self, options: Options) -> None:
        pass  # no options

    def configure(self, players: int, options: Options) -> Config:
        self.check_players(players)
        return Config(players)

    def log_settings(self, config: Config, times: TimeLimits) -> dict[str, object]:
        return {"players": config.players, "times": times.to_json()}

    def logged_config(self, settings: Mapping[str, Any]) -> Config:
        return Config(settings["players"])

    def heading(self, config: Config, seed_words: str) -> str:
        return f"High Card, {config.players} players, {seed_words}"

    def run(self, players: Sequence[Player], config: Config, seed: int, times: TimeLimits,
            log: GameLog | None, echo: Echo | None = None) -> Result:
        return HighCardMatch(players, config, seed, times, log, echo).run()

    def closing(self, names: Sequence[str], result: Result) -> list[str]:
        return [f"{name}: played {card}, place {place}"
                for name, card, place in zip(names, result.played, result.places)]

    def outcome(self, result: Result) -> Outcome:
        return Outcome(result.scores, result.places, result.faults)

    def replay(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
               logged: Mapping[str, Any]) -> Mapping[str, Any]:
        hands = deal(header["settings"]["players"], header["seed"])
        played = [parse_card(move["move"], hands[move["seat"]]) for move in moves]
        faulted = frozenset(fault["seat"] for fault in logged.get("faults", []))
        scores, places = scores_and_places(played, faulted)
        return {"played": played, "scores": list(scores), "places": list(places)}


HIGH_CARD = HighCard()
