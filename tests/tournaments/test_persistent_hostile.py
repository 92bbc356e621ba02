"""Hostile bots kept between games (--persistent-bots): what a bot does while it is not
asked anything ends as its own fault in its next game, or as a quiet restart where it
simply exited; never as another bot's fault, a referee error or a process left behind.

Real processes: tests/referee/fault_bots/idle_hostile.py plays legally and misbehaves at
its first END, that is, between its first and second game in one worker's pool. The
innocents are the sample bots. Each test plays the three rotations of one deal in this
process (play_fixture), as one pool worker does.
"""

from __future__ import annotations

import shlex
import uuid
from pathlib import Path

import pytest

from protocols.faults import FaultKind
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.games.rage.definition import RAGE
from referee.settings import TimeLimits
from tests.cli_support import running_with
from tests.referee.fault_bots.support import wait_until
from tests.tournaments.fakes import TEST_SECRET
from tournaments.run.fixture_play import close_worker_pool, play_context, play_fixture, worker_pool
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.spec.definition import BotEntry, TournamentSpec

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "referee" / "fault_bots" / "idle_hostile.py"
INNOCENTS = (BotEntry("random", shlex.join(["python", str(ROOT / "bots" / "rage_random.py")])),
             BotEntry("first", "stdio:" + shlex.quote(str(ROOT / "bots" / "rage_first.sh"))))
# A move time that a deaf bot spends quickly, and a sample bot never nears.
TIMES = TimeLimits(startup=10.0, move=1.5)


pytestmark = pytest.mark.usefixtures("no_bot_left")


def hostile(mode: str, *args: str) -> BotEntry:
    return BotEntry("hostile", shlex.join(["python", str(HOSTILE), mode, "end", *args]))


def play_deal(tmp_path: Path, culprit: BotEntry, sandbox: SandboxMode = SandboxMode.AUTO
              ) -> tuple[list[GameRecord], int]:
    """The records of the three rotations of one deal at a table of the two innocents
    and `culprit`, in one persistent pool, and the bot processes it started."""
    spec = TournamentSpec.create(RAGE, (*INNOCENTS, culprit), time_limits=TIMES)
    context = play_context(spec, tmp_path / "results.sqlite", persistent_bots=True,
                           sandbox=SandboxSettings(sandbox))
    records = [play_fixture(fixture, context) for fixture in fixtures_for(spec, TEST_SECRET)]
    return records, worker_pool(context).started


def faults(record: GameRecord) -> list[tuple[str, FaultKind]]:
    return [(fault.bot, fault.kind) for fault in record.faults]


@pytest.mark.parametrize(("mode", "kinds"), [
    ("polite", set()),  # the control: one process each for the whole deal
    ("close", {FaultKind.CRASH}),
    ("deaf", {FaultKind.TIMEOUT}),
    # Past the inbox's bound before the next GAME, a flood; else its lines that come
    # after the GAME line are unsolicited.
    ("flood", {FaultKind.FLOOD, FaultKind.PROTOCOL}),
    ("ping", {FaultKind.TIMEOUT}),  # its PINGs never end its wait for a reply
    # A LOG line and a stray line are dropped with the game that ended; the line that is
    # not UTF-8 is a protocol fault all the same.
    ("chatter", {FaultKind.PROTOCOL}),
])
def test_a_bot_misbehaving_between_games_is_charged_alone_and_replaced(
        tmp_path: Path, mode: str, kinds: set[FaultKind]) -> None:
    (first, then, last), started = play_deal(tmp_path, hostile(mode))
    assert faults(first) == []
    if kinds:
        [(bot, kind)] = faults(then)  # one fault, the culprit's
        assert bot == "hostile" and kind in kinds
        assert then.places[then.bots.index("hostile")] == 3  # ruling R9
    else:
        assert faults(then) == []
    assert faults(last) == []  # its new process plays on
    assert started == 3 + bool(kinds)


def test_a_bot_that_exits_between_games_is_restarted_or_charged_its_crash(
        tmp_path: Path) -> None:
    """Seen gone before its next game, it is started again, as a fresh bot would be;
    still exiting as that game starts (a race the bot runs), its crash is its fault."""
    records, started = play_deal(tmp_path, hostile("exit"))
    assert faults(records[0]) == []
    for record in records[1:]:
        assert faults(record) in ([], [("hostile", FaultKind.CRASH)])
    assert started >= 4  # never reused: each of its processes exits after one game


@pytest.mark.parametrize("sandbox", [SandboxMode.AUTO, SandboxMode.OFF])
def test_a_daemon_started_between_games_is_gone_with_the_pool(
        tmp_path: Path, sandbox: SandboxMode) -> None:
    marker = f"idle-daemon-{uuid.uuid4().hex}"
    records, _ = play_deal(tmp_path, hostile("daemon", marker), sandbox)
    assert [faults(record) for record in records] == [[], [], []]
    assert running_with(marker), "the daemon runs while its bot is kept"
    close_worker_pool()
    assert wait_until(lambda: not running_with(marker)), "a daemon outlived its pool"
