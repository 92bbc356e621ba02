"""Orphans that come to the referee are reaped: no zombie entries pile up, even where the
referee is PID 1 (a container without --init); its own children keep their exit codes."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee.processes import bot_process, orphans
from referee.processes.bot_process import BotProcess
from referee.processes.live_bots import REGISTRY
from referee.processes.sandbox import View, sandbox_problem
from referee.settings import ResourceLimits
from tests.referee.fault_bots.support import argv_command, wait_until
from tests.referee.conftest import Spawn

_PR_GET_CHILD_SUBREAPER = 37
ROOT = Path(__file__).resolve().parents[2]

# A stdio bot whose child forks a grandchild and exits: the grandchild, an orphan, says
# its pid and its new parent, and exits. With "setsid" the child first leaves the bot's
# process group (a daemon's double fork).
DOUBLE_FORK = textwrap.dedent("""
    import os, sys, time
    if os.fork() == 0:
        if sys.argv[1] == "setsid":
            os.setsid()
        parent = os.getpid()
        if os.fork() == 0:
            while os.getppid() == parent:
                time.sleep(0.005)
            os.write(1, b"%d %d\\n" % (os.getpid(), os.getppid()))
            os._exit(0)
        os._exit(0)
    os.wait()
    time.sleep(60)
""")

# Leaves an orphan that has exited: run by the test itself (it is no bot).
ORPHAN_MAKER = textwrap.dedent("""
    import os, time
    parent = os.getpid()
    if os.fork() == 0:
        os.setsid()
        print(os.getpid(), flush=True)
        while os.getppid() == parent:
            time.sleep(0.005)
        os._exit(0)
    time.sleep(0.05)
""")

needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")


def orphan_bot(spawn: Spawn, *argv: str, sandboxed: bool = False) -> BotProcess:
    """A stdio bot of `argv` with the default limits, sandboxed or not."""
    return spawn(argv_command(*argv, stdio=True), limits=ResourceLimits(),
                 stderr=Path(os.devnull), view=View(cwd=Path("/")) if sandboxed else None)


def our_child_state(pid: int) -> str | None:
    """The state letter of `pid` if it is our child (Z: a zombie nobody reaped), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0] if int(fields[1]) == os.getpid() else None


def is_subreaper() -> bool:
    flag = ctypes.c_int()
    ctypes.CDLL(None).prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    return flag.value == 1


def read_orphan(bot: BotProcess) -> tuple[int, int]:
    assert bot.stdout is not None
    pid, parent = bot.stdout.readline().split()
    return int(pid), int(parent)


def exited_orphan() -> int:
    """A child of ours that we did not start, exited: an orphan (we are a subreaper)."""
    assert orphans.become_subreaper()
    made = subprocess.run([sys.executable, "-c", ORPHAN_MAKER], stdout=subprocess.PIPE,
                          check=True, timeout=30)
    pid = int(made.stdout)
    assert wait_until(lambda: our_child_state(pid) == "Z")
    return pid


@pytest.mark.parametrize("leaves_group", ["setsid", "stays"])
def test_a_bots_orphan_comes_to_the_referee_and_its_kill_reaps_it(
        spawn: Spawn, leaves_group: str) -> None:
    bot = orphan_bot(spawn, "python", "-c", DOUBLE_FORK, leaves_group)
    assert is_subreaper()
    orphan, parent = read_orphan(bot)
    assert parent == os.getpid()  # not init's: ours to reap
    assert wait_until(lambda: our_child_state(orphan) == "Z")
    bot.kill()
    assert our_child_state(orphan) is None


def test_the_next_bot_start_reaps_an_orphan(spawn: Spawn) -> None:
    orphan = exited_orphan()
    orphan_bot(spawn, "sleep", "30")
    assert our_child_state(orphan) is None


@needs_sandbox
@pytest.mark.skipif(bot_process.CgroupRoot.find() is None, reason="no cgroups here")
def test_a_sandboxed_bots_kill_reaps_bwraps_inner_process(spawn: Spawn) -> None:
    bot = orphan_bot(spawn, "python", "-c", DOUBLE_FORK, "setsid", sandboxed=True)
    _, parent = read_orphan(bot)  # its grandchild: the sandbox's init reaps that one
    assert parent == 1
    inner = inner_bwrap(bot)
    bot.kill()  # mostly reaped by now: the cgroup's removal waits for its death, but
    # under load that wait can give up first, and then the next sweep must have it
    assert wait_until(lambda: REGISTRY.reap_orphans() >= 0 and our_child_state(inner) is None)


@needs_sandbox
def test_without_cgroups_bwraps_inner_process_is_reaped_soon_after_the_kill(
        spawn: Spawn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_process.CgroupRoot, "find", classmethod(lambda cls: None))
    bot = orphan_bot(spawn, "sleep", "30", sandboxed=True)
    inner = inner_bwrap(bot)
    bot.kill()  # it may still be taking its PID namespace down: the next sweep has it
    assert wait_until(lambda: REGISTRY.reap_orphans() >= 0 and our_child_state(inner) is None)


def inner_bwrap(bot: BotProcess) -> int:
    """bwrap's process inside the sandbox, its outer process's one child."""
    task = Path(f"/proc/{bot.pid}/task/{bot.pid}/children")
    assert wait_until(lambda: task.read_text().split() != [])
    (inner,) = task.read_text().split()
    return int(inner)


def test_the_referees_own_children_keep_their_exit_codes(spawn: Spawn) -> None:
    bot = orphan_bot(spawn, "sh", "-c", "exit 7")
    plain = subprocess.Popen(["sh", "-c", "exit 5"])  # in our process group
    assert bot.wait(10) and wait_until(lambda: our_child_state(plain.pid) == "Z")
    orphan = exited_orphan()
    assert REGISTRY.reap_orphans() >= 1  # it looks past the exited children it must keep
    assert our_child_state(orphan) is None
    assert plain.wait(10) == 5
    bot.kill()
    assert bot.describe_exit() == "exited with code 7"


def test_no_orphan_is_reaped_while_a_bot_is_starting() -> None:
    with REGISTRY.starting():  # a starting bot's child, not claimed yet, could be any
        orphan = exited_orphan()
        assert REGISTRY.reap_orphans() == 0
        assert our_child_state(orphan) == "Z"
    assert REGISTRY.reap_orphans() >= 1
    assert our_child_state(orphan) is None


PID_ONE = textwrap.dedent("""
    import os, sys
    from referee.cli.main import main
    assert os.getpid() == 1
    for seed in range(3):
        try:
            main(["play", "rage", "--seed", str(seed), *sys.argv[1:]])
        except SystemExit as done:
            assert not done.code, done.code
    states = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            states.append(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[0])
        except OSError:
            pass
    print(states.count("Z"), file=sys.stderr)
""")


def unshare_works() -> bool:
    try:
        return subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not unshare_works(), reason="no new PID namespace allowed here")
def test_a_referee_that_is_pid_1_leaves_no_zombies_after_its_games() -> None:
    bots = ["python bots/rage_random.py", "python bots/rage_heuristic.py",
            "python bots/rage_random.py"]
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable,
                           "-c", PID_ONE, *bots], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    # Each game kills its 3 bots. With cgroups each kill waits for bwrap's inner process
    # to die and reaps it; without, the last game's may still be dying when counted.
    most = 0 if bot_process.CgroupRoot.find() is not None else len(bots)
    assert int(done.stderr.splitlines()[-1]) <= most, done.stderr
