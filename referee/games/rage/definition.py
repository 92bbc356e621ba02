"""Rage as the generic code sees it: 3 to 8 players, competitive, rule variants."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from referee.games.rage import codec
from referee.errors import ConfigError
from referee.games.rage.rules import RageConfig, RageState, Variant, check_variants
from referee.games.rage.cards import Play, find_play
from referee.games.rage import board, render, terminal
from referee.matches.board import Board, Terminal
from referee.matches.game import (
    Contest, Echo, GameDefinition, GameOption, OptionError, OptionKind, Options, Outcome,
)
from referee.logs.writer import GameLog
from referee.games.rage.match import (
    FAULT_POLICY, RageMatch, RageMove, RageResult, game_settings,
)
from referee.players.player import Player
from referee.settings import TimeLimits


class Rage(GameDefinition[RageConfig, RageResult]):
    name = "rage"
    title = "Rage"
    seats = range(3, 9)
    contest = Contest.COMPETITIVE
    fault_policy = FAULT_POLICY
    options = (GameOption("variants", "--variant", OptionKind.CHOICES,
                          "A rule variant (repeatable).", tuple(v.value for v in Variant)),)

    def check_options(self, options: Options) -> None:
        try:
            check_variants(_variants(options))
        except ConfigError as error:
            raise OptionError("variants", str(error)) from None

    def configure(self, players: int, options: Options) -> RageConfig:
        return RageConfig(players, _variants(options))

    def log_settings(self, config: RageConfig, times: TimeLimits) -> dict[str, object]:
        return game_settings(config, times)

    def logged_config(self, settings: Mapping[str, Any]) -> RageConfig:
        return RageConfig(settings["players"],
                          frozenset(Variant(v) for v in settings["variants"]),
                          settings["rounds"])

    def heading(self, config: RageConfig, seed_words: str) -> str:
        variants = ", ".join(sorted(v.value for v in config.variants)) or "none"
        return f"Rage, {config.players} players, {seed_words}, variants: {variants}"

    def run(self, players: Sequence[Player], config: RageConfig, seed: int,
            times: TimeLimits, log: GameLog | None, echo: Echo | None = None) -> RageResult:
        printer = None if echo is None else render.RoundPrinter(config.players, echo)
        match = RageMatch(players, config, seed, times, log, printer,
                          policy=self.fault_policy)
        if printer is not None:
            printer.fallen = lambda: match.table.faulted
        return match.run()

    def closing(self, names: Sequence[str], result: RageResult) -> list[str]:
        fallback_from = {fault.seat: fault.round_no for fault in result.faults
                         if fault.round_no is not None}
        return ["", render.score_sheet(names, result.rounds, fallback_from), "",
                render.standings(names, result.totals, result.places, result.faults)]

    def outcome(self, result: RageResult) -> Outcome:
        return Outcome(result.totals, result.places, result.faults)

    def replay(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
               logged: Mapping[str, Any]) -> Mapping[str, Any]:
        state = RageState.new_game(self.logged_config(header["settings"]), header["seed"])
        for move in moves:
            _apply(state, move)
        faulted = frozenset(f["seat"] for f in logged.get("faults", []))
        return {"totals": state.totals(), "places": state.places(faulted)}

    def board(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
              faults: Sequence[Mapping[str, Any]], seat: int | None) -> Board:
        state = RageState.new_game(self.logged_config(header["settings"]), header["seed"])
        return board.build(state, moves, seat, partial(_apply, state))

    def terminal(self) -> Terminal:
        return Terminal(terminal.draw, terminal.RageDesk)


def _apply(state: RageState, move: Mapping[str, Any]) -> None:
    """Play one logged move (a bid or a card) on `state`."""
    if RageMove(move["kind"]) is RageMove.BID:
        state.bid(codec.parse_bid(move["move"]))
    else:
        state.play(_logged_play(state, move["move"]))


def _variants(options: Options) -> frozenset[Variant]:
    return frozenset(Variant(word) for word in options["variants"])


def _logged_play(state: RageState, notation: str) -> Play:
    play = find_play(state.legal_plays(), notation)
    if play is not None:
        return play
    raise ConfigError(f"logged play {notation} is not legal when replayed")


RAGE = Rage()
