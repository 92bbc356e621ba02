"""One game's log as one self-contained HTML page: data, script and styles inline.

The organiser's page (seat None) holds everything the log holds. A seat's page holds
only what that seat was shown: its own lines and decisions in full; of the other seats'
decisions, only those that changed the table, with the board as the game's own judge
lets the seat see it (GameDefinition.board); no seed, no other seat's lines, commands,
think times or faults; and nothing past the seat's own fault, after which it was shown
nothing more. The spectator's page (SPECTATOR) is a seat's page for a seat that has no
hand: what anyone watching the table sees, every decision as a move and its kind.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.matches.board import Board
from referee.matches.game import GameDefinition
from referee.registry.games import lookup
from referee.viewer.steps import Step, decisions

_HERE = Path(__file__).parent
SPECTATOR = -1  # the view of no seat: every seat's hand and lines hidden, as from the rail
_BROKEN = (ValueError, KeyError, TypeError, IndexError, AttributeError)


@dataclass(frozen=True)
class Page:
    """The page's parts: its data (embedded as JSON), the board's script and styles."""

    data: dict[str, Any]
    script: str
    style: str


@dataclass
class Replayed:
    """A log's steps and the board states they show, as `seat` (None: all) saw them:
    each step's `moves` is the index of its state in `states`."""

    game: GameDefinition[Any, Any]
    header: Mapping[str, Any]
    steps: list[Step]
    states: list[Any]
    board: Board | None


def replayed(records: Sequence[Mapping[str, Any]], seat: int | None) -> Replayed:
    """The steps and board states of a log (read_log's records) for `seat`. ConfigError
    for a seat the game does not have, or a log whose moves do not replay.

    A log is untrusted: one edited, or written without derivation, is read as written,
    so a record of the wrong shape anywhere is one error line too, never a traceback
    (tests/viewer/test_hostile_page.py fuzzes it)."""
    try:
        return _replayed(records, seat)
    except _BROKEN as error:
        raise _not_a_page(error) from None


def _not_a_page(error: Exception) -> ConfigError:
    if isinstance(error, ConfigError):  # already said in one line (a ValueError too)
        return error
    return ConfigError(f"the log does not make a page: a record is not as a game log "
                       f"writes it ({type(error).__name__}: {_one_line(error)})")


def _one_line(error: Exception) -> str:
    """An error's words on one line: a library's may span several."""
    return " ".join(str(error).split())


def _replayed(records: Sequence[Mapping[str, Any]], seat: int | None) -> Replayed:
    header = records[0]
    game = lookup(str(header.get("game")))
    players = list(header.get("players", []))
    if seat is not None and seat != SPECTATOR and not 0 <= seat < len(players):
        raise ConfigError(f"--seat {seat}: the game has seats 0 to {len(players) - 1}")
    steps, moves, faults = decisions(records)
    try:
        board = game.board(header, moves, faults, seat)
    except _BROKEN as error:
        raise ConfigError(f"the log's moves do not replay: {_one_line(error)}") from None
    if seat is not None:
        steps = _seen_by(steps, seat)
    kept = _board_states(steps, board, len(moves))
    return Replayed(game, header, steps, kept, board)


def build(records: Sequence[Mapping[str, Any]], seat: int | None) -> Page:
    """The page of a log (read_log's records) for `seat` (None: the organiser's).
    ConfigError for a seat the game does not have, or a log whose moves do not replay,
    or whose records are not of a game log's shape (as `replayed`)."""
    table = replayed(records, seat)
    try:
        return _page(records, seat, table)
    except _BROKEN as error:
        raise _not_a_page(error) from None


def _page(records: Sequence[Mapping[str, Any]], seat: int | None, table: Replayed) -> Page:
    game, header, steps, board = table.game, table.header, table.steps, table.board
    players = list(header.get("players", []))
    result = next((dict(r) for r in records if r.get("type") == "result"), None)
    dropped = {r.get("seat"): r for r in records if r.get("type") == "dropped"}
    data: dict[str, Any] = {
        "title": game.title, "heading": heading(game, header, seat), "seat": seat,
        "players": [_player(p, seat, dropped) for p in players],
        "limits": _limits(header.get("settings", {}).get("times", {})),
        "nav": [list(pair) for pair in board.nav] if board else [],
        "states": table.states, "steps": [_step_json(step) for step in steps],
    }
    if seat is None and result is not None:
        data["result"] = {k: v for k, v in result.items() if k not in ("type", "t")}
    return Page(data, board.script if board else "", board.style if board else "")


def heading(game: GameDefinition[Any, Any], header: Mapping[str, Any],
             seat: int | None) -> str:
    words = f"seed {header.get('seed')}" if seat is None else "as a spectator saw it" \
        if seat == SPECTATOR else f"as seat {seat} saw it"
    try:
        return game.heading(game.logged_config(header["settings"]), words)
    except _BROKEN:
        return f"{game.title}, {words}"


def _player(player: Mapping[str, Any], seat: int | None,
            dropped: Mapping[Any, Mapping[str, Any]]) -> dict[str, Any]:
    """The player as `seat` may see it; with the LOG lines the log dropped past its
    budget (docs/game-log.md), without which a page's later steps would seem to show
    a bot that went quiet."""
    shown: dict[str, Any] = {"name": str(player.get("name"))}
    if seat is None or player.get("seat") == seat:
        hello = player.get("hello") or {}
        shown["hello"] = f"{hello.get('name', '')} {hello.get('version', '')}".strip()
        shown["command"] = str(player.get("command", ""))
        if player.get("seat") in dropped:
            drop = dropped[player.get("seat")]
            shown["dropped"] = [int(drop["lines"]), int(drop["bytes"])]
    return shown


def _limits(times: Mapping[str, Any]) -> dict[str, Any]:
    return {"move": times.get("move"), "bank": times.get("bank"),
            "clock": times.get("clock", "wall")}


def _seen_by(steps: list[Step], seat: int) -> list[Step]:
    """The steps as `seat` saw them: its own in full; another seat's only if it made a
    move, and then only whose it was and its kind; none after the seat's own fault."""
    seen: list[Step] = []
    moves = 0
    for step in steps:
        if step.end is not None:
            seen.append(Step(None, step.moves, end=step.end,
                             told=[t for t in step.told if t[0] == seat]))
        elif step.seat == seat or step.seat is None:
            seen.append(step)
            if step.faults:  # its last: it was shown nothing after its fault
                told = [(seat, "<", line) for line in _sent_after_fault(steps, step, seat)]
                seen.append(Step(None, step.moves, told=told,
                                 end=f"seat {seat} left the game at its fault: it was "
                                     "shown nothing after"))
                return seen
        elif step.moves > moves:
            seen.append(Step(step.seat, step.moves, step.kind))
        moves = step.moves
    return seen


def _sent_after_fault(steps: list[Step], faulted: Step, seat: int) -> list[str]:
    """What the seat was sent after its fault (its ERROR line, BYE)."""
    later = steps[steps.index(faulted) + 1:]
    lines = [line for step in later if step.seat == seat for line in step.asked]
    return lines + [line for step in later if step.end is not None
                    for s, arrow, line in step.told if s == seat and arrow == "<"]


def _board_states(steps: list[Step], board: Board | None, moves: int) -> list[Any]:
    """The board states the steps show, in order; each step's `moves` becomes the index
    of its state among them. Only these go into the page."""
    if board is None:
        for step in steps:
            step.moves = -1
        return []
    kept: list[Any] = []
    index: dict[int, int] = {}
    for step in steps:
        where = len(board.states) - 1 if step.end is not None and step.moves == moves \
            else step.moves
        if where not in index:
            index[where] = len(kept)
            kept.append(board.states[where])
        step.moves = index[where]
    return kept


def _step_json(step: Step) -> dict[str, Any]:
    fields = {"s": step.seat, "m": step.moves, "k": step.kind, "a": step.asked,
              "r": step.answer, "l": step.said, "dt": step.think, "bk": step.bank,
              "by": step.by, "f": step.faults, "t": [list(t) for t in step.told],
              "e": step.end}
    return {key: value for key, value in fields.items() if value not in (None, [], "")}


def _embedded(data: Any) -> str:
    """JSON safe inside a <script type="application/json"> element: no `<`, so no
    `</script` to end it and no `<!--` to change how it is read. Its text is raw: `&` and
    `>` mean nothing there, and left as they are, a bot's LOG lines of `<&>` cost 5
    bytes a character less (a page of hostile LOG lines fits its size again)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def html(page: Page, before: str = "") -> str:
    """The page as one HTML document; `before`, markup of the caller's own (a results
    site's link back to its index), goes first in the body."""
    title = str(page.data["heading"])
    escaped = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _TEMPLATE.format(
        title=escaped, before=before, style=(_HERE / "viewer.css").read_text() + page.style,
        data=_embedded(page.data), board=page.script,
        script=(_HERE / "viewer.js").read_text())


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{style}</style></head>
<body>{before}
<script type="application/json" id="game-data">{data}</script>
<script>
{board}</script>
<script>
{script}</script>
</body></html>
"""
