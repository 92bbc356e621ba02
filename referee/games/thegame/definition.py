"""The Game Extreme as the generic code sees it: 1 to 5 players, cooperative, with or
without command cards."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.games.thegame import codec
from referee.errors import ConfigError
from referee.games.thegame.rules import Ending, TheGameConfig, TheGameState
from referee.games.thegame.commands import (
    DEFAULT_COMMANDS, Command, CommandMap, load_command_map,
)
from referee.games.thegame import board, render, terminal
from referee.matches.board import Board, Terminal
from referee.matches.game import (
    Contest, Echo, GameDefinition, GameOption, OptionError, OptionKind, Options, Outcome,
)
from referee.logs.writer import GameLog
from referee.games.thegame.match import (
    FAULT_POLICY, TheGameMatch, TheGameMove, TheGameResult, game_settings,
)
from referee.players.player import Player
from referee.settings import TimeLimits


class TheGame(GameDefinition[TheGameConfig, TheGameResult]):
    name = "thegame"
    title = "The Game"
    seats = range(1, 6)
    contest = Contest.COOPERATIVE
    fault_policy = FAULT_POLICY
    protocol_checks = (("no numeric hint", codec.NUMBERS_IN_HINT),)
    options = (
        GameOption("no_commands", "--no-commands", OptionKind.FLAG,
                   "Play the original The Game (no command cards)."),
        GameOption("commands", "--commands", OptionKind.FILE,
                   "TOML file mapping card numbers to commands."),
    )

    def check_options(self, options: Options) -> None:
        if options["no_commands"] and options["commands"] is not None:
            raise OptionError("commands", "'commands' cannot be combined with "
                                          "'no_commands = true'", other="no_commands")

    def option_identity(self, options: Options) -> dict[str, Any]:
        # The mapping's content defines the results, not where the file lies.
        if options["no_commands"]:
            return {"commands": "none"}
        path: Path | None = options["commands"]
        if path is None:
            return {"commands": "default"}
        try:
            return {"commands": {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}}
        except OSError as error:
            raise ConfigError(f"cannot read the command mapping {path}: "
                              f"{error.strerror}") from error

    def configure(self, players: int, options: Options) -> TheGameConfig:
        return TheGameConfig(players, command_map(options))

    def log_settings(self, config: TheGameConfig, times: TimeLimits) -> dict[str, object]:
        return game_settings(config, times)

    def logged_config(self, settings: Mapping[str, Any]) -> TheGameConfig:
        commands = settings["commands"]
        mapping = None if commands is None else CommandMap.from_numbers(
            {Command(name): numbers for name, numbers in commands.items()})
        return TheGameConfig(settings["players"], mapping)

    def heading(self, config: TheGameConfig, seed_words: str) -> str:
        mode = "The Game Extreme" if config.commands is not None else "The Game (no commands)"
        return f"{mode}, {config.players} player(s), {seed_words}"

    def run(self, players: Sequence[Player], config: TheGameConfig, seed: int,
            times: TimeLimits, log: GameLog | None,
            echo: Echo | None = None) -> TheGameResult:
        names = [player.name for player in players]
        printer = None if echo is None else render.TurnPrinter(names, echo)
        match = TheGameMatch(players, config, seed, times, log, printer,
                             policy=self.fault_policy)
        if printer is not None:
            printer.state = match.state
        return match.run()

    def closing(self, names: Sequence[str], result: TheGameResult) -> list[str]:
        return ["", render.summary(result)]

    def outcome(self, result: TheGameResult) -> Outcome:
        seats = len(result.names)
        return Outcome((result.cards_left,) * seats, (1,) * seats, result.faults,
                       {"won": result.won, "cards_left": result.cards_left,
                        "end_reason": result.reason.value, "cards_played": result.cards_played,
                        "hints_given": result.hints_given})

    def replay(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
               logged: Mapping[str, Any]) -> Mapping[str, Any]:
        state = TheGameState.new_game(self.logged_config(header["settings"]), header["seed"])
        for move in moves:
            _apply(state, move)
        _charge(state, logged.get("faults", []))
        return {"won": state.outcome is Ending.WON,
                "cards_left": state.cards_left(), "cards_played": list(state.cards_played_by)}

    def board(self, header: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
              faults: Sequence[Mapping[str, Any]], seat: int | None) -> Board:
        state = TheGameState.new_game(self.logged_config(header["settings"]), header["seed"])
        return board.build(state, moves, seat, functools.partial(_apply, state),
                           functools.partial(_charge, state, faults))

    def terminal(self) -> Terminal:
        return Terminal(terminal.draw, terminal.TheGameDesk)


def _apply(state: TheGameState, move: Mapping[str, Any]) -> None:
    """Play one logged move on `state` (a hint changes nothing of the engine's)."""
    if TheGameMove(move["kind"]) is TheGameMove.TURN:
        state.apply_turn(codec.parse_turn(move["move"]))


def _charge(state: TheGameState, faults: Sequence[Mapping[str, Any]]) -> None:
    """The first logged fault ends a game still on, lost (ruling X1)."""
    if faults and not state.is_over:
        state.record_fault(faults[0]["seat"])


def command_map(options: Options) -> CommandMap | None:
    """The command cards in play: none, the given mapping file, or the shipped default."""
    if options["no_commands"]:
        return None
    path: Path | None = options["commands"]
    return DEFAULT_COMMANDS if path is None else _load(path)


@functools.lru_cache(maxsize=16)
def _load(path: Path) -> CommandMap:
    """A mapping file, read once per process: a tournament worker plays many games."""
    return load_command_map(path)


THEGAME = TheGame()
