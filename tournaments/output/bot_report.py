"""Reports for one bot and for the faults: what a student (or an organiser) needs to see
why a bot placed where it did, with the log of each game and the bot's stderr in it at
hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from protocols.wire import line_escaped, quote
from referee.errors import ConfigError, Fault
from referee.matches.game import Contest
from referee.players.remote_seats import ELSEWHERE, is_remote
from referee.players.stderr_tail import tail_lines
from tournaments.spec.definition import BotEntry
from tournaments.store.records import GameRecord
from tournaments.output.tables import Cell, Column, Lines, NoScore, ResultTable

_LINE_SHOWN = 120  # characters of an offending line in a table cell
# A remote seat's stderr file: there is none here, and "none" would read as a bot that
# wrote nothing (its faults' stderr says the same: remote_seats.ELSEWHERE).
REMOTE_STDERR = "on the contestant's machine (a remote bot)"
_REMOTE_TAIL = tail_lines(ELSEWHERE)  # what a remote bot's fault holds as its stderr


def remote_bots(entries: Iterable[BotEntry]) -> frozenset[str]:
    """The names of the tournament's remote seats (`remote:NAME=PUBLIC_KEY_FILE`)."""
    return frozenset(entry.name for entry in entries if is_remote(entry.command))


def bot_games(records: Sequence[GameRecord], bot: str, bots: Sequence[str],
              folder: Path, contest: Contest, paths: bool = True,
              numbered: Mapping[_Cause, int] | None = None,
              remote: Collection[str] = ()) -> ResultTable:
    """Every game `bot` played: seat, the others at the table, score, place, its fault
    (kind, detail and the offending line), the game's log and the bot's stderr file in
    that game (without `paths`, for a page to publish, no paths of the organiser's
    machine). In a cooperative game the score is the team's cards left and there is no
    place. ConfigError for a name that is not a bot of the tournament, naming those
    that are. With `numbered` (failure_numbers), a fault is its kind, where, and its
    number in the failures above, rather than all its words again in every game. The
    `remote` bots' stderr is on their contestants' machines, and said so."""
    if bot not in bots:
        raise ConfigError(f"no bot {bot!r} in this tournament (its bots: "
                          f"{', '.join(bots)})")
    rows = tuple(_game_row(record, seat, folder, contest, numbered, remote)
                 for record, seat in seats_of(records, bot))
    table = ResultTable("bot_games", f"Games of {bot} ({len(rows)} seats played)",
                        _game_columns(contest), rows)
    left_out = set() if paths else {"log", "stderr"}
    tail = table.keys.index("fault_stderr")
    if numbered is not None and all(row[tail] is None for row in rows):  # all said above
        left_out.add("fault_stderr")
    return table.without(left_out)


def seats_of(records: Sequence[GameRecord], bot: str) -> list[tuple[GameRecord, int]]:
    """Each seat `bot` played, as (game, seat), in the records' order."""
    return [(record, seat) for record in records
            for seat, name in enumerate(record.bots) if name == bot]


def _game_columns(contest: Contest) -> tuple[Column, ...]:
    # The Game's score is the cards its team left (lower is better): said so, not "score"
    score = "score" if contest is Contest.COMPETITIVE else "cards left"
    return (Column("game", "game"), Column("seat", "seat"), Column("with", "with"),
            Column(score, "score"), Column("place", "place"), Column("fault", "fault"),
            Column("fault stderr", "fault_stderr"), Column("log", "log"),
            Column("stderr", "stderr"))


def replaced_games(replaced: Sequence[tuple[int, GameRecord]], bot: str,
                   folder: Path, contest: Contest, remote: Collection[str] = ()
                   ) -> list[ResultTable]:
    """The games of `bot`'s versions since replaced (a gauntlet's candidate whose files
    changed), kept as history and counted nowhere: its version, then the columns of
    `bot_games`. No table when there are none."""
    if not replaced:
        return []
    rows = tuple((version, *_game_row(record, seat, folder, contest, remote=remote))
                 for version, record in replaced
                 for seat, name in enumerate(record.bots) if name == bot)
    columns = (Column("version", "version"), *_game_columns(contest))
    return [ResultTable("replaced_games", f"Games of {bot}'s replaced versions, not counted "
                        f"({len(rows)} seats played)", columns, rows)]


def all_faults(records: Sequence[GameRecord], folder: Path,
               remote: Collection[str] = (), machines: bool = False) -> ResultTable:
    """Every fault of the tournament, game by game, with the offending line, the log and
    the faulty bot's stderr file in that game (a `remote` bot's: where it is). For
    `machines` (JSON, CSV), the round as a number too: people read it in `where`."""
    rows = tuple((record.fixture_id, fault.seat, fault.bot, fault.kind.value, _where(fault),
                  _step(fault), *((fault.round_no,) if machines else ()), fault.detail,
                  _shown(fault), _tail(fault), _log(record, folder),
                  _stderr(record, fault.seat, folder, remote))
                 for record in records for fault in record.faults)
    columns = (Column("game", "game"), Column("seat", "seat"), Column("bot", "bot"),
               Column("kind", "kind"), *_PLACE, *((_ROUND,) if machines else ()),
               Column("detail", "detail"), Column("line", "line"), _TAIL,
               Column("log", "log"), Column("stderr", "stderr"))
    return ResultTable("faults", f"Faults ({len(rows)})", columns, rows)


def fault_list(records: Sequence[GameRecord]) -> ResultTable:
    """Every fault, bot by bot, for a page to publish: no log paths of the organiser's
    machine, only the game, kind, detail and the offending line."""
    faults = sorted(((fault.bot, record.fixture_id, fault) for record in records
                     for fault in record.faults), key=lambda entry: entry[:2])
    rows = tuple((bot, game, fault.seat, fault.kind.value, _where(fault), _step(fault),
                  fault.detail, _shown(fault), _tail(fault))
                 for bot, game, fault in faults)
    columns = (Column("bot", "bot"), Column("game", "game"), Column("seat", "seat"),
               Column("kind", "kind"), *_PLACE, Column("detail", "detail"),
               Column("line", "line"), _TAIL)
    return ResultTable("faults", f"Faults by bot ({len(rows)})", columns, rows)


def fault_summary(records: Sequence[GameRecord], only: str | None = None) -> ResultTable:
    """The faults (of the bot `only`, if given), one row per bot and distinct failure (its
    kind and the last line of its stderr, else its detail): in how many games, where they
    cluster, and the first one's detail and stderr. 32 crashes in round 3 with one
    KeyError are one row."""
    rows = tuple((bot, kind, len(faults), _clusters(faults), faults[0].detail,
                  _tail(faults[0]))
                 for (bot, kind, _), faults in _fault_groups(records, only))
    columns = (Column("bot", "bot"), Column("kind", "kind"), Column("games", "games"),
               Column("where", "where"), Column("detail (first)", "detail"),
               Column("stderr (last line)", "stderr_tail"))
    causes = "1 cause" if len(rows) == 1 else f"{len(rows)} causes"
    return ResultTable("fault_summary", f"Faults by bot and cause ({causes})",
                       columns, rows)


def failure_numbers(records: Sequence[GameRecord], bot: str) -> dict[_Cause, int]:
    """Each distinct failure of `bot` (_cause), numbered as fault_summary's rows are."""
    return {cause: number for number, (cause, _) in
            enumerate(_fault_groups(records, bot), start=1)}


_Cause = tuple[str, str, str]  # bot, kind, the last line of its stderr (else its detail)


def _cause(fault: Fault) -> _Cause:
    # A remote bot's "stderr" only says where its stderr is: every fault would be one cause
    own = fault.stderr and fault.stderr != _REMOTE_TAIL
    return fault.bot, fault.kind.value, fault.stderr[-1] if own else fault.detail


def _fault_groups(records: Sequence[GameRecord], only: str | None
                  ) -> list[tuple[_Cause, list[Fault]]]:
    groups: dict[_Cause, list[Fault]] = {}
    for record in records:
        for fault in record.faults:
            if only is None or fault.bot == only:
                groups.setdefault(_cause(fault), []).append(fault)
    return sorted(groups.items(), key=_most_first)


def _most_first(item: tuple[tuple[str, str, str], list[Fault]]) -> tuple[str, int, str]:
    (bot, kind, _), faults = item
    return bot, -len(faults), kind


def _clusters(faults: Sequence[Fault], shown: int = 3) -> str:
    """Where the faults happened, the most frequent places first: a round's faults as one
    place, its words where they share them ("round 3, bidding (31)"), else the round
    ("round 4 (6)", at different tricks); "n/a" for records made before places were kept.
    The round is the fault's own field (round_no): in a game without rounds the words are
    the place ("turn 14")."""
    places: dict[int | str, list[str]] = {}  # by round, or by words where none is known
    for fault in faults:
        said = fault.where or "n/a"
        places.setdefault(said if fault.round_no is None else fault.round_no, []).append(said)
    counted: Counter[str] = Counter()
    for place, all_said in places.items():  # words shared, else the round
        counted[all_said[0] if len(set(all_said)) == 1 else f"round {place}"] += len(all_said)
    parts = [f"{where} ({count})" for where, count in counted.most_common(shown)]
    if len(counted) > shown:
        parts.append(f"{len(counted) - shown} more")
    return "; ".join(parts)


def _game_row(record: GameRecord, seat: int, folder: Path, contest: Contest,
              numbered: Mapping[_Cause, int] | None = None,
              remote: Collection[str] = ()) -> tuple[Cell, ...]:
    others = ", ".join(f"{s}:{name}" for s, name in enumerate(record.bots) if s != seat)
    fault = next((f for f in record.faults if f.seat == seat), None)
    score: Cell = record.scores[seat] if fault is None else NoScore(fault.kind.value)
    # A cooperative game's seats share its outcome: each "place" is 1, a faulted one too
    place = record.places[seat] if contest is Contest.COMPETITIVE else None
    number = None if fault is None or numbered is None else numbered.get(_cause(fault))
    words: Cell = _fault_words(fault)
    tail = None if fault is None else _tail(fault)
    if fault is not None and number is not None:  # said in full in the failures above
        line = f" (line: {_shown(fault)})" if fault.line is not None else ""
        words = f"{fault.kind.value} ({fault.place or 'n/a'}): failure {number}{line}"
        tail = None
    return (record.fixture_id, seat, others or "alone", score, place, words, tail,
            _log(record, folder), _stderr(record, seat, folder, remote))


def _fault_words(fault: Fault | None) -> str:
    if fault is None:
        return "none"
    line = f" (line: {_shown(fault)})" if fault.line is not None else ""
    return f"{fault.summary()}{line}"


# Where in the game: "round 3, trick 2" or "turn 14", and the step `referee view LOG`
# shows it at (#step=N); n/a in records made before they were kept.
_PLACE = (Column("where", "where"), Column("step", "step"))
_ROUND = Column("round", "round")  # Rage's round; null in a game of turns, at the end, or
# in a record made before it was kept
_TAIL = Column("stderr (last line)", "stderr_tail")


def _where(fault: Fault) -> str | None:
    return fault.where


def _step(fault: Fault) -> int | None:
    return fault.step


def _tail(fault: Fault) -> Lines:
    """The last lines of the bot's stderr in that game (already escaped)."""
    return Lines(fault.stderr)


def _shown(fault: Fault) -> str | None:
    """The fault's line quoted; a line whose bad bytes are escaped already, not twice."""
    if fault.line is None:
        return None
    return quote(fault.line, _LINE_SHOWN, escaped=line_escaped(fault.detail))


def _log(record: GameRecord, folder: Path) -> str | None:
    """The game log's path as the user can open it: beside the db."""
    return None if record.log_path is None else str(folder / record.log_path)


def _stderr(record: GameRecord, seat: int, folder: Path,
            remote: Collection[str] = ()) -> str | None:
    """The seat's stderr file in the game, beside the db; "none" if the bot wrote nothing,
    None (n/a) for a game recorded before these files were kept; REMOTE_STDERR for a
    `remote` bot's."""
    if record.bots[seat] in remote:
        return REMOTE_STDERR
    if record.stderr_paths is None:
        return None
    path = record.stderr_paths[seat]
    return "none" if path is None else str(folder / path)
