"""Text for people: a compact line per turn of The Game, and the final result.

Hands are shown as counts, never as values: the account may be read by anyone.
"""

from __future__ import annotations

from typing import Callable, Sequence

from tabulate import tabulate

from referee.games.thegame.codec import placements_text
from referee.games.thegame.rules import PILE_NAMES, Event, TheGameState, TurnPlayed
from referee.games.thegame.match import TheGameResult


def turn_line(number: int, event: TurnPlayed, names: Sequence[str],
              state: TheGameState) -> str:
    """`turn 7  seat 1 name: a:37 a:27 | piles a 37 b 12 c 88 d 95 | draw 80 | hands 6 6`."""
    piles = " ".join(f"{n} {t:>3}" for n, t in zip(PILE_NAMES, state.tops()))
    hands = " ".join(str(c) for c in state.hand_counts())
    return (f"turn {number:>3}  seat {event.seat} {names[event.seat]}: "
            f"{placements_text(event.turn)} | piles {piles} | draw {state.draw_pile_size():>2} "
            f"| hands {hands}")


def summary(result: TheGameResult) -> str:
    """Won or lost, why, what is left, and each bot's share of the play and the talk."""
    verdict = "WON" if result.won else "LOST"
    excellent = " (excellent: fewer than 10 left)" if not result.won and result.cards_left < 10 else ""
    lines = [f"result: {verdict}, reason {result.reason}; {result.cards_left} cards left"
             f"{excellent}: {result.hand_cards} in hands, {result.draw_pile} in the draw pile"]
    played = sum(result.cards_played) or 1
    fault_of = {f.seat: f.summary() for f in result.faults}
    rows = [[seat, name, result.cards_played[seat],
             f"{100 * result.cards_played[seat] / played:.0f}%", result.hints_given[seat],
             fault_of.get(seat, "")]
            for seat, name in enumerate(result.names)]
    table = tabulate(rows, headers=["seat", "player", "cards played", "share", "hints",
                                    "fault"], tablefmt="simple")
    return "\n".join(lines) + "\n\n" + str(table)


class TurnPrinter:
    """Observer that prints a compact line after each turn of The Game."""

    def __init__(self, names: Sequence[str], echo: Callable[[str], None]) -> None:
        self.names, self.echo = names, echo
        self.state: TheGameState | None = None
        self.turns = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, TurnPlayed) and self.state is not None:
            self.turns += 1
            self.echo(turn_line(self.turns, event, self.names, self.state))
