"""High Card as the generic code sees it: 2 to 4 players, competitive, no options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.logs.writer import GameLog
from referee.matches.game import Contest, Echo, GameDefinition, Options, Outcome
from referee.players.player import Player
from referee.settings import FaultPolicy, OnFault, TimeLimits
from tests.third_game.high_card import codec, render
from tests.third_game.high_card.match import HighCardMatch, Result
from tests.third_game.high_card.rules import Config, HighCardState, scores_and_places


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
        return render.closing(names, result.played, result.places)

    def outcome(self, result: Result) -> Outcome:
        return Outcome(result.scores, result.places, result.faults)

    def replay(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
               logged: Mapping[str, Any]) -> Mapping[str, Any]:
        state = HighCardState(self.logged_config(header["settings"]), header["seed"])
        for move in moves:
            state.play(codec.parse_card(move["move"]))
        faulted = frozenset(fault["seat"] for fault in logged.get("faults", []))
        scores, places = scores_and_places(state.played, faulted)
        return {"played": state.played, "scores": list(scores), "places": list(places)}


HIGH_CARD = HighCard()
