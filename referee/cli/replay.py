"""`referee replay`: re-verify a game log."""

from __future__ import annotations

from pathlib import Path

import click

from referee.cli.errors import Stopped
from referee.cli.exit_codes import CUT_SHORT
from referee.logs.replay import CutShort, ReplayMismatch, replay
from referee.registry import games


@click.command("replay")
@click.argument("log_path", metavar="LOG", type=click.Path(exists=True, dir_okay=False,
                                                           path_type=Path))
def replay_command(log_path: Path) -> None:
    """Re-verify a game log: replay its seed and moves and check the logged result."""
    try:
        click.echo(replay(log_path, games.lookup))
    except ReplayMismatch as mismatch:
        raise click.ClickException(str(mismatch)) from None
    except CutShort as short:
        raise Stopped(str(short), CUT_SHORT) from None
