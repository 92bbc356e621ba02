"""How often the order `--until-settled` stops on is wrong, and how soon it stops
(docs/settle.md): round robins of bots of known strength, their places drawn by
Plackett-Luce (a bot's weight exp(strength)), one table of every bot in every rotation a
deal, stopped by the project's own SettleWatch.

    python bench/settle_rule.py [--arenas N] [--bots B] [--step S] [--deals D]

Prints, per confidence, the share of neighbour pairs the stopped order gets wrong, the
share of tournaments with any pair wrong, the share that settled within D deals and the
median deal they stopped after; and `ratio settle_pair_error_over_allowed_CONF VALUE`,
the pair error over 1 - confidence (below 1: within what the rule promises).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.spec.settle_rule import SettleRule  # noqa: E402
from tournaments.stats.settle import SettleWatch  # noqa: E402
from tournaments.store.records import GameRecord  # noqa: E402


def deal_games(deal: int, strengths: dict[str, float], rng: random.Random) -> list[GameRecord]:
    names = list(strengths)
    games = []
    for rotation in range(len(names)):
        seats = tuple(names[(s + rotation) % len(names)] for s in range(len(names)))
        order, left = [], list(seats)
        while left:
            pick = rng.choices(left, [math.exp(strengths[bot]) for bot in left])[0]
            order.append(pick)
            left.remove(pick)
        places = tuple(order.index(bot) + 1 for bot in seats)
        games.append(GameRecord(f"rage/d{deal:05d}/t1/r{rotation}", "rage", deal, seats,
                                tuple(-p for p in places), places))
    return games


def one_tournament(rule: SettleRule, strengths: dict[str, float], deals: int,
                   rng: random.Random) -> tuple[int | None, int]:
    """The deal it settled after (None: not within `deals`) and its wrong neighbour pairs."""
    names = list(strengths)
    deal_of = {f"rage/d{d:05d}/t1/r{r}": d for d in range(1, deals + 1) for r in range(len(names))}
    watch = SettleWatch(rule, deal_of, names)
    for deal in range(1, deals + 1):
        for game in deal_games(deal, strengths, rng):
            watch.add(game)
        if watch.settled_at is not None:
            break
    ratings = watch.ratings()
    order = sorted(ratings, key=lambda bot: -ratings[bot][0])
    return watch.settled_at, sum(names.index(a) > names.index(b) for a, b in zip(order, order[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arenas", type=int, default=200)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--step", type=float, default=0.3, help="strength between neighbours")
    parser.add_argument("--deals", type=int, default=200)
    args = parser.parse_args()
    strengths = {f"b{i}": -i * args.step for i in range(args.bots)}
    rng = random.Random(1)
    for confidence in (0.8, 0.9, 0.95):
        runs = [one_tournament(SettleRule(confidence), strengths, args.deals, rng)
                for _ in range(args.arenas)]
        settled = [(deal, wrong) for deal, wrong in runs if deal is not None]
        stopped = [deal for deal, _ in settled]
        # What the rule promises is about the orders it stops on: unsettled runs ran out of
        # deals and claim nothing.
        pair_error = (sum(wrong for _, wrong in settled) / (len(settled) * (args.bots - 1))
                      if settled else 0.0)
        print(f"confidence {confidence}: {args.arenas} tournaments of {args.bots} bots "
              f"{args.step} apart; settled {len(stopped)}, after deal "
              f"{statistics.median(stopped) if stopped else 'n/a'} (median); wrong pairs "
              f"{pair_error:.4f}; any pair wrong "
              f"{sum(w > 0 for _, w in settled) / max(1, len(settled)):.3f} (of those settled)")
        print(f"ratio settle_pair_error_over_allowed_{confidence} "
              f"{pair_error / (1 - confidence):.3f}")


if __name__ == "__main__":
    main()
