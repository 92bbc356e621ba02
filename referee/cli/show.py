"""`referee show LOG`: what a game log holds, line by line, for people or for tools."""

from __future__ import annotations

import json
from pathlib import Path

import click

from referee.registry.game_logs import load_log
from referee.matches.transcript import transcript


@click.command("show")
@click.argument("log_path", metavar="LOG", type=click.Path(exists=True, dir_okay=False,
                                                           path_type=Path))
@click.option("--seat", type=click.IntRange(min=0), default=None,
              help="Only what this seat was sent and sent back (and its moves and fault).")
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines, one record per line sent or heard (docs/game-log.md).")
def show_command(log_path: Path, seat: int | None, as_json: bool) -> None:
    """Print a game log: every line each seat was sent (<) and sent back (>), the moves,
    faults and the result, with times. Compressed logs (.gz) too."""
    records = load_log(log_path)
    if as_json:
        for record in records:
            if seat is None or record.get("seat", seat) == seat:
                click.echo(json.dumps(record))
    else:
        for line in transcript(records, seat):
            click.echo(line)
