"""The results as a public page shows them (`referee serve --public`, `referee publish
--public`): for anyone, contestants included, while the deals of ended games may still be
played in their other rotations.

Left out: the bots' stderr (a bot's own words, which may hold its cards), where the bots'
files (or a file of the settings) are on the organiser's machine, each fault's line (the
bot's reply: a card of its hand, or its own words), and the detail of an illegal move, a
protocol fault or a failed start, which names the seat's cards ("must follow yellow: it
holds yellow cards ... (legal: y4 y7 y12)"), quotes the reply or names the bot's files.
A fault keeps its bot, game, kind and where it came; the other kinds keep their detail,
the referee's own words on the process (an exit code, a time limit, a flood's size). The
records are made public before any table is built, so that every table (a bot's games,
the failures by cause) is built from what may be shown.

And no game is shown, in progress or ended, before every game of its deal is played:
each deal is dealt alike at every table and in every seat rotation (duplicate deals), so
the cards played in one game are the hands of the others (games_shown). A gauntlet's
never are: it deals its deals again to every candidate or version that joins later.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from protocols.faults import FaultKind
from referee.errors import Fault
from tournaments.output.bots_table import for_the_public
from tournaments.output.metadata import Metadata
from tournaments.output.tables import Lines, ResultTable
from tournaments.schedule.fixtures import fixture_deals
from tournaments.spec.definition import TournamentSpec
from tournaments.store.records import GameRecord

# The detail of these kinds may name cards, quote the bot or name its files: shown as
# these words.
_WITHHELD = {
    FaultKind.ILLEGAL: "an illegal move (which cards: not on a public page)",
    FaultKind.PROTOCOL: "a reply against the protocol (what it said: not on a public page)",
    FaultKind.STARTUP: "did not start, or said no valid HELLO (why: not on a public page)",
}
_GAUNTLET = ("withheld: a gauntlet deals its deals again to every candidate or version "
             "that joins later")


@dataclass(frozen=True)
class GamesShown:
    """Which games of a tournament a public page shows now."""

    reasons: dict[str, str]  # by fixture id, every game scheduled: why it is withheld, or ""
    gauntlet: bool = False

    @property
    def why_withheld(self) -> str:
        """Why games are withheld, in general words (a site's one line for them all)."""
        return _GAUNTLET.removeprefix("withheld: ") if self.gauntlet else \
            "their deals are not played in full (every game of a deal is dealt the same cards)"

    def why_not(self, fixture_id: str) -> str | None:
        """None where the game is shown; else why not (a game the schedule does not hold,
        as a db of older fixture ids stores them, is not shown either)."""
        said = self.reasons.get(fixture_id)
        return "no such game in this tournament" if said is None else said or None


def games_shown(spec: TournamentSpec, done: Collection[str]) -> GamesShown:
    """The games of `spec` a public page shows (`done`: the fixture ids stored): those of
    the deals played in full; none of a gauntlet's, whose class can change."""
    deals: dict[int, list[str]] = {}
    for fixture_id, deal in fixture_deals(spec).items():
        deals.setdefault(deal, []).append(fixture_id)
    reasons: dict[str, str] = {}
    for deal, games in deals.items():
        played = sum(game in done for game in games)
        why = "" if played == len(games) else (
            f"withheld until every game of deal {deal} is played ({played} of {len(games)} "
            "so far): each is dealt the same cards")
        reasons.update((game, _GAUNTLET if spec.references else why) for game in games)
    return GamesShown(reasons, bool(spec.references))


def public_records(records: Sequence[GameRecord]) -> list[GameRecord]:
    """The records with their faults as a public page may show them."""
    return [replace(record, faults=tuple(public_fault(f) for f in record.faults))
            if record.faults else record for record in records]


def public_fault(fault: Fault) -> Fault:
    """The fault without its line, its stderr, or a detail that may name cards."""
    return replace(fault, detail=_WITHHELD.get(fault.kind, fault.detail), line=None,
                   stderr=())


def public_metadata(metadata: Metadata) -> Metadata:
    """The settings without a path of the organiser's machine: an option that names a
    file (The Game's --commands) by the file's name alone."""
    return replace(metadata, options={key: _file_name(value)
                                      for key, value in metadata.options.items()})


def _file_name(value: object) -> object:
    return PurePath(value).name if isinstance(value, str) and "/" in value else value


def public_tables(tables: Sequence[ResultTable]) -> list[ResultTable]:
    """Tables built from public_records, as a public page shows them: no column of the
    bots' stderr or of the faults' lines (empty now), no path of the bots' files."""
    return [for_the_public(without_stderr(table)).without({"line"}) for table in tables]


def without_stderr(table: ResultTable) -> ResultTable:
    """`table` without its columns of the bots' stderr lines (Lines cells)."""
    return table.without({key for index, key in enumerate(table.keys)
                          if any(isinstance(row[index], Lines) for row in table.rows)})
