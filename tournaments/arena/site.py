"""`referee arena publish`: the arena as a static site. Its front page is the
leaderboard and every contestant's history; each played round is published by
`referee publish` (tournaments/site/) in rounds/round-N/, with its tables, a page per
version and the replays, and linked from the front page. A round's games never change
once it is played, so a round already published is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from referee.errors import ConfigError
from tournaments.arena.leaderboard import standings, tally
from tournaments.arena.standings_tables import history_table, leaderboard_table
from referee import words
from tournaments.arena.store import PLAYED, ArenaDb, round_db, round_title
from tournaments.output.html_page import document, section
from tournaments.site.layout import INDEX, Manifest, ReplayMode
from tournaments.site.publish import publish


@dataclass
class ArenaSite:
    folder: Path
    rounds_published: int = 0
    rounds_kept: int = 0


def publish_arena(db: ArenaDb, folder: Path, mode: ReplayMode,
                  workers: int | None = None, public: bool = False) -> ArenaSite:
    """Write the arena's site into `folder`; ConfigError where it cannot be written. A
    round published before is kept if it was published alike (replays, public or not):
    else publishing with --public would leave the organiser's replays beside it."""
    site = ArenaSite(folder)
    played = [r.number for r in db.rounds() if r.status == PLAYED]
    for number in played:
        target = folder / "rounds" / f"round-{number:06d}"
        earlier = Manifest.read(target)
        if (target / INDEX).exists() and earlier is not None and \
                earlier.written_as(mode, public):
            site.rounds_kept += 1
            continue
        publish(round_db(db.folder, number), target, mode, workers,
                up=(f"../../{INDEX}", "the arena's leaderboard"),
                title=round_title(db.folder, number),  # its round db's own may be older
                public=public)
        site.rounds_published += 1
    counted = tally(db.games())
    board = standings(db.versions(), counted)
    title = f"{db.folder.resolve().name} arena"
    body = [f"<h1>{escape(title)}</h1>",
            f"<p>{escape(db.settings.game)}, tables of {db.settings.table_size}; "
            f"{words.counted(counted.total, 'game')} in "
            f"{words.counted(len(played), 'round')}.</p>",
            section(leaderboard_table(board)), section(history_table(board, public)),
            _round_links(played)]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / INDEX).write_text(document(title, body))
    except OSError as error:
        raise ConfigError(f"cannot write the site in {folder}: "
                          f"{error.strerror or error}") from None
    return site


def _round_links(played: list[int]) -> str:
    items = "".join(f'<li><a href="rounds/round-{n:06d}/index.html">arena round {n}</a>'
                    "</li>" for n in reversed(played))
    return ('<section id="rounds"><h2>Arena rounds, newest first</h2><p>Each arena round '
            "is a tournament of the tables matchmaking chose; the rounds inside a game (a "
            f"Rage round: a deal of tricks) are in its replay.</p><ul>{items}</ul>"
            "</section>")
