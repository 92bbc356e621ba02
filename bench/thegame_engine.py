"""Random-playout speed of The Game Extreme engine, beside the Rage engine in the same run.

    /tmp/venv/bin/python bench/thegame_engine.py [--games N] [--seed S]

A decision is one turn for The Game (a uniformly random legal turn of the minimum length,
seeded, commands on), one bid or one play for Rage (uniform over legal_bids()/legal_plays()).
Most of a playout's time is the bot side (listing every shortest legal turn to pick one), so
the recorded turns are also replayed through apply_turn alone: the referee's own work per turn
(checking it, placing, drawing, searching the next player's legal turn). The last line compares
The Game's 4-player playout decisions/s with Rage's.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.games.thegame.rules import (  # noqa: E402
    TheGameConfig,
    TheGameState,
    Turn,
    has_legal_turn_at,
    shortest_legal_turns_at,
)

RAGE_PLAYERS = 4


def play_thegame(config: TheGameConfig, seed: int, rng: random.Random) -> int:
    """One game to the end with random minimum-length turns; return the turn count."""
    state = TheGameState.new_game(config, seed)
    turns = 0
    while not state.is_over:
        state.apply_turn(rng.choice(shortest_legal_turns_at(state.position())))
        turns += 1
    return turns


def measure(play: Callable[[int, random.Random], int], games: int,
            seed: int) -> tuple[float, float, float]:
    """games/s, decisions/s and decisions/game over `games` seeded playouts."""
    rng = random.Random(seed)
    play(seed, rng)  # warm-up
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        decisions += play(seed + game, rng)
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed, decisions / games


def record_games(players: int, games: int, seed: int) -> list[list[Turn]]:
    """The turns of `games` seeded playouts, for replaying without the choosing."""
    rng = random.Random(seed)
    recorded = []
    for game in range(games):
        state = TheGameState.new_game(TheGameConfig(players), seed + game)
        turns: list[Turn] = []
        while not state.is_over:
            turns.append(rng.choice(shortest_legal_turns_at(state.position())))
            state.apply_turn(turns[-1])
        recorded.append(turns)
    return recorded


def measure_referee(players: int, recorded: list[list[Turn]], seed: int) -> float:
    """Turns/s of apply_turn alone (check, place, draw, search the next legal turn)."""
    config = TheGameConfig(players)
    start = time.perf_counter()
    for game, turns in enumerate(recorded):
        state = TheGameState.new_game(config, seed + game)
        for turn in turns:
            state.apply_turn(turn)
    return sum(len(turns) for turns in recorded) / (time.perf_counter() - start)


def measure_search(players: int, recorded: list[list[Turn]], seed: int) -> tuple[float, int]:
    """Mean microseconds of has_legal_turn_at over every position of the recorded games."""
    positions = []
    for game, turns in enumerate(recorded):
        state = TheGameState.new_game(TheGameConfig(players), seed + game)
        positions.append(state.position())
        for turn in turns:
            state.apply_turn(turn)
            positions.append(state.position())
    start = time.perf_counter()
    for position in positions:
        has_legal_turn_at(position)
    return (time.perf_counter() - start) / len(positions) * 1e6, len(positions)


def rage_player() -> Callable[[int, random.Random], int] | None:
    """The Rage playout function, or None while referee.games.rage.rules is not importable."""
    try:
        from referee.games.rage.rules import Phase, RageConfig, RageState
    except ImportError:
        return None
    config = RageConfig(RAGE_PLAYERS)

    def play(seed: int, rng: random.Random) -> int:
        state = RageState.new_game(config, seed)
        decisions = 0
        while state.phase is not Phase.OVER:
            if state.phase is Phase.BID:
                state.bid(rng.choice(state.legal_bids()))
            else:
                state.play(rng.choice(state.legal_plays()))
            decisions += 1
        return decisions

    return play


def report(label: str, figures: tuple[float, float, float]) -> None:
    games_s, decisions_s, per_game = figures
    print(f"{label}: {games_s:.1f} games/s, {decisions_s:.0f} decisions/s, "
          f"{per_game:.1f} decisions/game")


def main() -> None:
    """Measure The Game solo and 4 players, then Rage, and print the ratio line last."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in (1, 4):
        config = TheGameConfig(players)
        figures = measure(lambda s, r: play_thegame(config, s, r), args.games, args.seed)
        report(f"thegame {players}p commands random min-length turns", figures)
        recorded = record_games(players, args.games, args.seed)
        print(f"thegame {players}p referee alone (apply_turn replayed): "
              f"{measure_referee(players, recorded, args.seed):.0f} turns/s")
        micros, count = measure_search(players, recorded, args.seed)
        print(f"thegame {players}p has_legal_turn: {micros:.1f} us/call over {count} positions")
    thegame_decisions = figures[1]
    rage = rage_player()
    if rage is None:
        print("rage: referee.games.rage.rules is not importable")
        print("ratio thegame_vs_rage_decisions n/a")
        return
    rage_figures = measure(rage, max(1, args.games // 10), args.seed)
    report(f"rage {RAGE_PLAYERS}p random playouts", rage_figures)
    print(f"ratio thegame_vs_rage_decisions {thegame_decisions / rage_figures[1]:.3f}")


if __name__ == "__main__":
    main()
