"""Whether a game record read back from a results db is one the tables can be built from.

A tampered or damaged row must end as one clear error, not as a crash deep in the
statistics, so every field the report reads is checked for its type and shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tournaments.spec.definition import TournamentSpec
from tournaments.store.records import GameRecord


def record_problem(record: GameRecord, fixture_id: object, spec: TournamentSpec,
                   index: Mapping[str, int]) -> str | None:
    """What is wrong with a stored record of `spec` in the row of `fixture_id`, or None."""
    if record.fixture_id != fixture_id or fixture_id not in index:
        return f"fixture id {record.fixture_id!r} is not a game of this tournament"
    if record.game != spec.game.name:
        return f"game {record.game!r} is not {spec.game.name!r}"
    return (_seats_problem(record, spec) or _optional_problem(record)
            or _provenance_problem(record, spec))


def _seats_problem(record: GameRecord, spec: TournamentSpec) -> str | None:
    seats = len(record.bots)
    if seats < 1 or not all(bot in spec.bot_names for bot in record.bots):
        return f"bots {record.bots!r} are not bots of this tournament"
    if type(record.seed) is not int:
        return f"seed {record.seed!r} is not an integer"
    for name in ("scores", "places"):
        if not _ints(getattr(record, name), seats):
            return f"{name} {getattr(record, name)!r} are not {seats} integers"
    for fault in record.faults:
        if not (type(fault.seat) is int and 0 <= fault.seat < seats
                and isinstance(fault.bot, str) and isinstance(fault.detail, str)
                and isinstance(fault.line, (str, type(None)))
                and isinstance(fault.where, (str, type(None)))
                and (fault.step is None or type(fault.step) is int)
                and (fault.round_no is None or type(fault.round_no) is int)
                and all(isinstance(line, str) for line in fault.stderr)):
            return f"fault {fault!r} is malformed"
    return None


def _optional_problem(record: GameRecord) -> str | None:
    checks: dict[str, tuple[Any, bool]] = {
        "won": (record.won, isinstance(record.won, (bool, type(None)))),
        "cards_left": (record.cards_left, record.cards_left is None
                       or type(record.cards_left) is int),
        "end_reason": (record.end_reason, isinstance(record.end_reason, (str, type(None)))),
        "cards_played": (record.cards_played, record.cards_played is None
                         or _ints(record.cards_played, len(record.bots))),
        "hints_given": (record.hints_given, record.hints_given is None
                        or _ints(record.hints_given, len(record.bots))),
        "log_path": (record.log_path, isinstance(record.log_path, (str, type(None)))),
        "stderr_paths": (record.stderr_paths, record.stderr_paths is None
                         or _paths(record.stderr_paths, len(record.bots))),
    }
    for name, (value, good) in checks.items():
        if not good:
            return f"{name} {value!r} has the wrong type"
    return None


def _ints(values: object, count: int) -> bool:
    return (isinstance(values, tuple) and len(values) == count
            and all(type(value) is int for value in values))


def _provenance_problem(record: GameRecord, spec: TournamentSpec) -> str | None:
    """The provenance fields, absent (None) in records made before they were kept."""
    seats, hashes, hellos = record.seats, record.hashes, record.hellos
    names = spec.bot_names
    # A gauntlet's class may have changed since the game: its seats index the bots as
    # they were then (docs/gauntlet.md), and only their shape can be checked.
    if seats is not None and not (
            _ints(seats, len(record.bots)) and all(bot >= 0 for bot in seats)
            and (bool(spec.references) or (all(bot < len(names) for bot in seats)
                 and tuple(names[bot] for bot in seats) == record.bots))):
        return f"seats {seats!r} are not the indices of bots {record.bots!r}"
    if hashes is not None and not (
            isinstance(hashes, tuple) and len(hashes) == len(record.bots)
            and all(isinstance(h.executable, str) and isinstance(h.script, (str, type(None)))
                    for h in hashes)):
        return f"hashes {hashes!r} are malformed"
    if hellos is not None and not (
            isinstance(hellos, tuple) and len(hellos) == len(record.bots)
            and all(hello is None or all(isinstance(word, str) for word in hello)
                    for hello in hellos)):
        return f"hellos {hellos!r} are malformed"
    if not isinstance(record.referee_version, (str, type(None))):
        return f"referee_version {record.referee_version!r} has the wrong type"
    return None


def _paths(values: object, count: int) -> bool:
    return (isinstance(values, tuple) and len(values) == count
            and all(isinstance(value, (str, type(None))) for value in values))
