"""The checks judged over every game the bot played: faults by kind, and reply times.

The engines judge the moves: a fault the match recorded is the evidence. Each fault goes to
the first rule it matches, so every fault fails exactly one of these checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.conformance.recording import Reply
from referee.conformance.verdict import Status, Verdict, fault_verdict, percentile
from referee.errors import Fault
from protocols.faults import FaultKind
from referee.players.remote_player import UNSOLICITED
from referee.registry.games import AnyGame
from referee.settings import TimeLimits
from protocols.clock import Clock

REPLY_TIMES = "reply times"


@dataclass(frozen=True)
class FaultRule:
    name: str
    kind: FaultKind
    phrase: str | None = None  # the detail starts with it (None: any detail)

    def matches(self, fault: Fault) -> bool:
        return fault.kind is self.kind and (
            self.phrase is None or fault.detail.startswith(self.phrase))


_FIRST = (
    FaultRule("replies in time", FaultKind.TIMEOUT),
    FaultRule("no crash", FaultKind.CRASH),
    FaultRule("legal moves only", FaultKind.ILLEGAL),
    FaultRule("no unsolicited lines", FaultKind.PROTOCOL, UNSOLICITED),
)
# A game's own protocol checks go between: before "well-formed lines", which takes every
# other protocol fault.
_LAST = (
    FaultRule("well-formed lines", FaultKind.PROTOCOL),
    FaultRule("no flood", FaultKind.FLOOD),
)


def rules_of(game: AnyGame) -> tuple[FaultRule, ...]:
    """The rules every game's faults are judged by, with `game`'s own protocol checks."""
    own = tuple(FaultRule(name, FaultKind.PROTOCOL, phrase)
                for name, phrase in game.protocol_checks)
    return (*_FIRST, *own, *_LAST)


def rule_verdicts(game: AnyGame, faults: Sequence[tuple[str, Fault]],
                  games: int) -> list[Verdict]:
    """One verdict per rule of `game`, from the (check name, fault) pairs of all games."""
    rules = rules_of(game)
    charged: dict[str, list[tuple[str, Fault]]] = {rule.name: [] for rule in rules}
    for where, fault in faults:
        rule = next((r for r in rules if r.matches(fault)), None)
        if rule is not None:
            charged[rule.name].append((where, fault))
    return [_verdict(rule.name, charged[rule.name], games) for rule in rules]


def _verdict(name: str, found: list[tuple[str, Fault]], games: int) -> Verdict:
    if not found:
        return Verdict(name, Status.PASS, f"no such fault in {games} game(s)")
    where, first = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return fault_verdict(name, f"{where}: {first.summary()}{more}", 0.0, first)


def reply_verdict(replies: Sequence[Reply], times: TimeLimits) -> Verdict:
    """p50, p99 and max of the replies against the move time: a reply that spent time
    bank fails, one above half the move time warns."""
    if not replies:
        return Verdict(REPLY_TIMES, Status.SKIP, "no request was answered")
    ordered = sorted(r.seconds for r in replies)
    slowest = max(replies, key=lambda r: r.seconds)
    p50, p99, most = percentile(ordered, 50), percentile(ordered, 99), ordered[-1]
    figures = {"requests": len(ordered), "p50": round(p50, 4), "p99": round(p99, 4),
               "max": round(most, 4), "limit": times.move}
    wall = times.clock is Clock.WALL  # else the limit counts CPU time, these wall time
    clock = "" if wall else " of CPU time (these are wall-clock)"
    said = (f"p50 {_ms(p50)}, p99 {_ms(p99)}, max {_ms(most)} over {len(ordered)} "
            f"requests; limit {times.move:g} s{clock}")
    if most > times.move and wall:
        return Verdict(REPLY_TIMES, Status.FAIL, f"{said}: the slowest spent time bank",
                       line=slowest.request, figures=figures)
    if most > times.move / 2:
        return Verdict(REPLY_TIMES, Status.WARN, f"{said}: the slowest took over half the "
                                                 "limit", line=slowest.request, figures=figures)
    return Verdict(REPLY_TIMES, Status.PASS, said, figures=figures)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"
