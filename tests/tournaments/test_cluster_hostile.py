"""Hostile bots on `--cluster local:2` and on `--jobs 2`, with --persistent-bots and the
default sandbox: the same tables and the same recorded faults for the same deals, no
traceback, and nothing of theirs left running after either run.

The hostile bots fault the same way in every game they play, whichever worker plays it
and whatever it played before (a crash at its process's second request, bytes that are
not UTF-8 as its first reply), or start a daemon between games and play on. A bot whose
misbehaviour falls between games is charged in the next game its process plays, which
depends on the workers' timing: such a bot has no reproducible table anywhere.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.cli_support import running_with
from tests.referee.fault_bots.support import wait_until
from tests.tournaments.db_support import unplayed_copy
from tournaments.store.results_db import ResultStore

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
FAULT_BOTS = ROOT / "tests" / "referee" / "fault_bots"


def bots(marker: str) -> list[str]:
    return ["random=python bots/rage_random.py",
            f"crasher=python {shlex.quote(str(FAULT_BOTS / 'misbehave.py'))} exit 2",
            f"garbage=python {shlex.quote(str(FAULT_BOTS / 'misbehave.py'))} garbage 1",
            f"daemon=python {shlex.quote(str(FAULT_BOTS / 'idle_hostile.py'))} daemon end "
            f"{marker}"]


def run(db: Path, marker: str, *how: str) -> str:
    """The JSON tables of a one-deal tournament of `bots` at tables of 3 (12 games)."""
    command = [sys.executable, "-m", "referee", "tournament", "rage", "--deals", "1",
               "--table-size", "3", "--db", str(db), "--format", "json", "--move-time", "5",
               "--persistent-bots", *how, *bots(marker)]
    done = subprocess.run(command, cwd=ROOT, text=True, capture_output=True, timeout=180,
                          env={**os.environ, "TMPDIR": str(db.parent)})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "12/12 games" in done.stderr
    assert wait_until(lambda: not running_with(marker)), "a bot's daemon outlived the run"
    return done.stdout


def faults_by_game(db: Path) -> dict[str, list[dict[str, object]]]:
    with ResultStore.open_existing(db) as store:
        return {record.fixture_id: [fault.to_json() for fault in record.faults]
                for record in store.records()}


def test_hostile_bots_give_the_same_tables_and_faults_on_a_cluster_as_on_jobs_2(
        tmp_path: Path) -> None:
    marker = f"cluster-daemon-{uuid.uuid4().hex}"
    cluster, jobs = tmp_path / "cluster.sqlite", tmp_path / "jobs.sqlite"
    on_cluster = run(cluster, marker, "--cluster", "local:2")
    unplayed_copy(cluster, jobs)  # the same deal secret, so the same deals
    assert run(jobs, marker, "--jobs", "2") == on_cluster
    faults = faults_by_game(cluster)
    assert faults == faults_by_game(jobs)
    charged = {fault["bot"] for games in faults.values() for fault in games}
    assert charged == {"crasher", "garbage"}
    assert json.loads(on_cluster)["metadata"]["complete"]
