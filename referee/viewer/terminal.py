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
        yield from terminal.draw(state, names, seat, paint, step.seat, table.states[0])


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
