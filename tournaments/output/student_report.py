"""One student's page: `referee results DB --bot NAME` (the teacher's, with the files of
the organiser's machine) and the pages `--reports DIR` writes to hand back (without them).

A summary first (games, how many were clean, the mean score over those, the places or
the games won, the faults by kind), then each distinct failure with where it clusters and
the first lines of its stderr, then the games. A page to hand back names the other
students only as opponents, and shows no path outside the student's own folder: its
stderr lines have every other absolute path cut to its last part (`…/site.py`), and its
own folder's paths start at the folder (`alice/bot.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path

from referee.matches.game import Contest
from tournaments.output.bot_report import (
    bot_games, failure_numbers, fault_summary, seats_of,
)
from tournaments.output.tables import Cell, Column, Lines, ResultTable
from tournaments.store.records import GameRecord

# An absolute path in a line of text: a '/' that ends no word (not rage/d01/t01/r0) nor
# opens a closing tag (a bot's `</script>`, to be shown as it was sent).
_ABSOLUTE = re.compile(r"(?<![\w.~<-])/[^\s'\"<>|:,()]+")
_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def student_tables(records: Sequence[GameRecord], bot: str, bots: Sequence[str],
                   contest: Contest, folder: Path, own_folder: Path | None,
                   paths: bool, remote: Collection[str] = ()) -> list[ResultTable]:
    """The student's summary, failures and games; with `paths`, the game logs' and stderr
    files' paths too (the teacher's page; a `remote` bot's stderr is on its own
    machine), else none and stderr lines cut as the module says (a page to hand back)."""
    # a failure's words once, in the failures' table; each game gives its number
    games = bot_games(records, bot, bots, folder, contest, paths=paths,  # checks the name
                      numbered=failure_numbers(records, bot), remote=remote)
    causes = fault_summary(records, only=bot)
    tables = [summary_table(bot, seats_of(records, bot), contest)]
    tables += [_numbered(causes), failure_stderr(causes)] if causes.rows else []
    tables.append(games)
    if not paths:
        cut = path_cutter(own_folder)
        tables = [_cut_lines(table, cut) for table in tables]
    return tables


def summary_table(bot: str, mine: Sequence[tuple[GameRecord, int]],
                  contest: Contest) -> ResultTable:
    """One row: games, clean games, the mean score over the clean ones, where it placed
    (Rage) or how many were won (The Game), and the faults by kind."""
    faults = Counter(fault.kind.value for record, seat in mine
                     for fault in record.faults if fault.seat == seat)
    clean = [record.scores[seat] for record, seat in mine
             if not any(fault.seat == seat for fault in record.faults)]
    mean: Cell = round(sum(clean) / len(clean), 2) if clean else None
    if contest is Contest.COMPETITIVE:
        places = Counter(record.places[seat] for record, seat in mine)
        outcome = ", ".join(f"{_ORDINAL.get(place, f'{place}th')} {count}"
                            for place, count in sorted(places.items())) or "none"
    else:
        won = sum(1 for record, _ in mine if record.won)
        outcome = f"won {won} of {len(mine)}"
    fault_words = ", ".join(f"{kind} {count}" for kind, count in faults.most_common()) \
        or "none"
    columns = (Column("games", "games"), Column("clean games", "clean_games"),
               Column("mean score (clean games)" if contest is Contest.COMPETITIVE
                      else "mean cards left (clean games)", "mean_score", 2),
               Column("places" if contest is Contest.COMPETITIVE else "won", "outcome"),
               Column("faults", "faults"))
    return ResultTable("summary", f"{bot}: summary", columns,
                       ((len(mine), len(clean), mean, outcome, fault_words),))


def _numbered(causes: ResultTable) -> ResultTable:
    """The failures' table with each row's number, by which the games name it."""
    rows = tuple((number, *row) for number, row in enumerate(causes.rows, start=1))
    return replace(causes, columns=(Column("failure", "failure"), *causes.columns),
                   rows=rows)


def failure_stderr(causes: ResultTable) -> ResultTable:
    """The stderr lines of each distinct failure (its first occurrence), a row a line:
    the whole traceback, where the table above shows its last line."""
    tail = causes.keys.index("stderr_tail")
    rows: list[tuple[Cell, ...]] = []
    for number, row in enumerate(causes.rows, start=1):
        lines = row[tail]
        if isinstance(lines, Lines):
            rows += [(number, line) for line in lines.lines]
    columns = (Column("failure", "failure"), Column("stderr", "stderr"))
    return ResultTable("failure_stderr", "The stderr of each failure above, in order "
                       "(its first time; at most its last 20 lines)", columns,
                       tuple(rows))


def path_cutter(own_folder: Path | None) -> Callable[[str], str]:
    """A line's absolute paths as a page to hand back shows them: those in the student's
    folder from the folder on, every other one cut to its last part."""
    own = None if own_folder is None else str(own_folder.resolve())

    def cut(text: str) -> str:
        def shown(match: re.Match[str]) -> str:
            path = match.group(0)
            if own is not None and (path == own or path.startswith(own + "/")):
                return Path(own).name + path[len(own):]
            return "…/" + path.rstrip("/").rsplit("/", 1)[-1]
        return _ABSOLUTE.sub(shown, text)
    return cut


def _cut_lines(table: ResultTable, cut: Callable[[str], str]) -> ResultTable:
    rows = tuple(tuple(_cut_cell(cell, cut) for cell in row) for row in table.rows)
    return replace(table, rows=rows)


def _cut_cell(cell: Cell, cut: Callable[[str], str]) -> Cell:
    if isinstance(cell, Lines):
        return Lines(tuple(cut(line) for line in cell.lines))
    if isinstance(cell, str):
        return cut(cell)
    return cell
