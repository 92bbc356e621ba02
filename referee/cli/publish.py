"""`referee publish DB DIR`: a tournament's results as a static site (docs/viewer.md,
"A results site")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from referee.cli.options import Bounded
from referee import bounds
from tournaments.site.layout import ReplayMode
from tournaments.site.publish import publish
from tournaments.store.results_db import StoreFailure


def public_option(command: Callable[..., None]) -> Callable[..., None]:
    """--public, as `referee publish` and `referee arena publish` take it."""
    return click.option(
        "--public", is_flag=True,
        help="A site for anyone to read, as `referee serve --public` shows a tournament: "
             "no bot's stderr, line or LOG line, no fault detail that may name cards, no "
             "path of this machine's files, and replays as a spectator sees them (or "
             "none), each only once every game of its deal is played.")(command)


def replay_mode(replays: str | None, public: bool) -> ReplayMode:
    """--replays, checked against --public: a public site shows no hand."""
    if replays is None:
        return ReplayMode.SPECTATOR if public else ReplayMode.ALL
    mode = ReplayMode(replays)
    if public and mode in (ReplayMode.ALL, ReplayMode.SEAT):
        raise click.UsageError(f"--public shows no hand: its replays are spectator or none, "
                               f"not {mode.value}")
    return mode


@click.command("publish")
@click.argument("db_path", metavar="DB", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--replays", type=click.Choice([mode.value for mode in ReplayMode]),
              default=None,
              help="Replay pages: all = one per game showing every hand (the "
                   "organiser's view; the default); seat = one per seat of each game, "
                   "holding only what that seat was shown (a bot's page links to its own "
                   "seats); spectator = one per game as a spectator sees it (no hand, "
                   "each decision only as its move; the default with --public); none = "
                   "no replays.")
@public_option
@click.option("--jobs", type=Bounded(bounds.JOBS), default=None,
              help="Processes writing replay pages (default: one per core).")
def publish_command(db_path: Path, folder: Path, replays: str | None, public: bool,
                    jobs: int | None) -> None:
    """Write the results of DB as a static site in DIR: an index with the settings,
    standings and crosstable, a page per bot (its games, faults and report) and a
    replay page per game. No server or network: it opens from file://. Publishing
    again into DIR replaces the site's own files (listed in DIR/.referee-site.json) and
    leaves any other file there."""
    try:
        done = publish(db_path, folder, replay_mode(replays, public), jobs, public=public)
    except StoreFailure as error:
        raise click.ClickException(str(error)) from error  # exit 1: a damaged db
    for missing in done.missing:
        click.echo(f"referee: no replay of {missing}", err=True)
    if done.withheld:
        click.echo(f"referee: no replay of {done.withheld} games (--public): "
                   f"{done.withheld_why}", err=True)
    click.echo(f"{done.folder / 'index.html'}: {done.pages} pages, "
               f"{done.size / 1e6:.1f} MB in {done.seconds:.1f} s", err=True)
