"""Bot processes: own group, limits, exit detection, group kill, and the exit registry."""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from referee.processes import bot_process, live_bots, rlimits
from referee.processes.bot_command import BotCommand
from referee.processes.bot_process import BotProcess
from referee.errors import BotStartError
from referee.settings import ResourceLimits
from tests.referee.fault_bots.support import alive, argv_command, group_members, wait_until
from tests.referee.conftest import Spawn

NO_LIMITS = ResourceLimits(memory_mb=None, cpu_seconds=None, processes=None)


def read_all(process: BotProcess) -> str:
    assert process.stdout is not None
    return process.stdout.read().decode()


def test_bot_leads_its_own_process_group(spawn: Spawn) -> None:
    process = spawn(argv_command("sleep", "30"))
    assert os.getpgid(process.pid) == process.pid != os.getpgrp()


def test_exit_code_and_description_of_a_normal_exit(spawn: Spawn) -> None:
    process = spawn(argv_command("sh", "-c", "sleep 0.1; exit 3"))
    assert not process.exited()
    assert process.exit_code is None
    assert process.describe_exit() == "still running"
    assert process.wait(3.0)
    assert process.exit_code == 3
    assert process.describe_exit() == "exited with code 3"


def test_exit_fd_becomes_readable_when_the_process_exits(spawn: Spawn) -> None:
    process = spawn(argv_command("sh", "-c", "sleep 0.2"))
    fd = process.exit_fd()
    assert fd is not None
    assert select.select([fd], [], [], 0)[0] == []
    assert select.select([fd], [], [], 3.0)[0] == [fd]
    assert process.exited()


def test_kill_reports_the_signal_and_is_idempotent(spawn: Spawn) -> None:
    process = spawn(argv_command("sleep", "30"))
    process.kill()
    process.kill()
    assert process.exit_code == -signal.SIGKILL
    assert process.describe_exit() == "killed by SIGKILL"
    assert process.exit_fd() is None
    assert process not in live_bots.live_processes()


def test_kill_after_a_normal_exit_keeps_the_exit_code(spawn: Spawn) -> None:
    process = spawn(argv_command("sh", "-c", "exit 5"))
    assert process.wait(3.0)
    process.kill()
    assert process.exit_code == 5


def test_kill_takes_the_whole_group_even_after_the_leader_exited(
        spawn: Spawn) -> None:
    cmd = argv_command("sh", "-c", "sleep 30 & echo $!", stdio=True)
    process = spawn(cmd)
    assert process.stdout is not None
    child = int(process.stdout.readline())  # the leader exits; its child sleeps on
    assert process.wait(3.0)
    assert alive(child)
    process.kill()
    assert wait_until(lambda: not alive(child))
    assert group_members(process.pid) == []


def test_live_processes_lists_a_process_until_it_is_killed(spawn: Spawn) -> None:
    process = spawn(argv_command("sleep", "30"))
    assert process in live_bots.live_processes()
    process.kill()
    assert process not in live_bots.live_processes()


_LIMITS_PROBE = textwrap.dedent("""
    import ctypes, json, resource as r
    deathsig = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(deathsig), 0, 0, 0)  # PR_GET_PDEATHSIG
    print(json.dumps([r.getrlimit(r.RLIMIT_AS), r.getrlimit(r.RLIMIT_CPU),
                      r.getrlimit(r.RLIMIT_CORE), r.getrlimit(r.RLIMIT_NPROC)[0],
                      r.getrlimit(r.RLIMIT_NOFILE), r.getrlimit(r.RLIMIT_FSIZE),
                      deathsig.value]))
""")
_GREEDY = "import sys\ntry:\n    b = bytearray(400 << 20)\nexcept MemoryError:\n    sys.exit(9)"


@pytest.fixture
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine where the referee may not make cgroups."""
    monkeypatch.setattr(bot_process.CgroupRoot, "find", classmethod(lambda cls: None))


needs_cgroups = pytest.mark.skipif(bot_process.CgroupRoot.find() is None,
                                   reason="this machine lets the referee make no cgroup")


def test_rlimits_and_parent_death_signal_are_set_in_the_bot_without_cgroups(
        spawn: Spawn, no_cgroups: None) -> None:
    limits = ResourceLimits(memory_mb=512, cpu_seconds=7, processes=10, open_files=50,
                            file_mb=3)
    process = spawn(argv_command("python", "-c", _LIMITS_PROBE, stdio=True), limits=limits)
    memory, cpu, core, nproc, files, size, deathsig = json.loads(read_all(process))
    assert process.cgroup is None
    assert memory == [512 << 20, 512 << 20]
    assert cpu == [7, 8]  # SIGXCPU at the soft limit, SIGKILL a second later
    assert core == [0, 0]
    assert nproc > 10  # the machine's current thread count plus the limit
    assert files == [50, 50]
    assert size == [3 << 20, 3 << 20]
    assert deathsig == signal.SIGKILL


@needs_cgroups
def test_a_cgroup_holds_memory_and_processes_for_all_of_a_bots_processes(
        spawn: Spawn) -> None:
    limits = ResourceLimits(memory_mb=512, cpu_seconds=7, processes=10)
    process = spawn(argv_command("python", "-c", _LIMITS_PROBE, stdio=True), limits=limits)
    memory, cpu, _, _, _, _, deathsig = json.loads(read_all(process))
    group = process.cgroup
    assert group is not None
    assert memory[0] == resource.RLIM_INFINITY  # the cgroup counts memory, not each process
    assert cpu == [7, 8]
    assert deathsig == signal.SIGKILL
    limit_files = [d / n for d in group.dirs for n in ("memory.limit_in_bytes", "memory.max")
                   if (d / n).exists()]
    assert int(limit_files[0].read_text()) == 512 << 20
    pids_max = [d / "pids.max" for d in group.dirs if (d / "pids.max").exists()]
    assert int(pids_max[0].read_text()) == 10 + 2  # bwrap and the sandbox's init


def test_memory_limit_stops_a_greedy_bot_without_cgroups(
        spawn: Spawn, no_cgroups: None) -> None:
    limits = ResourceLimits(memory_mb=200, cpu_seconds=None, processes=None)
    process = spawn(argv_command("python", "-c", _GREEDY), limits=limits)
    assert process.wait(10.0)
    assert process.exit_code == 9


@needs_cgroups
def test_memory_limit_kills_a_greedy_bot_and_says_so(spawn: Spawn) -> None:
    limits = ResourceLimits(memory_mb=200, cpu_seconds=None, processes=None)
    process = spawn(argv_command("python", "-c", _GREEDY), limits=limits)
    assert process.wait(10.0)
    assert process.describe_exit() == "killed by SIGKILL (over its memory limit)"


def test_cpu_limit_stops_a_spinning_bot_with_sigxcpu(spawn: Spawn) -> None:
    limits = ResourceLimits(memory_mb=None, cpu_seconds=1, processes=None)
    process = spawn(argv_command("python", "-c", "while True: pass"), limits=limits)
    assert process.wait(10.0)
    assert process.describe_exit() == "killed by SIGXCPU"


def test_stderr_is_appended_to_the_file_with_a_zeromq_bots_stdout(
        spawn: Spawn, tmp_path: Path) -> None:
    log = tmp_path / "bot.err"
    log.write_text("earlier\n")
    script = "import sys; print('to stdout', flush=True); print('to stderr', file=sys.stderr)"
    process = spawn(argv_command("python", "-c", script), stderr=log)
    assert process.wait(5.0)
    process.kill()  # the exit can come before the sink's thread reads the pipe: kill drains it
    assert log.read_text().splitlines() == ["earlier", "to stdout", "to stderr"]


def test_a_command_that_cannot_start_raises_bot_start_error(tmp_path: Path) -> None:
    cmd = BotCommand("gone", (str(tmp_path / "gone"),), stdio=False)
    with pytest.raises(BotStartError, match="cannot start bot"):
        BotProcess.spawn(cmd, {}, NO_LIMITS, None)


ESCAPER = argv_command("sh", "-c", "setsid sleep 60 & echo $!; wait", stdio=True)


def escaped_child(process: BotProcess) -> int:
    """The pid of the child that ESCAPER put in a session of its own, once it is there."""
    assert process.stdout is not None
    child = int(process.stdout.readline())
    assert wait_until(lambda: os.getsid(child) == child)
    return child


@needs_cgroups
def test_kill_takes_a_child_that_left_the_group_by_the_cgroup_without_a_proc_sweep(
        spawn: Spawn, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_sweep(pgid: int, tag: bytes) -> None:
        raise AssertionError("a /proc sweep for a bot that has a cgroup")

    monkeypatch.setattr(bot_process, "kill_group_and_tagged", no_sweep)
    process = spawn(ESCAPER)
    child = escaped_child(process)
    process.kill()
    assert wait_until(lambda: not alive(child))


def test_kill_takes_a_child_that_left_the_group_by_its_tag_without_cgroups(
        spawn: Spawn, no_cgroups: None) -> None:
    process = spawn(ESCAPER)
    child = escaped_child(process)
    process.kill()
    assert wait_until(lambda: not alive(child))


def test_machine_thread_count_is_at_least_this_process_threads() -> None:
    assert rlimits.machine_thread_count() >= len(os.listdir("/proc/self/task")) >= 1


HOST = textwrap.dedent("""
    import os, sys, time
    from referee.processes.bot_command import BotCommand
    from referee.processes.bot_process import BotProcess
    from referee.settings import ResourceLimits
    script = "setsid sleep 60 & echo $!; wait" if sys.argv[1] == "escape" else \
        "sleep 60 & echo $!; wait"
    cmd = BotCommand("bot", ("sh", "-c", script), stdio=True)
    bot = BotProcess.spawn(cmd, dict(os.environ), ResourceLimits(), None)
    print(bot.pid, int(bot.stdout.readline()), flush=True)
    if sys.argv[1] in ("wait", "escape"):
        time.sleep(60)
""")


@pytest.fixture
def host() -> Iterator[Callable[[str], tuple[subprocess.Popen[str], int, int]]]:
    """Start a referee-like process that spawns one bot with a child; print both pids."""
    started: list[int] = []
    hosts: list[subprocess.Popen[str]] = []

    def start(mode: str) -> tuple[subprocess.Popen[str], int, int]:
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        proc = subprocess.Popen([sys.executable, "-c", HOST, mode], stdout=subprocess.PIPE,
                                text=True, env=env)
        hosts.append(proc)
        assert proc.stdout is not None
        bot, child = map(int, proc.stdout.readline().split())
        started.extend((bot, child))
        return proc, bot, child

    yield start
    for proc in hosts:
        proc.kill()
        proc.communicate()  # reaps it and closes its pipe
    for pid in started:  # whatever a failing test left behind
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


HostStarter = Callable[[str], tuple[subprocess.Popen[str], int, int]]


def test_registry_kills_bot_groups_at_interpreter_exit(host: HostStarter) -> None:
    proc, bot, child = host("exit")
    assert proc.wait(10) == 0
    assert wait_until(lambda: not alive(bot) and not alive(child))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_registry_kills_bot_groups_on_termination_signals(
        host: HostStarter, signum: signal.Signals) -> None:
    proc, bot, child = host("wait")
    proc.send_signal(signum)
    assert proc.wait(10) != 0  # the previous handler (or the default action) still runs
    assert wait_until(lambda: not alive(bot) and not alive(child))


def test_bot_and_its_children_die_with_a_sigkilled_referee(host: HostStarter) -> None:
    """PR_SET_PDEATHSIG kills the bot's main process; the sentinel, its group."""
    proc, bot, child = host("wait")
    proc.kill()
    proc.wait(10)
    assert wait_until(lambda: not alive(bot) and not alive(child))


def test_a_child_that_left_the_group_dies_with_a_sigkilled_referee(host: HostStarter) -> None:
    """The sentinel also sweeps the bot's tag: a setsid child does not escape."""
    proc, bot, child = host("escape")
    assert wait_until(lambda: os.getsid(child) == child)  # once setsid has run
    proc.kill()
    proc.wait(10)
    assert wait_until(lambda: not alive(bot) and not alive(child))
