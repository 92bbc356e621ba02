"""A game's board view, for `referee view`'s page (referee/viewer/): what the table shows
at each decision, as JSON, with the script and styles that draw it.

A game gives one by `GameDefinition.board`, built from its own engine replayed over the
logged moves and its own view's judge (`private_to`), so a seat's page holds only what
that seat was shown. The page knows no game: it hands each state to the game's script.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.ansi import Paint
from referee.players.human import Desk

State = dict[str, Any]


@dataclass(frozen=True)
class Board:
    """The board at each point of a game, as one seat (or the organiser) saw it.

    `states`: before the first move, after each move, and at the game's end (so
    len(moves) + 2). `script` defines `RefereeBoard.render(root, states, index, data, h)`;
    `style` is CSS for the board. `nav`: (key, label) of the places to jump to, each
    state holding a label under the key (`nav` in the state, e.g. {"round": "Round 3"})."""

    states: list[State]
    script: str
    style: str
    nav: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Terminal:
    """A game on a terminal (its folder's terminal.py): `draw(state, names, me, paint,
    actor, first)` gives a board state's lines (`me`: whose eyes, None for all; `actor`:
    the seat to act; `first`: the game's first state), for `referee show --board`;
    `desk(paint)` a human seat's desk (referee.players.human.Desk), fed only that seat's
    lines."""

    draw: Callable[..., list[str]]
    desk: Callable[[Paint], Desk]
