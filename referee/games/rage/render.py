"""Text for people: a compact line per Rage round, and the final score sheet and places."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from tabulate import tabulate

from referee.errors import Fault
from referee.games.rage.rules import Event, RoundResult, RoundScored, TrumpReason, TrumpSet
from referee.games.rage.cards import Colour

_DASH = "\u2014"  # no number: the fallback's points are not the bot's
_NEVER = 1 << 30  # a round no game reaches


def _nums(values: Sequence[int | str]) -> str:
    return " ".join(f"{v:>3}" for v in values)


def round_line(result: RoundResult, trump: Colour | None, totals: Sequence[int],
               fallen: Collection[int] = ()) -> str:
    """One line per round: cards, dealer, trump at the deal, bids, tricks, points, totals.
    A seat in `fallen` (its bot faulted, this round or before) has "—" for its points
    and total: from its fault on, the fallback played for it."""
    seats = result.seats
    trump_name = trump.name.lower() if trump else "none"
    points = [_DASH if seat in fallen else s.total for seat, s in enumerate(seats)]
    shown = [_DASH if seat in fallen else total for seat, total in enumerate(totals)]
    return (f"round {result.round_no:>2}  cards {result.cards:>2}  dealer {result.dealer}  "
            f"trump {trump_name:<6} | bids {_nums([s.bid for s in seats])} "
            f"| tricks {_nums([s.tricks for s in seats])} "
            f"| points {_nums(points)} | totals {_nums(shown)}")


def score_sheet(names: Sequence[str], rounds: Sequence[RoundResult],
                fallback_from: Mapping[int, int] | None = None) -> str:
    """The rules' score sheet: per round and player, every component of the round total.
    A seat whose bot faulted in round R (`fallback_from`: seat -> R) is named "(fallback)"
    from round R on: those are the fallback's points, not the bot's."""
    since = fallback_from or {}
    rows = [[r.round_no, r.cards, _player(names[seat], r.round_no >= since.get(seat, _NEVER)),
             s.bid, s.tricks, s.trick_points, s.action_points, s.bid_bonus, s.total]
            for r in rounds for seat, s in enumerate(r.seats)]
    headers = ["round", "cards", "player", "bid", "tricks", "trick pts", "action pts",
               "bid bonus", "round total"]
    return str(tabulate(rows, headers=headers, tablefmt="simple"))


def _player(name: str, fallback: bool) -> str:
    return f"{name} (fallback)" if fallback else name


def standings(names: Sequence[str], totals: Sequence[int], places: Sequence[int],
              faults: Sequence[Fault]) -> str:
    """Places (equal totals share a place, faulty bots last), totals and faults. A
    faulted seat's total is "—": the fallback's points after the fault are not the bot's."""
    fault_of = {f.seat: f.summary() for f in faults}
    order = sorted(range(len(names)), key=lambda seat: (places[seat], seat))
    rows = [[places[s], names[s], s, _DASH if s in fault_of else totals[s],
             fault_of.get(s, "")] for s in order]
    return str(tabulate(rows, headers=["place", "player", "seat", "total", "fault"],
                        tablefmt="simple"))


class RoundPrinter:
    """Observer that prints a compact line as each Rage round is scored; `fallen` tells,
    as each round ends, the seats whose bots have faulted so far."""

    def __init__(self, players: int, echo: Callable[[str], None]) -> None:
        self.echo = echo
        self.totals = [0] * players
        self.deal_trump: Colour | None = None
        self.fallen: Callable[[], Collection[int]] = frozenset

    def __call__(self, event: Event) -> None:
        if isinstance(event, TrumpSet) and event.reason is TrumpReason.DEAL:
            self.deal_trump = event.colour
        elif isinstance(event, RoundScored):
            self.totals = [t + s.total for t, s in zip(self.totals, event.result.seats)]
            self.echo(round_line(event.result, self.deal_trump, self.totals, self.fallen()))
