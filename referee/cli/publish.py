"""`referee publish DB DIR`: a tournament's results as a static site (docs/viewer.md,
"A results site")."""

from __future__ import annotations

from pathlib import Path

import click

from referee.cli.options import Bounded
from referee import bounds
from tournaments.site.layout import ReplayMode
from tournaments.site.publish import publish
from tournaments.store.results_db import StoreFailure


@click.command("publish")
@click.argument("db_path", metavar="DB", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--replays", type=click.Choice([mode.value for mode in ReplayMode]),
              default=ReplayMode.ALL.value, show_default=True,
              help="Replay pages: all = one per game showing every hand (the "
                   "organiser's view); seat = one per seat of each game, holding only "
                   "what that seat was shown (a bot's page links to its own seats); "
                   "none = no replays.")
@click.option("--jobs", type=Bounded(bounds.JOBS), default=None,
              help="Processes writing replay pages (default: one per core).")
def publish_command(db_path: Path, folder: Path, replays: str, jobs: int | None) -> None:
    """Write the results of DB as a static site in DIR: an index with the settings,
    standings and crosstable, a page per bot (its games, faults and report) and a
    replay page per game. No server or network: it opens from file://. Publishing
    again into DIR replaces the site's own files (listed in DIR/.referee-site.json) and
    leaves any other file there."""
    try:
        done = publish(db_path, folder, ReplayMode(replays), jobs)
    except StoreFailure as error:
        raise click.ClickException(str(error)) from error  # exit 1: a damaged db
    for missing in done.missing:
        click.echo(f"referee: no replay of {missing}", err=True)
    click.echo(f"{done.folder / 'index.html'}: {done.pages} pages, "
               f"{done.size / 1e6:.1f} MB in {done.seconds:.1f} s", err=True)
