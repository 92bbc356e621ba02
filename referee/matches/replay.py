"""`referee replay LOG`: rebuild a game from its log's seed and moves, and check the result.

The engines are deterministic, so the seed, the settings and the decisions applied (by
bots or by the fallback) must reproduce the logged scores exactly; a mismatch means the
log was altered or the referee has changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocols import rage as rage_codec
from protocols import thegame as thegame_codec
from referee.errors import ConfigError
from referee.matches.game_log import read_log
from referee.games.rage import RageConfig, RageState, Variant
from referee.games.rage_cards import Play, find_play
from referee.games.thegame import Outcome, TheGameConfig, TheGameState
from referee.games.thegame_commands import Command, CommandMap


class ReplayMismatch(Exception):
    """The log replays, but not to the result it records."""


def replay(path: Path) -> str:
    """A one-line verdict. ConfigError: unreadable log; ReplayMismatch: a different result."""
    try:
        records = read_log(path)
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read log {path}: {error}") from None
    headers = [r for r in records if r.get("type") == "game"]
    results = [r for r in records if r.get("type") == "result"]
    if not headers or not results:
        raise ConfigError(f"{path} is not a complete game log (no game header or no result)")
    header, logged = headers[0], results[-1]
    moves = [r for r in records if r.get("type") == "move"]
    try:
        replayed = _REPLAYERS[header["game"]](header, moves, logged)
    except (KeyError, TypeError, ValueError) as error:  # RuleError and WireError included
        raise ConfigError(f"{path} does not replay: {type(error).__name__}: {error}") from None
    mismatched = {k: (logged.get(k), v) for k, v in replayed.items() if logged.get(k) != v}
    if mismatched:
        detail = "; ".join(f"{k}: logged {a}, replayed {b}" for k, (a, b) in mismatched.items())
        raise ReplayMismatch(f"{path} does not reproduce: {detail}")
    return (f"{path}: {header['game']} seed {header['seed']}, {len(moves)} moves replayed, "
            f"result reproduced")


def _rage(header: dict[str, Any], moves: list[dict[str, Any]],
          logged: dict[str, Any]) -> dict[str, Any]:
    settings = header["settings"]
    config = RageConfig(settings["players"], frozenset(Variant(v) for v in settings["variants"]),
                        settings["rounds"])
    state = RageState.new_game(config, header["seed"])
    for move in moves:
        if move["move"].isdigit():
            state.bid(rage_codec.parse_bid(move["move"]))
        else:
            state.play(_play(state, move["move"]))
    faulted = frozenset(f["seat"] for f in logged.get("faults", []))
    return {"totals": state.totals(), "places": state.places(faulted)}


def _play(state: RageState, notation: str) -> Play:
    play = find_play(state.legal_plays(), notation)
    if play is not None:
        return play
    raise ConfigError(f"logged play {notation} is not legal when replayed")


def _thegame(header: dict[str, Any], moves: list[dict[str, Any]],
             logged: dict[str, Any]) -> dict[str, Any]:
    settings = header["settings"]
    commands = settings["commands"]
    command_map = None if commands is None else CommandMap.from_numbers(
        {Command(name): numbers for name, numbers in commands.items()})
    state = TheGameState.new_game(TheGameConfig(settings["players"], command_map),
                                  header["seed"])
    for move in moves:
        if not move["move"].startswith("hint"):
            state.apply_turn(thegame_codec.parse_turn(move["move"]))
    faults = logged.get("faults", [])
    if faults and not state.is_over:
        state.record_fault(faults[0]["seat"])
    return {"won": state.outcome is Outcome.WON,
            "cards_left": state.cards_left(), "cards_played": list(state.cards_played_by)}


_REPLAYERS = {"rage": _rage, "thegame": _thegame}
