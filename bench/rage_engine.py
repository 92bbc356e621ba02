"""Random-playout speed of the Rage engine, beside OpenSpiel's Oh-Hell anchor in the same run.

    /tmp/venv/bin/python bench/rage_engine.py [--games N] [--seed S] [--repeats R]

A decision is one bid or one play, chosen uniformly from legal_bids()/legal_plays().
The anchor (`openspiel_ohhell.py 4 50`) runs as a subprocess with $ANCHOR_PYTHON (default
/tmp/anchors/bin/python), alternating with our runs; the medians of each are compared.

Whole games include the dealing (shuffles, hands, the first trump), which is no
decision. So each side is also timed per decision with the dealing left out: every round
is dealt untimed, then timed from its first bid to its end. Ours deals each round with
RageState.from_deal (a game of that one round, so no later deal happens inside a play);
OpenSpiel's oh_hell deals with chance nodes before the first bid, applied untimed by a
small loop of the same Rage-shaped rounds run with the anchor's interpreter (it counts
any chance node met after the first bid: 0 means the dealing is wholly left out).

Ends with `ratio rage_vs_openspiel_games VALUE` (games/s, ours over theirs; higher is
better) and `ratio rage_vs_openspiel_decision_time VALUE` (microseconds per decision,
dealing excluded, ours over theirs; lower is better).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.games.rage.rules import Phase, RageConfig, RageState, cards_in_round  # noqa: E402
from referee.games.rage.cards import DECK  # noqa: E402

ANCHOR = ROOT / ".." / "shared" / "anchors" / "openspiel_ohhell.py"
ANCHOR_ARGS = ("4", "50")
PLAYERS = 4
ROUNDS = 10  # of 10 cards down to 1, as the anchor's games

# OpenSpiel's side of the per-decision figure: the anchor's Rage-shaped rounds, each
# dealt (its chance nodes) untimed, then timed from the first bid to the end.
OPENSPIEL_DECISIONS = """
import random, sys, time
import pyspiel
players, games = int(sys.argv[1]), int(sys.argv[2])
rounds = [pyspiel.load_game(f"oh_hell(players={players},num_suits=4,"
                            f"num_cards_per_suit=13,num_tricks_fixed={k})")
          for k in range(10, 0, -1)]
rng = random.Random(1)
decisions = late_chance = 0
spent = 0.0
def chance(s):
    outcomes = s.chance_outcomes()
    s.apply_action(outcomes[rng.randrange(len(outcomes))][0])
for _ in range(games):
    for g in rounds:
        s = g.new_initial_state()
        while s.is_chance_node():
            chance(s)
        start = time.perf_counter()
        while not s.is_terminal():
            if s.is_chance_node():
                late_chance += 1
                chance(s)
            else:
                legal = s.legal_actions()
                s.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        spent += time.perf_counter() - start
print(decisions, spent, late_chance)
"""


def play_random_game(config: RageConfig, seed: int, rng: random.Random) -> int:
    """Play one game to the end with uniform random decisions; return the decision count."""
    return play_out(RageState.new_game(config, seed), rng)


def measure_rage(games: int, seed: int) -> tuple[float, float, float]:
    """games/s, decisions/s and decisions/game over `games` random playouts."""
    config = RageConfig(PLAYERS)
    rng = random.Random(seed)
    play_random_game(config, seed, rng)  # warm-up
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        decisions += play_random_game(config, seed + game, rng)
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed, decisions / games


def dealt_round(round_no: int, rng: random.Random) -> RageState:
    """A game of round `round_no` alone, freshly dealt: it ends without another deal."""
    deck = list(DECK)
    rng.shuffle(deck)
    cards = cards_in_round(round_no)
    hands = [deck[seat * cards:(seat + 1) * cards] for seat in range(PLAYERS)]
    return RageState.from_deal(RageConfig(PLAYERS, rounds=round_no), hands,
                               deck[PLAYERS * cards:], dealer=(round_no - 1) % PLAYERS,
                               round_no=round_no)


def play_out(state: RageState, rng: random.Random) -> int:
    """Uniform random decisions to the end of `state`; the decision count."""
    decisions = 0
    phase = state.phase
    while phase is not Phase.OVER:
        if phase is Phase.BID:
            bids = state.legal_bids()
            state.bid(bids[rng.randrange(len(bids))])
        else:
            plays = state.legal_plays()
            state.play(plays[rng.randrange(len(plays))])
        decisions += 1
        phase = state.phase
    return decisions


def rage_decision_us(games: int, seed: int) -> float:
    """Microseconds per decision over `games` games' rounds, the dealing untimed."""
    rng = random.Random(seed)
    play_out(dealt_round(1, rng), rng)  # warm-up
    decisions, spent = 0, 0.0
    for _ in range(games):
        for round_no in range(1, ROUNDS + 1):
            state = dealt_round(round_no, rng)
            start = time.perf_counter()
            decisions += play_out(state, rng)
            spent += time.perf_counter() - start
    return spent / decisions * 1e6


def openspiel_decision_us(python: str, games: int) -> float | None:
    """OpenSpiel's microseconds per decision, the dealing untimed; None if it fails."""
    done = subprocess.run([python, "-c", OPENSPIEL_DECISIONS, str(PLAYERS), str(games)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        print(f"openspiel decisions failed (exit {done.returncode}): "
              f"{done.stderr.strip()[-300:]}")
        return None
    decisions, spent, late_chance = done.stdout.split()
    if int(late_chance):
        print(f"  note: {late_chance} chance nodes after a first bid were timed")
    return float(spent) / int(decisions) * 1e6


def spread(values: list[float], digits: int) -> str:
    return (f"median {statistics.median(values):.{digits}f} "
            f"[{min(values):.{digits}f}-{max(values):.{digits}f}] (n {len(values)})")


def measure_anchor(python: str) -> float | None:
    """One run of the anchor: its games/s, printing its own line; None if it fails."""
    done = subprocess.run([python, str(ANCHOR.resolve()), *ANCHOR_ARGS],
                          capture_output=True, text=True, timeout=600)
    match = re.search(r"([\d.]+) games/s", done.stdout)
    if done.returncode != 0 or match is None:
        print(f"anchor failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
        return None
    print(f"  {done.stdout.strip()}")
    return float(match.group(1))


def main() -> None:
    """Alternate our runs with the anchor's; print the medians and the ratio line last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; medians count")
    args = parser.parse_args()
    python = os.environ.get("ANCHOR_PYTHON", "/tmp/anchors/bin/python")
    anchor_ok = Path(python).exists()
    if not anchor_ok:
        print(f"anchor interpreter {python} is missing (set ANCHOR_PYTHON)")
    ours: list[tuple[float, float, float]] = []
    theirs: list[float] = []
    our_us: list[float] = []
    their_us: list[float] = []
    for _ in range(args.repeats):
        ours.append(measure_rage(args.games, args.seed))
        print(f"  rage {PLAYERS}p: {ours[-1][0]:.1f} games/s")
        anchor = measure_anchor(python) if anchor_ok else None
        anchor_ok = anchor is not None
        if anchor is not None:
            theirs.append(anchor)
        our_us.append(rage_decision_us(args.games, args.seed))
        per_decision = openspiel_decision_us(python, 50) if anchor_ok else None
        if per_decision is not None:
            their_us.append(per_decision)
    games_s, decisions_s, per_game = (statistics.median(run[i] for run in ours) for i in range(3))
    print(f"rage {PLAYERS}p random playouts (median of {len(ours)}): {games_s:.1f} games/s, "
          f"{decisions_s:.0f} decisions/s, {per_game:.0f} decisions/game")
    ratio = "n/a"
    if anchor_ok and theirs:
        anchor_games = statistics.median(theirs)
        print(f"openspiel oh_hell {PLAYERS}p rage-shaped (median of {len(theirs)}): "
              f"{anchor_games:.1f} games/s")
        ratio = f"{games_s / anchor_games:.3f}"
    print(f"ratio rage_vs_openspiel_games {ratio}")
    print(f"rage per decision, dealing excluded: {spread(our_us, 2)} us")
    ratio = "n/a"
    if their_us:
        print(f"openspiel per decision, dealing excluded: {spread(their_us, 2)} us")
        ratio = f"{statistics.median(our_us) / statistics.median(their_us):.3f}"
    print(f"ratio rage_vs_openspiel_decision_time {ratio}")


if __name__ == "__main__":
    main()
