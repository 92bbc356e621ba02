"""`referee show LOG`: what a game log holds, line by line, for people or for tools; with
`--board`, the game's table step by step (referee/viewer/terminal.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from referee.ansi import Paint, wants_colour
from referee.errors import ConfigError
from referee.registry.game_logs import load_log
from referee.matches.transcript import transcript
from referee.viewer.terminal import board_lines


@click.command("show")
@click.argument("log_path", metavar="LOG", type=click.Path(exists=True, dir_okay=False,
                                                           path_type=Path))
@click.option("--seat", type=click.IntRange(min=0), default=None,
              help="Only what this seat was sent and sent back (and its moves and fault); "
                   "with --board, the table as this seat saw it.")
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines, one record per line sent or heard (docs/game-log.md).")
@click.option("--board", is_flag=True,
              help="The game's table at each step, in the cards' colours on a terminal "
                   "(none when piped, or with NO_COLOR set).")
@click.option("--step", "steps", type=click.IntRange(min=0), multiple=True,
              help="With --board: only this step, numbered from 0 (repeatable).")
def show_command(log_path: Path, seat: int | None, as_json: bool, board: bool,
                 steps: tuple[int, ...]) -> None:
    """Print a game log: every line each seat was sent (<) and sent back (>), the moves,
    faults and the result, with times. Compressed logs (.gz) too."""
    if board and as_json:
        raise ConfigError("--board and --json do not go together")
    if steps and not board:
        raise ConfigError("--step needs --board")
    records = load_log(log_path)
    if board:
        for line in board_lines(records, seat, Paint(wants_colour(sys.stdout)), steps):
            click.echo(line, color=True)
    elif as_json:
        for record in records:
            if seat is None or record.get("seat", seat) == seat:
                click.echo(json.dumps(record))
    else:
        for line in transcript(records, seat):
            click.echo(line)
