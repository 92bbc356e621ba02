"""A Rage fault's round is a field of its record, set by the match that knows it
(RageMatch._where), not read back from its words: the score sheet's "(fallback)" rows and
the results db keep it as a number. A record stored before the field reads its round from
its `where` words, as they were written then ("round 3, trick 8")."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from protocols.faults import FaultKind
from referee.errors import BotCrashed, Fault, Where
from referee.games.rage.definition import RAGE
from referee.games.rage.rules import RageConfig
from referee.matches.logged_game import LogOptions, play_game
from referee.players.lineup import BotSpec, LaunchSettings
from referee.processes.bot_command import parse_bot_command
from referee.processes.live_bots import live_processes
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.settings import TimeLimits
from tests.cli_support import run_main
from tests.tournaments.fakes import TEST_SECRET, FakeContext, fake_play, make_spec
from tournaments.output.bot_report import _clusters
from tournaments.schedule.fixtures import fixtures_for
from tournaments.store.records import fault_from_json
from tournaments.store.results_db import ResultStore

BOTS = Path(__file__).resolve().parent / "bots"
ROOT = Path(__file__).resolve().parents[2]
LAUNCH = LaunchSettings(TimeLimits(startup=5.0, move=1.0, bank=0.0),
                        sandbox=SandboxSettings(SandboxMode.OFF))


def test_a_crash_in_round_3_is_recorded_in_round_3(tmp_path: Path) -> None:
    """A real student bot dies with a KeyError in round 3: its fault's round is 3, in the
    Fault and in the record the results db keeps, and comes back from it."""
    commands = [f"{sys.executable} {ROOT / 'bots' / 'rage_random.py'}",
                f"stdio:{sys.executable} {BOTS / 'crash_round3.py'}",
                f"{sys.executable} {ROOT / 'bots' / 'rage_random.py'}"]
    specs = [BotSpec(parse_bot_command(command), name)
             for command, name in zip(commands, ["a", "student", "b"])]
    result = play_game(RAGE, specs, RageConfig(3), 4, LAUNCH,
                       LogOptions(tmp_path / "game.jsonl"), lambda _: None)
    [fault] = result.faults
    assert (fault.seat, fault.kind, fault.round_no) == (1, FaultKind.CRASH, 3)
    assert fault.where is not None and fault.where.startswith("round 3, ")
    assert fault.record_json()["round"] == 3
    assert fault_from_json(fault.record_json()) == fault
    assert live_processes() == []


def test_the_stored_round_is_taken_as_it_is_never_from_the_words() -> None:
    record = Fault(0, "bot", FaultKind.CRASH, "exited", where="round 9, trick 1",
                   round_no=2).record_json()
    assert fault_from_json(record).round_no == 2
    record["round"] = None  # a fault at the end, or in a game of turns: in no round
    assert fault_from_json(record).round_no is None


def test_a_record_from_before_the_field_reads_its_round_from_its_words() -> None:
    def stored(where: str | None) -> int | None:
        record = Fault(0, "bot", FaultKind.CRASH, "exited", where=where).record_json()
        del record["round"]  # as stored before the field
        return fault_from_json(record).round_no
    assert stored("round 3, trick 8") == 3 and stored("round 10, bidding") == 10
    for words in ("the end", None, "round x, trick 1", "turn 14", "at the start",
                  "round \u0663, trick 1"):  # an Arabic-Indic 3: not how a round was written
        assert stored(words) is None


def test_where_a_match_knows_no_round_the_fault_has_none() -> None:
    """The Game is played in turns, and a start-up fault comes before any round."""
    error = BotCrashed("bot exited with code 1", 1)
    assert Fault.from_error(0, "bot", error, Where("turn 14")).round_no is None
    assert Fault.from_error(0, "bot", error).where is None
    fault = Fault.from_error(0, "bot", error, Where("round 4, trick 2", 4))
    assert (fault.where, fault.round_no) == ("round 4, trick 2", 4)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rage for 3 on one deal in 3 rotations: the student crashes in round 3 of each."""
    path = tmp_path_factory.mktemp("rounds") / "r.sqlite"
    random_bot = f"{sys.executable} {ROOT / 'bots' / 'rage_random.py'}"
    code, _, err = run_main(["tournament", "rage", f"a={random_bot}", f"b={random_bot}",
                             f"student=stdio:{sys.executable} {BOTS / 'crash_round3.py'}",
                             "--sandbox", "off", "--db", str(path)])
    assert code == 0, err
    return path


def stored_faults(db: Path) -> list[Fault]:
    with ResultStore.open_existing(db) as store:
        return [fault for record in store.records() for fault in record.faults]


def test_the_db_keeps_the_round_and_an_older_db_reads_it_from_the_words(
        db: Path, tmp_path: Path) -> None:
    faults = stored_faults(db)
    assert len(faults) == 3 and {(f.bot, f.round_no) for f in faults} == {("student", 3)}
    older = tmp_path / "older.sqlite"
    shutil.copy(db, older)
    with sqlite3.connect(older) as conn:  # as stored before the field
        conn.execute("UPDATE games SET record = json_remove(record, '$.faults[0].round')")
        assert conn.execute("SELECT count(*) FROM games WHERE record LIKE '%\"round\":%'"
                            ).fetchone() == (0,)
    assert stored_faults(older) == faults


def test_a_round_that_is_no_integer_is_a_damaged_db(db: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(db, damaged)
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE games SET record = json_set(record, '$.faults[0].round', 'three')")
    code, out, err = run_main(["results", str(damaged), "--faults"])
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("referee: error: ") and "damaged results db" in err
    assert "fault Fault(seat=" in err  # the record_check's word on the fault (cut short)


def test_machines_get_the_round_of_each_fault_and_people_read_it_in_where(
        tmp_path: Path) -> None:
    """`results --faults`: JSON and CSV carry `round` (docs/results-schema.json), the
    text table does not repeat what its `where` says."""
    db = tmp_path / "results.db"
    spec = make_spec(RAGE, 3)
    with ResultStore(db, spec) as store:
        fixture = fixtures_for(spec, TEST_SECRET)[0]
        record = fake_play(fixture, FakeContext(spec.bot_names))
        fault = Fault(0, record.bots[0], FaultKind.CRASH, "exited", where="round 3, trick 2",
                      round_no=3)
        store.add(replace(record, faults=(fault,)))
    code, shown, err = run_main(["results", str(db), "--faults", "--format", "json"])
    assert code == 0, err
    [row] = json.loads(shown)["tables"]["faults"]["rows"]
    assert (row["where"], row["round"]) == ("round 3, trick 2", 3)
    code, shown, err = run_main(["results", str(db), "--faults", "--format", "csv"])
    header, line = shown.splitlines()[:2]
    assert "step,round,detail" in header and ",3,exited," in line
    code, shown, err = run_main(["results", str(db), "--faults"])
    header = next(line for line in shown.splitlines() if line.startswith("game "))
    assert "where" in header.split() and "round" not in header.split()


def _crash(where: str | None, round_no: int | None) -> Fault:
    return Fault(0, "carol", FaultKind.CRASH, "bot exited with code 1", where=where,
                 round_no=round_no)


def test_the_fault_summary_clusters_a_rounds_faults_by_their_round() -> None:
    """Six crashes in round 4, each at another trick, are one place, round 4: the
    summary's "where" groups by the fault's round field, not by its words. A round whose
    faults all share their words keeps them; a game without rounds has only words."""
    tricks = [_crash(f"round 4, trick {trick}", 4) for trick in range(1, 7)]
    bids = [_crash("round 2, bidding", 2)] * 2
    assert _clusters(tricks + bids) == "round 4 (6); round 2, bidding (2)"
    turns = [_crash("turn 14", None), _crash("turn 14", None), _crash("turn 3", None)]
    assert _clusters(turns) == "turn 14 (2); turn 3 (1)"
    assert _clusters([_crash(None, None)]) == "n/a (1)"
    five_rounds = [_crash(f"round {n}, trick 1", n) for n in range(1, 6)]
    assert _clusters(five_rounds).endswith("; 2 more")
