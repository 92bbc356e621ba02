"""Issue 30: a remote seat's stderr stays on the contestant's machine, and the result
tables say so where they show a seat's stderr file. They said "none", which reads as a
bot that wrote nothing. Its faults' stderr already said where it is; those faults are
told apart by their details, as a silent local bot's are (its stderr would make every
remote fault one cause)."""

from __future__ import annotations

from pathlib import Path

from protocols.faults import FaultKind
from referee.errors import Fault
from referee.matches.game import Contest
from referee.players.remote_seats import ELSEWHERE
from referee.players.stderr_tail import tail_lines
from tournaments.output.bot_report import (
    REMOTE_STDERR, all_faults, bot_games, fault_summary, remote_bots,
)
from tournaments.output.student_report import student_tables
from tournaments.spec.definition import BotEntry
from tournaments.store.records import GameRecord

BOTS = ("alice", "bob", "carol")
TAIL = tail_lines(ELSEWHERE)


def _records() -> list[GameRecord]:
    """Alice (remote) misses her first start-up, is not waited for in the next game,
    then plays a clean one; bob (local) wrote nothing in any."""
    missed = Fault(0, "alice", FaultKind.STARTUP, "no HELLO within 10 s; no `referee "
                   "connect` with its key is connected", stderr=TAIL)
    at_once = Fault(0, "alice", FaultKind.STARTUP, "no HELLO: not waited for, as its "
                    "relay ...", stderr=TAIL)
    none = (None, None, None)
    return [GameRecord(f"rage/d01/t01/r{game}", "rage", 1, BOTS, (0, 5, 9), (3, 2, 1),
                       faults, stderr_paths=none)
            for game, faults in enumerate([(missed,), (at_once,), ()])]


def test_remote_bots_are_those_seated_by_a_public_key() -> None:
    entries = [BotEntry("alice", "remote:alice=keys/alice.pub"),
               BotEntry("bob", "python bob.py"), BotEntry("carol", "stdio:./carol")]
    assert remote_bots(entries) == {"alice"}


def test_a_remote_seats_stderr_cell_says_where_its_stderr_is() -> None:
    records = _records()
    games = bot_games(records, "alice", BOTS, Path("/db"), Contest.COMPETITIVE,
                      remote={"alice"})
    stderr = games.keys.index("stderr")
    assert [row[stderr] for row in games.rows] == [REMOTE_STDERR] * 3
    local = bot_games(records, "bob", BOTS, Path("/db"), Contest.COMPETITIVE,
                      remote={"alice"})
    assert [row[stderr] for row in local.rows] == ["none"] * 3  # it wrote nothing
    faults = all_faults(records, Path("/db"), remote={"alice"})
    column = faults.keys.index("stderr")
    assert [row[column] for row in faults.rows] == [REMOTE_STDERR] * 2
    # the teacher's page (`referee results DB --bot alice`) shows the same cell
    teacher = student_tables(records, "alice", BOTS, Contest.COMPETITIVE, Path("/db"),
                             None, paths=True, remote={"alice"})[-1]
    assert {row[teacher.keys.index("stderr")] for row in teacher.rows} == {REMOTE_STDERR}


def test_a_remote_seats_faults_are_told_apart_by_their_details() -> None:
    """Both faults hold the same 'stderr' line (where it is): one cause per detail."""
    causes = fault_summary(_records(), only="alice")
    detail = causes.keys.index("detail")
    assert len(causes.rows) == 2, causes.rows
    assert {str(row[detail])[:30] for row in causes.rows} == {
        "no HELLO within 10 s; no `refe", "no HELLO: not waited for, as i"}
