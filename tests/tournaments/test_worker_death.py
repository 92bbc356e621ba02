"""A pool worker SIGKILLed mid-run (OOM killer, a stray kill): its games in flight are
played again in a new pool, none of its bots outlives it, and the tournament ends with
the tables of an uninterrupted run; a worker that keeps dying ends the run with one clear
error, keeping what is stored."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_support import running_with
from tests.referee.fault_bots.support import wait_until
from tests.tournaments.db_support import unplayed_copy, wait_for_games
from tests.tournaments.fakes import FakeContext, fake_play, make_spec
from tournaments.output.json_doc import tables_json
from tournaments.output.tables import build_tables
from tournaments.run.runner import MAX_POOL_RESTARTS, WorkersKeepDying, run_tournament
from tournaments.schedule.fixtures import Fixture, fixtures_for
from tournaments.store.results_db import ResultStore

ROOT = Path(__file__).resolve().parents[2]
SPEC = make_spec(n_bots=5, deals=2, seed=3)  # 5 tables x 4 rotations x 2 deals: 40 games
FIXTURES = fixtures_for(SPEC, b"s" * 32)  # any secret: these tests are of the runner
VICTIM = FIXTURES[13].fixture_id


@dataclass(frozen=True)
class DyingContext:
    """fake_play's context, plus a fixture whose worker SIGKILLs itself: once (a marker
    file remembers it did) or every time."""

    fake: FakeContext
    victim: str
    marker: str
    always: bool = False


def dying_play(fixture: Fixture, context: DyingContext) -> object:
    """In a pool worker: fake_play, except that the victim's worker is killed mid-game."""
    if fixture.fixture_id == context.victim and (context.always
                                                 or not os.path.exists(context.marker)):
        Path(context.marker).write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return fake_play(fixture, context.fake)


class CountingPools:
    """The default process pool, counting how many were made."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self, jobs: int) -> Executor:
        self.made += 1
        return ProcessPoolExecutor(max_workers=jobs)


def tables(db: Path) -> dict[str, object]:
    with ResultStore.open_existing(db) as store:
        records = store.records()
    assert sorted(record.fixture_id for record in records) == sorted(
        fixture.fixture_id for fixture in FIXTURES)
    return tables_json(build_tables(SPEC.game, records, SPEC.bot_names))


def run(db: Path, play: object, context: object, pools: CountingPools) -> None:
    with ResultStore(db, SPEC) as store:
        run_tournament(SPEC, FIXTURES, store, play, context, jobs=2,  # type: ignore[arg-type]
                       executor_factory=pools)


def test_a_worker_killed_mid_game_is_replaced_and_the_tables_are_unchanged(
        tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    context = DyingContext(FakeContext(SPEC.bot_names, delay=0.01), VICTIM, str(marker))
    pools = CountingPools()
    run(tmp_path / "killed.sqlite", dying_play, context, pools)
    assert marker.exists() and pools.made == 2  # one worker died, one new pool
    clean = CountingPools()
    run(tmp_path / "clean.sqlite", fake_play, FakeContext(SPEC.bot_names), clean)
    assert clean.made == 1
    assert tables(tmp_path / "killed.sqlite") == tables(tmp_path / "clean.sqlite")


def test_a_worker_that_keeps_dying_stops_the_run_keeping_every_stored_game(
        tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    context = DyingContext(FakeContext(SPEC.bot_names), VICTIM, str(tmp_path / "killed"),
                           always=True)
    pools = CountingPools()
    with pytest.raises(WorkersKeepDying, match="keeps dying") as caught:
        run(db, dying_play, context, pools)
    assert pools.made == MAX_POOL_RESTARTS + 1
    assert caught.value.breaks == MAX_POOL_RESTARTS + 1
    assert VICTIM in [fixture.fixture_id for fixture in caught.value.in_flight]
    with ResultStore.open_existing(db) as store:
        stored = [record.fixture_id for record in store.records()]
    assert VICTIM not in stored and len(stored) == len(set(stored)) >= 13
    run(db, fake_play, FakeContext(SPEC.bot_names), CountingPools())  # resumes to the end
    assert tables(db)  # real tables


# ---------------------------------------------------------------- the real thing

BOTS = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
        "stdio:bots/rage_first.sh"]
DEALS = 30  # one table of 3, 3 rotations: 90 games, a wide window to kill in


def command(db: Path) -> list[str]:
    """Every sandboxed bot's bwrap has the folder marker(db) on its command line."""
    marker(db).mkdir(exist_ok=True)
    return [sys.executable, "-m", "referee", "tournament", "rage", "--deals", str(DEALS),
            "--jobs", "2", "--db", str(db), "--format", "json", "--move-time", "5",
            "--sandbox-dir", str(marker(db)), *BOTS]


def marker(db: Path) -> Path:
    return db.parent / "shown-to-bots"


def start(db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(command(db), cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(db.parent)})


def pool_workers(referee: int) -> list[int]:
    """The referee's forked children that run its command line: the pool's workers
    (the sentinel and multiprocessing's helpers run other command lines)."""
    own = Path(f"/proc/{referee}/cmdline").read_bytes()
    workers = []
    for entry in os.listdir("/proc"):
        try:
            parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == referee and Path(f"/proc/{entry}/cmdline").read_bytes() == own:
                workers.append(int(entry))
        except (OSError, ValueError):  # not a process, or gone meanwhile
            continue
    return workers


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to find the workers")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_worker_of_a_real_tournament_costs_nothing(
        tmp_path: Path, signum: signal.Signals) -> None:
    """SIGKILL: the OOM killer. SIGTERM: what the pool sends its other workers once one
    died (a worker then interrupted inside a fork's handlers once printed a traceback)."""
    killed_db, clean_db = tmp_path / "killed.sqlite", tmp_path / "clean.sqlite"
    run = start(killed_db)
    wait_for_games(killed_db, 8)
    workers = pool_workers(run.pid)
    assert len(workers) == 2, workers
    os.kill(workers[0], signum)
    assert run.poll() is None  # killed mid-run
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    assert "Traceback" not in err and "error" not in err
    assert f"{DEALS * 3}/{DEALS * 3} games" in err
    # The dead worker's bots too (a sandbox's set-up once outlived it: see the sentinel);
    # a stray bot would run for good, so the deadline only allows for a loaded machine.
    assert wait_until(lambda: not running_with(str(marker(killed_db))), timeout=30), \
        "a bot outlived the run"

    unplayed_copy(killed_db, clean_db)  # the same deal secret, so the same deals
    clean = start(clean_db)
    clean_out, clean_err = clean.communicate(timeout=120)
    assert clean.returncode == 0, clean_err
    assert out == clean_out and json.loads(out)
