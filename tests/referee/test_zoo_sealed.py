"""Sealed sandboxes (issue 26): real bots at one table, or in games one after another, try
the channels a second hunt found open between sandboxes, and find nothing.

Each channel is tried twice where that is safe: sandboxed (the default here: bubblewrap,
root, the seccomp filter, a cgroup per bot), where the bots must find nothing, and with
`--sandbox off`, where the same bots find the channel open. The second run shows the test
can see what it looks for. The culprit is tests/referee/fault_bots/zoo/channel_bot.py.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.games.rage.rules import RageConfig
from referee.matches.logged_game import LogOptions, play_game
from referee.games.rage.match import RageResult
from referee.players.lineup import BotSpec, LaunchSettings
from referee.processes.bot_command import parse_bot_command
from referee.processes.cgroups import CgroupRoot
from referee.processes.live_bots import live_processes
from referee.processes.sandbox import SandboxMode, SandboxSettings, sandbox_problem
from referee.games.rage.definition import RAGE
from referee.settings import TimeLimits

ROOT = Path(__file__).resolve().parents[2]
CHANNEL = Path(__file__).parent / "fault_bots" / "zoo" / "channel_bot.py"
RANDOM = "python bots/rage_random.py"
SANDBOXED = LaunchSettings(TimeLimits(startup=8.0, move=3.0, bank=0.0))
UNSANDBOXED = replace(SANDBOXED, sandbox=SandboxSettings(SandboxMode.OFF))
# A file every sandbox sees (the referee's interpreter) and no bot opens by itself.
SHARED = os.path.join(os.path.dirname(os.__file__), "this.py")

pytestmark = [
    pytest.mark.skipif(sandbox_problem() is not None,
                       reason=f"no sandbox here: {sandbox_problem()}"),
    pytest.mark.skipif(os.uname().machine != "x86_64",
                       reason="the channel bot's system call numbers"),
]


def channel(*args: object) -> str:
    return shlex.join(["python", str(CHANNEL), *(str(a) for a in args)])


def play(tmp_path: Path, seats: Sequence[str], launch: LaunchSettings = SANDBOXED,
         seed: int = 11) -> tuple[RageResult, list[dict[str, Any]]]:
    """A Rage game of these bots in this process; the result and the last report of each
    channel bot, in the order of their seats."""
    specs = [BotSpec(parse_bot_command(c), f"seat{i}") for i, c in enumerate(seats)]
    err_path = tmp_path / "stderr.txt"
    err_path.unlink(missing_ok=True)
    launch = replace(launch, stderr=err_path, secrets=(tmp_path / "game.jsonl", *launch.secrets))
    result = play_game(RAGE, specs, RageConfig(len(seats)), seed, launch,
                       LogOptions(tmp_path / "game.jsonl"), lambda _: None)
    assert live_processes() == []
    return result, last_reports(err_path.read_text() if err_path.exists() else "")


def last_reports(stderr: str) -> list[dict[str, Any]]:
    """Each channel bot's last `ZOO {json}` line, in the order the bots first reported."""
    last: dict[str, dict[str, Any]] = {}
    for line in stderr.splitlines():
        if line.startswith("ZOO "):
            found = json.loads(line[4:])
            last[found["id"]] = found
    return list(last.values())


def of(reports: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    """The one report of the bot playing `mode`."""
    mine = [found for found in reports if found["mode"] == mode]
    assert len(mine) == 1, reports
    return mine[0]


def innocent(result: RageResult, culprits: Sequence[int] = ()) -> None:
    """A whole game, and no seat but the culprits charged with anything."""
    assert len(result.rounds) == 10
    assert all(f.seat in culprits for f in result.faults), result.faults


def test_two_bots_at_one_table_share_no_file_lock(tmp_path: Path) -> None:
    """The flock channel (3.5 to 12.8 kB/s in the hunt): both seats lock one file of the
    Python library; neither ever finds it held by the other."""
    seats = [channel("lock", SHARED), channel("lock", SHARED), RANDOM]
    result, reports = play(tmp_path, seats)
    innocent(result)
    assert len(reports) == 2 and all(found["steps"] > 10 for found in reports)
    assert [found["blocked"] for found in reports] == [0, 0]
    _, control = play(tmp_path, seats, UNSANDBOXED)
    assert sum(found["blocked"] for found in control) > 0, "unsandboxed, locks exclude"


def test_a_watch_on_a_shared_file_sees_no_other_sandbox(tmp_path: Path) -> None:
    """The inotify channel: one seat watches a file of the library, another reads it at
    every request. Sandboxed, there are no watches at all (ENOSYS)."""
    seats = [channel("watch", SHARED), channel("touch", SHARED), RANDOM]
    result, reports = play(tmp_path, seats)
    innocent(result)
    watcher = of(reports, "watch")
    assert watcher["inotify"] == "ENOSYS" and "events" not in watcher
    _, control = play(tmp_path, seats, UNSANDBOXED)
    watcher = of(control, "watch")
    assert watcher["inotify"] == "watching" and watcher["events"] > 0


def test_the_machines_load_in_proc_stands_still(tmp_path: Path) -> None:
    """/proc/stat, /proc/loadavg, /proc/meminfo and /proc/vmstat told a sandbox the whole
    machine's load, 6 to 16 bit/s from another sandbox (docs/sandbox.md): a sandbox reads
    still copies of them now. Unsandboxed, they change over a game."""
    seats = [channel("load"), RANDOM, RANDOM]
    result, reports = play(tmp_path, seats)
    innocent(result)
    found = of(reports, "load")
    assert found["steps"] > 10 and found["changed"] == []
    assert found["loadavg"] == "0.00 0.00 0.00 1/1 1\n"
    _, control = play(tmp_path, seats, UNSANDBOXED)
    assert "/proc/stat" in of(control, "load")["changed"]


def test_a_bot_remembers_nothing_from_one_game_to_the_next(tmp_path: Path) -> None:
    """The keyring channel: in the hunt a bot recalled 28 opponents' hands from other
    rotations of the same deal. Here one bot leaves a note in the user keyrings, /tmp and
    /dev/shm in one game, and a bot at the same table and one in the next game look."""
    note = "hand-of-seat-2: R7 B3 G11"
    result, reports = play(tmp_path, [channel("put", note), channel("get"), RANDOM])
    innocent(result)
    put = of(reports, "put")["put"]
    assert put["-4"] == "ENOSYS" and put["-5"] == "ENOSYS", put  # no keyring at all
    assert put["/tmp"] == "written"  # its own, private (and /dev/shm is not writable)
    assert of(reports, "get")["recalled"] == [], "the other seat, while the writer plays"
    result, reports = play(tmp_path, [RANDOM, channel("get"), RANDOM], seed=12)
    innocent(result)
    assert of(reports, "get")["recalled"] == [], "the next game"
    assert of(reports, "get")["search -4"] == "ENOSYS"


def test_no_bot_recalls_a_deal_across_rotations(box: Path) -> None:
    """The hunt's bot recalled 28 opponents' hands from other rotations of a duplicate
    deal. Here every bot of a 2-deal tournament looks for notes at its first request of
    each game, then leaves one: in the keyrings, /tmp and /dev/shm."""
    shutil.copy(CHANNEL, box / "channel_bot.py")
    bots = [f"{name}=python channel_bot.py remember" for name in "abc"]
    done = referee("tournament", "rage", "--deals", "2", "--jobs", "2",
                   "--db", "results/r.sqlite", *bots, cwd=box)
    assert done.returncode == 0, done.stderr
    reports = [json.loads(line[4:]) for path in (box / "results" / "r-logs").glob("*.stderr")
               for line in path.read_text().splitlines() if line.startswith("ZOO ")]
    assert len({found["id"] for found in reports}) >= 6  # a bot process per game or more
    assert all(found["recalled"] == [] for found in reports)


def test_the_sandboxs_init_shows_no_host_path_nor_token(tmp_path: Path, box: Path) -> None:
    """/proc/1/cmdline is bwrap's: its options (every bind, every mask, the bot's token)
    go through a file descriptor, so the bot reads only its own command there."""
    shutil.copy(CHANNEL, box / "channel_bot.py")
    secret = box / "results"
    secret.mkdir()
    (secret / "rage.sqlite").write_bytes(b"SQLite format 3\0")
    seats = [RANDOM, shlex.join(["python", str(box / "channel_bot.py"), "snoop"]), RANDOM]
    launch = replace(SANDBOXED, secrets=(secret,))
    result, reports = play(tmp_path, seats, launch)
    innocent(result)
    found = of(reports, "snoop")
    cmdline = " ".join(found["cmdline"])
    assert found["cmdline"][:3] == ["bwrap", "--args", found["cmdline"][2]], cmdline
    assert "--ro-bind" not in cmdline and "REFEREE_TOKEN" not in cmdline
    assert "results" not in cmdline and str(tmp_path) not in cmdline
    assert str(secret) in found["mounts"], "a folder is masked whole"
    assert not any("rage.sqlite" in point for point in found["mounts"]), "no file named"
    assert str(secret / "rage.sqlite") not in found["files"]


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=300, check=False)


def test_a_bot_in_the_dbs_folder_sees_no_db_journal_nor_log(box: Path) -> None:
    """The journal channel: SQLite's `<db>-journal` appears beside the db at each commit,
    and the hunt read stored seeds from it. The db's whole folder is masked now; a db
    that sits right in a bot's own folder is refused before any game, in one line."""
    shutil.copy(CHANNEL, box / "channel_bot.py")
    bots = [f"{name}=python channel_bot.py snoop" for name in "abc"]
    done = referee("tournament", "rage", "--deals", "2", "--db", "results/r.sqlite", *bots,
                   cwd=box)
    assert done.returncode == 0, done.stderr
    stderr_files = sorted((box / "results" / "r-logs").glob("*.stderr"))
    reports = [json.loads(line[4:]) for path in stderr_files
               for line in path.read_text().splitlines() if line.startswith("ZOO ")]
    assert len(reports) > 50
    for found in reports:
        assert not any("/results/" in path for path in found["files"]), found["files"]
    refused = referee("tournament", "rage", "--deals", "1", "--db", "r.sqlite", *bots,
                      cwd=box)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.count("\n") == 1 and "--db results/" in refused.stderr
    assert not (box / "r.sqlite").exists() or not (box / "r-logs").exists()


@pytest.mark.skipif(CgroupRoot.find() is None, reason="no cgroups here")
def test_a_200_process_hog_at_the_table_starves_no_one(tmp_path: Path) -> None:
    """The CPU channel: 200 spinning children, each in a session of its own, left the
    victim 0.25 s of CPU per 1 s move. Each bot's cgroup now has one CPU share however
    many processes it makes. The victim burns 0.1 s of CPU on each of its first twelve
    requests, and must never time out in its 3 s: without its share it would get about
    2 CPUs / 201 processes, 10 ms a second, and need 10 s a move. (It burned 0.25 s of
    1 s once, and a CI machine loaded to 14 leaves any process less than that.)"""
    launch = replace(SANDBOXED, times=TimeLimits(startup=8.0, move=3.0, bank=0.0))
    seats = [channel("hog", 200), channel("burn", 0.1, 12), RANDOM]
    result, reports = play(tmp_path, seats, launch)
    assert of(reports, "hog").get("children", 0) >= 60, reports  # spinning a while
    innocent(result, culprits=(0,))
    assert of(reports, "burn")["steps"] > 12


@pytest.mark.skipif(CgroupRoot.find() is None or len(os.sched_getaffinity(0)) < 2,
                    reason="no cgroups, or a single CPU")
def test_a_hog_cannot_leave_its_workers_cpu(box: Path) -> None:
    """Under --jobs 2 each worker is pinned to a CPU; in the hunt a hog reset its own
    affinity and starved the next table. Its cpuset holds it on its worker's CPU."""
    shutil.copy(CHANNEL, box / "channel_bot.py")
    bots = ["hog=python channel_bot.py hog 3", "b=python channel_bot.py burn 0 0",
            "c=python channel_bot.py burn 0 0"]
    done = referee("tournament", "rage", "--deals", "1", "--jobs", "2",
                   "--db", "results/r.sqlite", *bots, cwd=box)
    assert done.returncode == 0, done.stderr
    reports = [json.loads(line[4:])
               for path in (box / "results" / "r-logs").glob("*.hog.stderr")
               for line in path.read_text().splitlines() if line.startswith("ZOO ")]
    reports = [found for found in reports if "affinity" in found]
    assert reports
    for found in reports:
        assert len(found["affinity"]) == 1, found  # widened to every CPU: refused
