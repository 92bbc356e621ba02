"""The Game Extreme bot strength table: the sample bots over many seeded deals.

    /tmp/venv/bin/python bench/thegame_strength.py [--seeds N] [--jobs J] [--first-seed S]

For 1 to 5 players, with and without commands, every seat the same bot (random, heuristic,
or quiet: the heuristic giving no hints), in process (FunctionPlayer + TheGameMatch): mean
cards left with a 95% confidence interval, win %, "excellent" % (fewer than 10 left), the
bot's mean time per turn, and faults. Every bot plays the same seeds. Prints a markdown
table, then the games without commands beside the published figures (docs/rules.md).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.thegame_heuristic import HeuristicBot  # noqa: E402
from bots.thegame_random import RandomBot  # noqa: E402
from bots.thegame_sdk import TheGameBot  # noqa: E402
from referee.games.thegame.codec import TURN_REQUEST, Hint  # noqa: E402
from referee.games.thegame.rules import MAX_PLAYERS, MIN_PLAYERS, TheGameConfig  # noqa: E402
from referee.players.player import FunctionPlayer  # noqa: E402
from referee.settings import TimeLimits  # noqa: E402
from referee.games.thegame.match import TheGameMatch  # noqa: E402



class QuietHeuristicBot(HeuristicBot):
    """The heuristic without hints: comparable with the published no-communication figures."""

    def choose_hints(self) -> tuple[Hint, ...]:
        return ()


BOTS: dict[str, Callable[[], TheGameBot]] = {
    "random": RandomBot, "heuristic": HeuristicBot, "quiet": QuietHeuristicBot}
EXCELLENT_BELOW = 10  # docs/rules.md, "The end": fewer than 10 left is excellent
# docs/rules.md, "Published figures for bot strength" (The Game, no commands)
PUBLISHED = {1: "wins 1-4%", 2: "wins 3-11%", 5: "closest-card heuristic wins ~4.5%"}
PUBLISHED_EXCELLENT = "excellent 12-53% without talk, 28-94% with search and full talk"


@dataclass(frozen=True)
class Cell:
    """One row of the table: a bot at a table size, commands on or off."""

    bot: str
    players: int
    commands: bool


@dataclass(frozen=True)
class GameFigures:
    cards_left: int
    won: bool
    turns: int
    turn_seconds: float
    faults: int


@dataclass(frozen=True)
class Row:
    cell: Cell
    games: int
    mean_left: float
    ci95: float
    win_pct: float
    excellent_pct: float
    ms_per_turn: float
    faults: int


class _Timed:
    """Wraps a bot's on_line, timing its turn decisions."""

    def __init__(self, bot: TheGameBot) -> None:
        self.bot = bot
        self.turns = 0
        self.seconds = 0.0

    def on_line(self, line: str) -> str | None:
        if not line.startswith(TURN_REQUEST):
            return self.bot.on_line(line)
        start = time.perf_counter()
        reply = self.bot.on_line(line)
        self.seconds += time.perf_counter() - start
        self.turns += 1
        return reply


def play_game(cell: Cell, seed: int) -> GameFigures:
    """One in-process game, every seat the cell's bot."""
    seats = [_Timed(BOTS[cell.bot]()) for _ in range(cell.players)]
    players = [FunctionPlayer(f"{cell.bot}{i}", s.on_line) for i, s in enumerate(seats)]
    config = TheGameConfig(cell.players) if cell.commands else TheGameConfig(cell.players, None)
    result = TheGameMatch(players, config, seed, TimeLimits()).run()
    return GameFigures(result.cards_left, result.won, sum(s.turns for s in seats),
                       sum(s.seconds for s in seats), len(result.faults))


def play_chunk(cell: Cell, seeds: Sequence[int]) -> list[GameFigures]:
    """Several games of one cell (the unit of work of a job)."""
    return [play_game(cell, seed) for seed in seeds]


def summarize(cell: Cell, games: Sequence[GameFigures]) -> Row:
    """Mean cards left with a normal 95% interval, win and excellent rates, time per turn."""
    left = [g.cards_left for g in games]
    n = len(left)
    spread = statistics.stdev(left) if n > 1 else 0.0
    turns = sum(g.turns for g in games)
    return Row(cell, n, statistics.fmean(left), 1.96 * spread / math.sqrt(n),
               100 * sum(g.won for g in games) / n,
               100 * sum(g.cards_left < EXCELLENT_BELOW for g in games) / n,
               1000 * sum(g.turn_seconds for g in games) / max(turns, 1),
               sum(g.faults for g in games))


def run(cells: Sequence[Cell], seeds: Sequence[int], jobs: int, chunk: int) -> list[Row]:
    """Play every cell over every seed, `jobs` processes at a time."""
    pieces = [(cell, seeds[i:i + chunk]) for cell in cells for i in range(0, len(seeds), chunk)]
    results: dict[Cell, list[GameFigures]] = {cell: [] for cell in cells}
    if jobs <= 1:
        for cell, part in pieces:
            results[cell].extend(play_chunk(cell, part))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [(cell, pool.submit(play_chunk, cell, part)) for cell, part in pieces]
            for cell, future in futures:
                results[cell].extend(future.result())
    return [summarize(cell, results[cell]) for cell in cells]


def table(rows: Sequence[Row]) -> str:
    """The markdown strength table."""
    lines = ["| bot | players | commands | games | mean left (95% CI) | win % | excellent % "
             "| ms/turn | faults |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r.cell.bot} | {r.cell.players} | {'on' if r.cell.commands else 'off'} "
                     f"| {r.games} | {r.mean_left:.1f} ± {r.ci95:.1f} | {r.win_pct:.1f} "
                     f"| {r.excellent_pct:.1f} | {r.ms_per_turn:.2f} | {r.faults} |")
    return "\n".join(lines)


def comparison(rows: Sequence[Row]) -> str:
    """The games without commands beside the published figures for The Game."""
    lines = ["| bot | players | win % | excellent % | published for The Game |",
             "| --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        if r.cell.commands:
            continue
        published = "; ".join(filter(None, [PUBLISHED.get(r.cell.players),
                                            PUBLISHED_EXCELLENT]))
        lines.append(f"| {r.cell.bot} | {r.cell.players} | {r.win_pct:.1f} "
                     f"| {r.excellent_pct:.1f} | {published} |")
    return "\n".join(lines)


def main() -> None:
    """Parse the options, play, print both tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="deals per row")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--chunk", type=int, default=50, help="games per unit of work")
    parser.add_argument("--bots", default="random,heuristic,quiet",
                        help=f"comma-separated, of: {', '.join(BOTS)}")
    parser.add_argument("--players", default=f"{MIN_PLAYERS}-{MAX_PLAYERS}",
                        help="a table size or a range, e.g. 2 or 1-5")
    args = parser.parse_args()
    low, _, high = args.players.partition("-")
    sizes = range(int(low), int(high or low) + 1)
    cells = [Cell(bot, players, commands) for commands in (False, True)
             for bot in args.bots.split(",") for players in sizes]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    start = time.perf_counter()
    rows = run(cells, list(seeds), args.jobs, args.chunk)
    print(f"The Game Extreme bot strength: seeds {seeds.start}..{seeds.stop - 1} per row, "
          f"every seat the same bot ({time.perf_counter() - start:.0f} s, {args.jobs} jobs)\n")
    print(table(rows))
    print("\nWithout commands, beside the published figures for The Game (docs/rules.md):\n")
    print(comparison(rows))


if __name__ == "__main__":
    main()
