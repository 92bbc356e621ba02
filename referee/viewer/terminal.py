"""`referee show --board`: a game's table as text, step by step, for a terminal.

The same steps and board states as `referee view`'s page (page.replayed: the game's
engine replayed over the logged moves, through its own judge for `--seat`); each game
draws its own table (GameDefinition.terminal, its folder's terminal.py). Knows no game.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from referee.ansi import Paint
from referee.errors import ConfigError
from referee.printable import printable
from referee.viewer.page import heading, replayed
from referee.viewer.steps import Step


def board_lines(records: Sequence[Mapping[str, Any]], seat: int | None, paint: Paint,
                wanted: Collection[int] = ()) -> Iterator[str]:
    """Each step's heading and the table it shows (only the `wanted` steps, numbered
    from 0, if any). ConfigError for a game without a terminal board, a step the game
    does not have, or a log whose moves do not replay."""
    table = replayed(records, seat)
    terminal = table.game.terminal()
    if terminal is None or not table.states:
        raise ConfigError(f"{table.game.title} has no board to show on a terminal")
    last = len(table.steps) - 1
    beyond = sorted(step for step in wanted if not 0 <= step <= last)
    if beyond:
        # A seat's view numbers only the steps it was shown: fewer than the organiser's,
        # whose numbers (a fault message's) a user may bring.
        whose = "" if seat is None else f" as seat {seat} saw it (its view numbers " \
            "only the steps it was shown)"
        raise ConfigError(f"--step {beyond[0]}: the game has steps 0 to {last}{whose}")
    names = [printable(str(p.get("name"))) for p in table.header.get("players", [])]
    yield paint.bold(heading(table.game, table.header, seat))
    before = -1  # the state the step before showed
    for index, step in enumerate(table.steps):
        moved, before = step.moves != before, step.moves
        if wanted and index not in wanted:
            continue
        state = table.states[step.moves]
        yield ""
        yield paint.reverse(f" step {index} of {last} ") + " " + _said(step, names, state,
                                                                          moved)
        for fault in step.faults:
            yield paint.bold(f"  fault: {fault.get('kind')}: {printable(str(fault.get('detail')))}")
            for line in fault.get("stderr", []):  # logs.writer.logged_stderr's: strings
                yield f"    stderr: {printable(line)}"
        yield from terminal.draw(state, names, seat, paint, step.seat, table.states[0])
        if step.end is not None and seat is None:
            yield from _result(records, names, paint)


def _result(records: Sequence[Mapping[str, Any]], names: Sequence[str],
            paint: Paint) -> Iterator[str]:
    """The log's result at the end, as the organiser's page gives it: each value by
    player name, each fault with its seat, kind, detail and line. A game's own "game
    over" line gives totals in seat order, and a faulted seat (last, whatever its
    total) would read as ahead of a clean one."""
    result = next((r for r in records if r.get("type") == "result"), None)
    if result is None:
        return
    yield ""
    yield paint.bold("Result:")
    for key, value in result.items():
        if key in ("type", "t", "rounds", "sent_sha256"):
            continue
        label = key.replace("_", " ")
        if key == "faults" and isinstance(value, list):
            said = "; ".join(_fault(fault, names) for fault in value) or "none"
        elif isinstance(value, list) and len(value) == len(names):
            said = ", ".join(f"{name} {item}" for name, item in zip(names, value))
        else:
            said = str(value)
        yield f"  {label}: {printable(said)}"


def _fault(fault: Mapping[str, Any], names: Sequence[str]) -> str:
    seat = fault.get("seat")
    name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    line = fault.get("line")
    return (f"seat {seat} {name} {fault.get('kind')} ({fault.get('detail')})"
            + ("" if line is None else f", line {line!r}"))


def _said(step: Step, names: Sequence[str], state: Mapping[str, Any], moved: bool) -> str:
    """Whose decision the step was, and what it became if it `moved` the game (or how
    the game ended)."""
    if step.end is not None:
        return step.end
    if step.seat is None:
        return "the deal"
    who = f"seat {step.seat} {names[step.seat]}"
    if step.answer is not None and step.kind is not None:
        who += f": {printable(step.answer)}"
    say = state.get("say") if moved else None
    if step.by not in (None, "bot"):
        who += f" (by the {step.by})"
    return f"{who} · {say}" if say else who
