"""Reports for one bot and for the faults: what a student (or an organiser) needs to see
why a bot placed where it did, with the log of each game and the bot's stderr in it at
hand."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from protocols.wire import line_escaped, quote
from referee.errors import ConfigError, Fault
from tournaments.store.records import GameRecord
from tournaments.output.tables import Cell, Column, ResultTable

_LINE_SHOWN = 120  # characters of an offending line in a table cell


def bot_games(records: Sequence[GameRecord], bot: str, bots: Sequence[str],
              folder: Path, paths: bool = True) -> ResultTable:
    """Every game `bot` played: seat, the others at the table, score, place, its fault
    (kind, detail and the offending line), the game's log and the bot's stderr file in
    that game (without `paths`, for a page to publish, no paths of the organiser's
    machine). ConfigError for a name that is not a bot of the tournament, naming those
    that are."""
    if bot not in bots:
        raise ConfigError(f"no bot {bot!r} in this tournament (its bots: "
                          f"{', '.join(bots)})")
    rows: list[tuple[Cell, ...]] = []
    for record in records:
        for seat, name in enumerate(record.bots):
            if name == bot:
                rows.append(_game_row(record, seat, folder))
    columns: tuple[Column, ...] = _GAME_COLUMNS
    if not paths:
        columns, rows = columns[:-2], [row[:-2] for row in rows]
    return ResultTable("bot_games", f"Games of {bot} ({len(rows)} seats played)", columns,
                       tuple(rows))


_GAME_COLUMNS = (Column("game", "game"), Column("seat", "seat"), Column("with", "with"),
                 Column("score", "score"), Column("place", "place"),
                 Column("fault", "fault"), Column("log", "log"), Column("stderr", "stderr"))


def replaced_games(replaced: Sequence[tuple[int, GameRecord]], bot: str,
                   folder: Path) -> list[ResultTable]:
    """The games of `bot`'s versions since replaced (a gauntlet's candidate whose files
    changed), kept as history and counted nowhere: its version, then the columns of
    `bot_games`. No table when there are none."""
    if not replaced:
        return []
    rows = tuple((version, *_game_row(record, seat, folder))
                 for version, record in replaced
                 for seat, name in enumerate(record.bots) if name == bot)
    columns = (Column("version", "version"), *_GAME_COLUMNS)
    return [ResultTable("replaced_games", f"Games of {bot}'s replaced versions, not counted "
                        f"({len(rows)} seats played)", columns, rows)]


def all_faults(records: Sequence[GameRecord], folder: Path) -> ResultTable:
    """Every fault of the tournament, game by game, with the offending line, the log and
    the faulty bot's stderr file in that game."""
    rows = tuple((record.fixture_id, fault.seat, fault.bot, fault.kind.value, fault.detail,
                  _shown(fault), _log(record, folder), _stderr(record, fault.seat, folder))
                 for record in records for fault in record.faults)
    columns = (Column("game", "game"), Column("seat", "seat"), Column("bot", "bot"),
               Column("kind", "kind"), Column("detail", "detail"), Column("line", "line"),
               Column("log", "log"), Column("stderr", "stderr"))
    return ResultTable("faults", f"Faults ({len(rows)})", columns, rows)


def fault_list(records: Sequence[GameRecord]) -> ResultTable:
    """Every fault, bot by bot, for a page to publish: no log paths of the organiser's
    machine, only the game, kind, detail and the offending line."""
    faults = sorted(((fault.bot, record.fixture_id, fault) for record in records
                     for fault in record.faults), key=lambda entry: entry[:2])
    rows = tuple((bot, game, fault.seat, fault.kind.value, fault.detail, _shown(fault))
                 for bot, game, fault in faults)
    columns = (Column("bot", "bot"), Column("game", "game"), Column("seat", "seat"),
               Column("kind", "kind"), Column("detail", "detail"), Column("line", "line"))
    return ResultTable("faults", f"Faults by bot ({len(rows)})", columns, rows)


def _game_row(record: GameRecord, seat: int, folder: Path) -> tuple[Cell, ...]:
    others = ", ".join(f"{s}:{name}" for s, name in enumerate(record.bots) if s != seat)
    fault = next((f for f in record.faults if f.seat == seat), None)
    return (record.fixture_id, seat, others or "alone", record.scores[seat],
            record.places[seat], _fault_words(fault), _log(record, folder),
            _stderr(record, seat, folder))


def _fault_words(fault: Fault | None) -> str:
    if fault is None:
        return "none"
    line = f" (line: {_shown(fault)})" if fault.line is not None else ""
    return f"{fault.kind.value}: {fault.detail}{line}"


def _shown(fault: Fault) -> str | None:
    """The fault's line quoted; a line whose bad bytes are escaped already, not twice."""
    if fault.line is None:
        return None
    return quote(fault.line, _LINE_SHOWN, escaped=line_escaped(fault.detail))


def _log(record: GameRecord, folder: Path) -> str | None:
    """The game log's path as the user can open it: beside the db."""
    return None if record.log_path is None else str(folder / record.log_path)


def _stderr(record: GameRecord, seat: int, folder: Path) -> str | None:
    """The seat's stderr file in the game, beside the db; "none" if the bot wrote nothing,
    None (n/a) for a game recorded before these files were kept."""
    if record.stderr_paths is None:
        return None
    path = record.stderr_paths[seat]
    return "none" if path is None else str(folder / path)
