"""A tournament run as PID 1 (a container without --init) ends with no zombie entries: each
pool worker waits for its own sentinel as it exits, and the coordinator reaps the orphans
its workers' games sent it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.referee.test_orphans import ROOT, unshare_works

PID_ONE_TOURNAMENT = textwrap.dedent("""
    import os, sys
    from referee.cli.main import main
    assert os.getpid() == 1
    try:
        main(["tournament", "rage", "--jobs", "2", "--deals", "4", "--db", *sys.argv[1:]])
    except SystemExit as done:
        assert not done.code, done.code
    zombies = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            zombies.append(stat.split(")")[0] + ")")
    print("ZOMBIES", *zombies, file=sys.stderr)
""")


@pytest.mark.skipif(not unshare_works(), reason="no new PID namespace allowed here")
def test_a_tournament_that_is_pid_1_leaves_no_zombies(tmp_path: Path) -> None:
    bots = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
            "python bots/rage_random.py"]
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable,
                           "-c", PID_ONE_TOURNAMENT, str(tmp_path / "results.sqlite"), *bots],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "rage_heuristic" in done.stdout  # the tables: the games were played
    # Every game's bots and both workers' sentinels are gone, each reaped by someone.
    assert done.stderr.splitlines()[-1].split() == ["ZOMBIES"], done.stderr[-2000:]
