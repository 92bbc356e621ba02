"""The match loop: deliver what each seat may see, ask the seat to play, let the engine
judge the card, log the move; the fallback plays the lowest card."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.errors import Fault
from referee.logs.writer import DecidedBy, GameLog
from referee.matches.game import Echo
from referee.matches.match import Match, route_by
from referee.players.player import Player
from referee.settings import TimeLimits
from tests.third_game.high_card import codec, render
from tests.third_game.high_card.rules import Config, Event, HighCardState, scores_and_places
from tests.third_game.high_card.view import private_to


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


_ROUTE = route_by(private_to, codec.encode)


class HighCardMatch(Match[Event]):
    def __init__(self, players: Sequence[Player], config: Config, seed: int,
                 times: TimeLimits, log: GameLog | None, echo: Echo | None) -> None:
        observer = None if echo is None else _echoing(echo)
        super().__init__(players, config.players, times, log, observer)
        self.state = HighCardState(config, seed)

    def run(self) -> Result:
        n = len(self.state.hands)
        self.table.start([codec.game_line(seat, n) for seat in range(n)])
        while (seat := self.state.to_play) is not None:
            self.deliver(self.state.events[self.delivered:], _ROUTE)
            hand = self.state.legal_plays()
            card = self.table.ask(seat, codec.play_request(hand), self._judged)
            by = DecidedBy.BOT if card is not None else DecidedBy.FALLBACK
            if card is None:
                card = min(hand)
                self.state.play(card)
            self.log_move(seat, "card", str(card), by)
        self.deliver(self.state.events[self.delivered:], _ROUTE)
        played = self.state.played
        faulted = self.tell_end(lambda faulted: codec.end_line(
            scores_and_places(played, faulted)[1]))
        scores, places = scores_and_places(played, faulted)
        result = Result(tuple(p.name for p in self.table.players), tuple(played), scores,
                        places, tuple(self.table.faults[s] for s in sorted(self.table.faults)))
        if self.log is not None:
            self.log.result(result.to_json())
        return result

    def _judged(self, reply: str) -> int:
        card = codec.parse_card(reply)
        self.state.play(card)  # RuleError: the engine refuses it, and the seat faults
        return card


def _echoing(echo: Echo) -> Callable[[Event], None]:
    def observe(event: Event) -> None:
        line = render.event_line(event)
        if line is not None:
            echo(line)
    return observe

