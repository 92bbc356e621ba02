"""Default tournaments reuse sandboxed bots, but no bot process plays two fixtures of the
same deal (tournaments/run/idle_bots.py, play_order.py), with real sandboxed bots: a bot that
names its process in each game's stderr is the witness."""

from __future__ import annotations

import io
import re
import shlex
from collections import defaultdict
from pathlib import Path

import pytest

from referee.processes.sandbox import SandboxMode, SandboxSettings, sandbox_problem
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from referee.settings import TimeLimits
from tests.tournaments.db_support import unplayed_copy
from tests.tournaments.fakes import TEST_SECRET
from tournaments.run.fixture_play import close_worker_pool, play_context, play_fixture, worker_pool
from tournaments.schedule.play_order import play_order
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import fixtures_for
from tournaments.run.session import RunOptions, run_session
from tournaments.spec.definition import BotEntry, TournamentSpec
from tournaments.store.results_db import ResultStore

ROOT = Path(__file__).resolve().parents[2]
TIMES = TimeLimits(startup=10.0, move=5.0)  # no timeouts on a busy machine
SANDBOXED = SandboxSettings(SandboxMode.ON)
pytestmark = pytest.mark.skipif(sandbox_problem() is not None,
                                reason="needs a working sandbox (bubblewrap)")

# The sample random bot (it reseeds from each hand: reused or fresh, the same moves) that
# writes a name of its process, drawn at its start, to stderr at each GAME line.
WITNESS_BOT = """
import os, sys
sys.path.insert(0, {root!r})
from bots.rage_random import RandomBot
from bots.sdk import run_bot

NAME = os.urandom(8).hex()

class Witness(RandomBot):
    def on_line(self, line):
        if line.startswith("GAME "):
            sys.stderr.write("process " + NAME + "\\n")
            sys.stderr.flush()
        return super().on_line(line)

run_bot("witness", "1.0", Witness())
"""
PROCESS = re.compile(r"^process ([0-9a-f]{16})$", re.MULTILINE)
DEAL = re.compile(r"/d(\d+)/")


pytestmark = pytest.mark.usefixtures("no_bot_left")


def witness_command(tmp_path: Path) -> str:
    folder = tmp_path / "bots"
    folder.mkdir()
    script = folder / "witness.py"
    script.write_text(WITNESS_BOT.format(root=str(ROOT)))
    for path in (tmp_path.parent, tmp_path, folder):  # sandboxed bots run as uid 60000
        path.chmod(0o755)
    return shlex.join(["python", str(script)])


def rage_spec(witness: str, fresh_bots: bool = False) -> TournamentSpec:
    """The witness and the random bot at tables of 3 (aab, abb), 4 deals: 24 games, the
    witness in 36 seats."""
    random_bot = shlex.join(["python", str(ROOT / "bots" / "rage_random.py")])
    return TournamentSpec.create(RAGE, (BotEntry("witness", witness),
                                        BotEntry("random", random_bot)),
                                 deals=4, fresh_bots=fresh_bots, time_limits=TIMES)


def run(spec: TournamentSpec, db: Path) -> tuple[str, list[GameRecord]]:
    """The default setting (sandboxed, no --persistent-bots) on two workers."""
    options = RunOptions(db, jobs=2, progress=False, sandbox=SANDBOXED)
    tables = run_session(spec, options, io.StringIO())
    with ResultStore.open_existing(db) as store:
        return tables, store.records()


def deals_by_process(records: list[GameRecord], folder: Path) -> dict[str, list[int]]:
    """Each witness process's deals, one per game it played, from its games' stderr."""
    played: dict[str, list[int]] = defaultdict(list)
    for record in records:
        assert record.faults == () and record.stderr_paths is not None
        deal = int(DEAL.search(record.fixture_id).group(1))  # type: ignore[union-attr]
        for seat, bot in enumerate(record.bots):
            if bot == "witness":
                names = PROCESS.findall((folder / str(record.stderr_paths[seat])).read_text())
                assert len(names) == 1, (record.fixture_id, seat, names)
                played[names[0]].append(deal)
    return played


def without_logs(records: list[GameRecord]) -> list[dict[str, object]]:
    """The records less where their logs are (each db has its own logs folder)."""
    return [{**record.to_json(), "log_path": None, "stderr_paths": None}
            for record in records]


def test_no_sandboxed_process_plays_a_deal_twice_yet_processes_are_reused(
        tmp_path: Path) -> None:
    spec = rage_spec(witness_command(tmp_path))
    tables, records = run(spec, tmp_path / "reused.sqlite")
    played = deals_by_process(records, tmp_path)
    seats = sum(len(deals) for deals in played.values())
    assert len(records) == 24 and seats == 36
    for deals in played.values():
        assert len(deals) == len(set(deals)), deals  # no process saw a deal twice
    # Reused: fresh bots would be 36 processes; each process here plays up to 4 games.
    assert 9 <= len(played) <= seats / 2, played
    # The same games as with a bot started for every game (fresh_bots), the same deals.
    unplayed_copy(tmp_path / "reused.sqlite", tmp_path / "fresh.sqlite")
    fresh_tables, fresh = run(rage_spec(spec.bots[0].command, fresh_bots=True),
                              tmp_path / "fresh.sqlite")
    assert len(deals_by_process(fresh, tmp_path)) == 36  # the witness tells fresh bots
    assert fresh_tables == tables
    assert without_logs(fresh) == without_logs(records)


THEGAME_BOTS = [ROOT / "bots" / "thegame_random.py", ROOT / "bots" / "thegame_heuristic.py"]


def test_solo_and_team_games_of_a_deal_get_other_processes(tmp_path: Path) -> None:
    """The Game, 2 bots, teams of 2, 2 deals in play order: each bot's solo process plays
    both deals, then the team needs two new ones (its bots played these deals solo),
    which play both deals too: 4 starts for 12 seats."""
    bots = tuple(BotEntry(path.stem, shlex.join(["python", str(path)]))
                 for path in THEGAME_BOTS)
    spec = TournamentSpec.create(THEGAME, bots, size=2, deals=2, time_limits=TIMES)
    context = play_context(spec, tmp_path / "results.sqlite", sandbox=SANDBOXED)
    fixtures = play_order(fixtures_for(spec, TEST_SECRET))
    assert [(f.kind.value, f.deal) for f in fixtures] == [
        ("solo", 1), ("solo", 2), ("solo", 1), ("solo", 2), ("team", 1), ("team", 2)]
    for fixture in fixtures:
        assert play_fixture(fixture, context).faults == ()
    assert worker_pool(context).started == 4
    close_worker_pool()
    persistent = play_context(spec, tmp_path / "results.sqlite", sandbox=SANDBOXED,
                              persistent_bots=True)  # it may play a deal again
    for fixture in fixtures:
        play_fixture(fixture, persistent)
    assert worker_pool(persistent).started == 2
