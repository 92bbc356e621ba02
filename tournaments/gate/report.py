"""What `referee gate` says: the running line after each deal, the verdict, the JSON.

Bot text (a fault's detail and offending line) is quoted with protocols.wire.quote, the
project's one rule for showing it.
"""

from __future__ import annotations

from typing import Any

from protocols.wire import line_escaped, quote
from tournaments.gate.runner import GateBots, GateFault, GatePlan, GateResult, GateState

_LINE_SHOWN = 120  # characters of an offending line


def running_line(state: GateState) -> str:
    """deals, mean difference with its 95% interval, the LLR and its bounds, and when the
    differences spread less than their step, the floor the LLR took instead."""
    test = state.test
    settings = test.settings
    interval = test.interval()
    shown = "[-, -]" if interval is None else f"[{interval[0]:+.2f}, {interval[1]:+.2f}]"
    floor = (f"; no spread yet, variance taken as step^2/12 = {test.variance_floor:.3g}"
             if test.floored else "")
    return (f"deals {test.n}, games {state.games}: mean {test.mean:+.3f} 95% CI {shown}, "
            f"LLR {test.llr:+.3f} in ({settings.lower:+.3f}, {settings.upper:+.3f})"
            f"{floor}")


def verdict_lines(result: GateResult, plan: GatePlan, logs: str) -> list[str]:
    """The end: the verdict and why, the figures, the fault if one ended it, the logs."""
    lines = [f"gate: {result.verdict.value} ({result.reason})",
             running_line(result.state),
             f"H0: NEW weaker by {plan.sprt.delta:g} or more; alpha {plan.sprt.alpha:g}, "
             f"beta {plan.sprt.beta:g}"]
    if result.fault is not None:
        lines.append("fault: " + fault_words(result.fault))
    lines.append(f"game logs: {logs}")
    return lines


def interrupted_lines(state: GateState, plan: GatePlan, logs: str, why: str) -> list[str]:
    """What an interrupted gate had found: no verdict, the figures so far, the logs."""
    return [f"gate: interrupted ({why}) before a decision; the results so far:",
            running_line(state),
            f"H0: NEW weaker by {plan.sprt.delta:g} or more; alpha {plan.sprt.alpha:g}, "
            f"beta {plan.sprt.beta:g}",
            f"game logs: {logs}"]


def fault_words(where: GateFault) -> str:
    fault = where.fault
    line = (f" (line: {quote(fault.line, _LINE_SHOWN, line_escaped(fault.detail))})"
            if fault.line is not None else "")
    place = f" ({fault.place})" if fault.place else ""
    # The stderr's lines are escaped already: its last one (a traceback's exception) as is.
    said = f"; its stderr ended: {fault.stderr[-1]}" if fault.stderr else ""
    return (f"{fault.bot} in {where.game_id}, seat {fault.seat}: {fault.kind.value}{place}: "
            f"{quote(fault.detail, _LINE_SHOWN)}{line}{said}; log {where.log}")


def gate_json(result: GateResult, plan: GatePlan, bots: GateBots,
              given_seed: int | None, logs: str) -> dict[str, Any]:
    """Everything the verdict rests on, for machines (docs/gate.md shows the shape)."""
    test, settings = result.state.test, plan.sprt
    interval = test.interval()
    fault = result.fault
    return {
        "game": plan.table.game, "verdict": result.verdict.value,
        "exit_code": result.exit_code, "reason": result.reason,
        "deals": test.n, "games": result.state.games,
        "mean": test.mean if test.n else None,
        "ci95": None if interval is None else list(interval),
        "llr": test.llr, "bounds": [settings.lower, settings.upper],
        "variance": test.spread if test.n >= 2 else None,
        "variance_floor": test.variance_floor,
        "delta": settings.delta, "alpha": settings.alpha, "beta": settings.beta,
        "min_deals": test.min_samples, "max_games": plan.max_games,
        "size": plan.table.size, "seed": given_seed,
        "new": bots.new, "baseline": bots.baseline, "opponents": list(bots.opponents),
        "differences": list(result.state.differences),
        "fault": None if fault is None else {
            **fault.fault.record_json(), "game_id": fault.game_id, "log": str(fault.log)},
        "logs": logs,
    }
