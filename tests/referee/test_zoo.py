"""The hostile-bot zoo: real misbehaving bot processes against the default sandbox.

Every game runs under `--sandbox auto` defaults (which sandboxes here: bubblewrap, root).
The culprit, tests/referee/fault_bots/zoo/zoo_bot.py, reports what its attack found as a
`ZOO {json}` line on stderr; each test asserts the attack found nothing it should not,
that the innocents played a whole game without a fault, and that nothing was left behind.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from referee.processes.bot_command import parse_bot_command
from referee.processes.live_bots import live_processes
from referee.errors import Fault
from protocols.faults import FaultKind
from referee.registry.game_logs import read_log
from referee.games.rage.rules import RageConfig
from referee.players.lineup import BotSpec, LaunchSettings
from referee.matches.logged_game import LogOptions, play_game
from referee.games.rage.definition import RAGE
from referee.processes.cgroups import CgroupRoot
from referee.processes.box_uids import FIRST_UID, UID_COUNT
from referee.processes.sandbox import sandbox_problem
from referee.games.rage.match import RageResult
from referee.settings import ResourceLimits, TimeLimits
from tests.referee.fault_bots.support import wait_until

ROOT = Path(__file__).resolve().parents[2]
ZOO = Path(__file__).parent / "fault_bots" / "zoo" / "zoo_bot.py"
RANDOM = "python bots/rage_random.py"
TIMES = TimeLimits(startup=8.0, move=3.0, bank=0.0)
LAUNCH = LaunchSettings(TIMES)  # the default sandbox: --sandbox auto

pytestmark = pytest.mark.skipif(sandbox_problem() is not None,
                                reason=f"no sandbox here: {sandbox_problem()}")


@dataclass
class Game:
    """A finished game: its result, the culprit's ZOO reports, the log, all bots' stderr."""

    result: RageResult
    reports: list[dict[str, Any]]
    log: list[dict[str, Any]]
    stderr: bytes


def zoo(*args: object) -> str:
    """The command line of the zoo bot with these arguments."""
    return shlex.join(["python", str(ZOO), *(str(a) for a in args)])


def play(tmp_path: Path, culprit: str, launch: LaunchSettings = LAUNCH,
         secrets: Sequence[Path] = ()) -> Game:
    """A 3-player game in this process, the culprit in seat 1, the log in tmp_path."""
    specs = [BotSpec(parse_bot_command(c), label)
             for c, label in [(RANDOM, "good-0"), (culprit, "culprit"), (RANDOM, "good-2")]]
    log_path, err_path = tmp_path / "game.jsonl", tmp_path / "stderr.txt"
    launch = replace(launch, stderr=err_path,
                     secrets=(log_path, *secrets, *launch.secrets))
    result = play_game(RAGE, specs, RageConfig(3), 11, launch, LogOptions(log_path), lambda _: None)
    assert live_processes() == []
    stderr = err_path.read_bytes() if err_path.exists() else b""
    return Game(result, zoo_reports(stderr), read_log(log_path), stderr)


def zoo_reports(stderr: bytes) -> list[dict[str, Any]]:
    """The `ZOO {json}` lines in a stderr capture."""
    return [json.loads(line[4:]) for line in stderr.splitlines() if line.startswith(b"ZOO ")]


def the_report(game: Game) -> dict[str, Any]:
    assert len(game.reports) == 1, game.stderr[-2000:]
    return game.reports[0]


def culprit_faults(game: Game) -> list[Fault]:
    """The game was played whole, and no innocent seat was charged with a fault."""
    assert len(game.result.rounds) == 10
    assert all(f.seat == 1 for f in game.result.faults), game.result.faults
    return list(game.result.faults)


def assert_clean_game(game: Game) -> None:
    """A whole game and no fault at all."""
    assert culprit_faults(game) == []


def marked(marker: str) -> list[int]:
    """Live (non-zombie) processes anywhere on the machine with `marker` in their argv."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def no_survivors(marker: str, timeout: float = 5.0) -> bool:
    """Do all marked processes die within `timeout`?"""
    return wait_until(lambda: not marked(marker), timeout)


@pytest.fixture
def marker() -> Iterator[str]:
    """A unique word for a culprit's argv; whatever still carries it is killed afterwards."""
    word = f"zoo-marker-{uuid.uuid4().hex}"
    yield word
    for pid in marked(word):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass




def test_bot_in_a_folder_under_tmp_can_run(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="zoo-tmp-bot-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        shutil.copy(ROOT / "bots" / "rage_random.py", folder / "rage_random.py")
        assert_clean_game(play(tmp_path, f"python {folder / 'rage_random.py'}"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# 1. Seat theft


def test_bot_sees_no_other_process_nor_any_token(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("procs"))
    assert_clean_game(game)
    found = the_report(game)
    cmdlines = found["cmdlines"]
    # Only the sandbox's init (bwrap, pid 1) and the bot itself.
    assert len(cmdlines) <= 3, cmdlines
    assert cmdlines["1"].startswith("bwrap ")
    others = [c for c in cmdlines.values() if not c.startswith("bwrap ")]
    assert all("zoo_bot.py procs" in c for c in others), others
    text = " ".join(cmdlines.values())
    assert "rage_random" not in text and "pytest" not in text and "--seed" not in text
    assert found["foreign_tokens"] == []


# 2. Other seats' endpoints


def test_bot_finds_no_socket_to_connect_to_and_victims_play_on(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("sockets"))
    assert_clean_game(game)
    found = the_report(game)
    assert found["run_referee"] == [], "its own endpoint is gone after HELLO"
    assert found["sockets"] == [] and found["abstract"] == []
    assert "connected" not in found["connects"].values()


# 3. Secrets


def test_bot_cannot_read_the_log_results_nor_the_referee(tmp_path: Path, box: Path) -> None:
    # The culprit's own folder, holding a log and results by mistake.
    shutil.copy(ZOO, box / "zoo_bot.py")
    (box / "results").mkdir()
    (box / "results" / "rage.sqlite").write_bytes(b"SQLite format 3\0 secret results")
    inside_log = box / "other-game.jsonl"
    inside_log.write_text('{"type":"game","seed":12345}\n')
    log, db = tmp_path / "game.jsonl", box / "results" / "rage.sqlite"
    culprit = shlex.join(["python", str(box / "zoo_bot.py"), "secrets", str(log), str(db),
                          str(inside_log), str(ROOT / "pyproject.toml"), "--",
                          str(os.getpid())])
    game = play(tmp_path, culprit, secrets=(box / "results", inside_log))
    assert_clean_game(game)
    found = the_report(game)
    opened = found["opened"]
    assert opened[str(log)].startswith("error"), "the game log is outside every bind"
    assert opened[str(db)].startswith("error"), "a secret folder is masked by a tmpfs"
    assert "12345" not in opened[str(inside_log)], "a secret file is masked by /dev/null"
    assert opened[str(ROOT / "pyproject.toml")].startswith("error"), "the referee's cwd"
    assert found["pid1"].startswith("read bwrap"), "pid 1 is the sandbox's init"
    assert found["referee_mem"].startswith("error")
    assert found["referee_cmdline"].startswith("error")


# 4. Network


def test_bot_has_no_network(tmp_path: Path) -> None:
    abstract = f"zoo-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp, \
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        unix.bind("\0" + abstract)
        unix.listen()
        game = play(tmp_path, zoo("net", tcp.getsockname()[1], abstract))
    assert_clean_game(game)
    found = the_report(game)
    assert "connected" not in found["tcp"].values(), found["tcp"]
    assert found["udp"] != "sent"
    assert found["abstract"] != "connected", "the host's abstract sockets are out of reach"
    assert found["interfaces"] == ["lo"]


# 5. Signals


def test_bot_killing_every_pid_harms_no_one(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("kill"))
    assert_clean_game(game)
    found = the_report(game)
    assert found["delivered"] == {"SIGSTOP": [], "SIGKILL": []}
    assert found["minus_one"] == "ESRCH", "kill(-1) finds no process it may signal"


# 6. Escapes


@pytest.mark.parametrize("attack", [["daemon"], ["daemon", 50], ["hopper"], ["forkbomb"]],
                         ids=["daemon", "50-daemons", "hopper", "forkbomb"])
def test_no_process_of_the_bot_outlives_the_game(tmp_path: Path, marker: str,
                                                 attack: list[object]) -> None:
    mode, *rest = attack
    game = play(tmp_path, zoo(mode, marker, *rest))
    culprit_faults(game)
    found = the_report(game)
    assert found["alive"] >= (rest[0] if rest else 1), "the escape was made"
    assert no_survivors(marker), f"left behind: {marked(marker)}"


# 7. Memory


needs_cgroup = pytest.mark.skipif(CgroupRoot.find() is None,
                                  reason="no cgroup for bots on this machine")
LIMITED = replace(LAUNCH, limits=ResourceLimits(memory_mb=256))


@needs_cgroup
def test_memory_limit_counts_all_the_bots_processes(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("memory", 150, 4), LIMITED)
    culprit_faults(game)
    found = the_report(game)
    # Two may complete one after the other (the first then killed for the second): never
    # both held at once (CI once saw completed == 2 with one killed after it completed).
    assert found["held"] <= 1, f"{found['held']} x 150 MiB held under 256 MiB"
    assert found["completed"] <= 2 and found["killed"] >= 3
    assert found["children_rss_mb"] <= 256


@needs_cgroup
def test_bot_over_its_memory_limit_is_a_crash_naming_the_limit(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("hog", 600), LIMITED)
    faults = culprit_faults(game)
    assert [(f.seat, f.kind) for f in faults] == [(1, FaultKind.CRASH)]
    assert "memory limit" in faults[0].detail


# 8. Disk and output


def test_bot_cannot_fill_the_disk(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("disk"))
    assert_clean_game(game)
    found = the_report(game)
    assert found["tmp_error"] == "ENOSPC"
    assert found["tmp_written_mb"] <= 64, "the private /tmp holds 64 MiB"
    assert "written" not in found["elsewhere"].values(), found["elsewhere"]


def referee_play(tmp_path: Path, *bots: str, extra: Sequence[str] = ()) -> list[str]:
    """The `referee play rage` command line for these bots, its log in tmp_path."""
    return [sys.executable, "-m", "referee", "play", "rage", "--seed", "5",
            "--startup-time", "8", "--move-time", "3", "--log", str(tmp_path / "game.jsonl"),
            *extra, *bots]


def test_stderr_flood_leaves_a_bounded_stderr(tmp_path: Path) -> None:
    done = subprocess.run(referee_play(tmp_path, RANDOM, zoo("stderr", 200), RANDOM),
                          cwd=ROOT, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(done.stderr) < 1 << 20, f"{len(done.stderr)} bytes of stderr"
    assert len(done.stdout) < 1 << 20
    assert b"bytes of stderr cut here" in done.stderr
    faults = [r for r in read_log(tmp_path / "game.jsonl") if r["type"] == "fault"]
    assert faults == []


# 9. Privileges


def test_bot_has_no_capability_and_is_not_root(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("caps"))
    assert_clean_game(game)
    found = the_report(game)
    for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(found[name], 16) == 0, (name, found[name])
    assert found["NoNewPrivs"] == "1"
    assert found["setuid0"] == "EPERM"
    if os.geteuid() == 0:
        uid = int(found["Uid"].split()[0])
        assert FIRST_UID <= uid < FIRST_UID + UID_COUNT, "a box uid (box_uids.py)"
        assert found["Uid"].split() == [str(uid)] * 4
        assert found["Gid"].split() == [str(uid)] * 4


def test_bot_bounding_set_is_empty(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("caps"))
    assert int(the_report(game)["CapBnd"], 16) == 0


def test_bot_cannot_regain_capabilities_in_a_user_namespace(tmp_path: Path) -> None:
    """As root, a seccomp filter forbids them (referee/processes/sandbox_filter.py)."""
    game = play(tmp_path, zoo("caps"))
    found = the_report(game)
    assert found["userns_CapEff"].startswith("error")
    assert found["clone_newuser"]["clone"] in ("EPERM", "ENOSPC", "unknown machine")
    # Refused (ENOSYS: the C library falls back to clone, which is refused)
    assert found["clone_newuser"]["clone3"] in ("ENOSYS", "EPERM", "ENOSPC", "unknown machine")


# 10. The referee killed


def test_no_bot_process_survives_a_killed_referee(tmp_path: Path, marker: str) -> None:
    bots = [zoo("slow", 0.05, marker), zoo("daemon", marker, 5), zoo("forkbomb", marker)]
    referee = subprocess.Popen(referee_play(tmp_path, *bots), cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert referee.stdout is not None
        assert referee.stdout.readline().startswith(b"Rage")
        # The bots are up and escaped: the daemons and the bomb are running.
        assert wait_until(lambda: len(marked(marker)) > 50, 10.0)
        referee.kill()
        referee.wait(10)
    finally:
        referee.kill()
        referee.wait(10)
    assert no_survivors(marker), f"left behind: {marked(marker)}"


# 11. Connection flood


def test_connection_flood_before_hello_is_that_bots_fault(tmp_path: Path) -> None:
    game = play(tmp_path, zoo("connflood", 2000))
    faults = culprit_faults(game)
    assert [(f.seat, f.kind) for f in faults] == [(1, FaultKind.FLOOD)]
    assert "connections" in faults[0].detail
