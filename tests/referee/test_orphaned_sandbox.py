"""A referee (or pool worker) SIGKILLed at the worst moment leaves no sandbox behind.

bwrap's process inside a sandbox (its PID namespace's init) has no parent-death signal
while it sets the sandbox up. Killed then, the referee's outer bwrap dies with it, and
the inner one is left under init for good (referee.processes.sentinel). Here a real bwrap
is made to stop at that moment: its --info-fd is a full pipe, so the outer bwrap blocks
after its clone, before it lets the inner one go on, and the inner one waits for it
forever. And a referee killed while it holds a bot's cgroup frozen (to kill it) leaves
the group frozen, where not even SIGKILL ends a process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.processes.cgroups import CgroupRoot
from referee.processes.sandbox import sandbox_problem
from tests.referee.fault_bots.support import alive, wait_until

pytestmark = pytest.mark.skipif(sandbox_problem() is not None,
                                reason=f"no sandbox here: {sandbox_problem()}")

# Runs as the bot's "bwrap": a pipe filled to the brim as bwrap's --info-fd, then bwrap.
STALLED_BWRAP = textwrap.dedent("""
    import os, shutil, sys
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write_end, True)
    os.set_inheritable(read_end, True)  # no reader: bwrap's write would end it
    os.set_inheritable(write_end, True)
    bwrap = shutil.which("bwrap")
    os.execv(bwrap, [bwrap, "--info-fd", str(write_end), *sys.argv[1:]])
""")

HOST = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from referee.processes import bot_process
    from referee.processes.bot_command import BotCommand
    from referee.processes.bot_process import BotProcess
    from referee.processes.cgroups import CgroupRoot
    from referee.processes.sandbox import View
    from referee.settings import ResourceLimits
    mode, stalled = sys.argv[1], sys.argv[2]
    if mode == "stall-no-cgroups":
        CgroupRoot.find = classmethod(lambda cls: None)
    if mode.startswith("stall"):
        real = bot_process.sandbox_argv
        bot_process.sandbox_argv = lambda fd, command: [
            sys.executable, "-c", stalled, *real(fd, command)[1:]]
    cmd = BotCommand("bot", ("sleep", "120"), stdio=True)
    bot = BotProcess.spawn(cmd, {}, ResourceLimits(), Path(os.devnull), View(cwd=Path("/")))
    print(bot.pid, flush=True)
    if mode == "frozen":
        deadline = time.monotonic() + 60
        while len(bot.cgroup.pids()) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)  # bwrap, its init, and sleep (setpriv execs it)
        v1 = bot.cgroup.version == 1
        freezer = bot.cgroup.dirs[3] / "freezer.state" if v1 else \
            bot.cgroup.dirs[0] / "cgroup.freeze"
        freezer.write_text("FROZEN" if v1 else "1")
        print(freezer, flush=True)
        print(*bot.cgroup.pids(), flush=True)
    time.sleep(120)
""")


class Host:
    """A referee-like process with one sandboxed bot, and every pid the test saw."""

    def __init__(self, mode: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        self.process = subprocess.Popen([sys.executable, "-c", HOST, mode, STALLED_BWRAP],
                                        stdout=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        self.bot = int(self.process.stdout.readline())
        self.seen = [self.bot]
        self.freezer: Path | None = None

    def read_frozen(self) -> list[int]:
        """The pids of the bot's frozen cgroup."""
        assert self.process.stdout is not None
        self.freezer = Path(self.process.stdout.readline().strip())
        pids = [int(word) for word in self.process.stdout.readline().split()]
        self.seen += pids
        return pids

    def sigkill(self) -> None:
        self.process.kill()
        self.process.wait(30)


@pytest.fixture
def hosts() -> Iterator[list[Host]]:
    made: list[Host] = []
    yield made
    for host in made:  # whatever a failing test left behind
        host.process.kill()
        host.process.communicate()
        if host.freezer is not None and host.freezer.exists():  # a frozen one cannot die
            host.freezer.write_text("THAWED" if host.freezer.name == "freezer.state" else "0")
        for pid in host.seen:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def children(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            found.append(int(entry))
    return found


@pytest.mark.parametrize("mode", ["stall", "stall-no-cgroups"])
def test_a_sandbox_cut_short_in_its_set_up_dies_with_its_sigkilled_referee(
        hosts: list[Host], mode: str) -> None:
    if mode == "stall" and CgroupRoot.find() is None:
        pytest.skip("no cgroup for bots here")
    host = Host(mode)
    hosts.append(host)
    # The inner bwrap, cloned and waiting for the outer one, which waits on its full pipe.
    assert wait_until(lambda: len(children(host.bot)) == 1, timeout=60)
    inner = children(host.bot)[0]
    host.seen.append(inner)
    host.sigkill()
    assert wait_until(lambda: not alive(host.bot), timeout=30)
    assert wait_until(lambda: not alive(inner), timeout=30), "the sandbox outlived it"


def test_a_bot_whose_cgroup_its_sigkilled_referee_froze_dies_too(hosts: list[Host]) -> None:
    if CgroupRoot.find() is None:
        pytest.skip("no cgroup for bots here")
    host = Host("frozen")
    hosts.append(host)
    frozen = host.read_frozen()
    assert len(frozen) == 3 and all(alive(pid) for pid in frozen)
    host.sigkill()
    assert wait_until(lambda: not any(alive(pid) for pid in frozen), timeout=30)
