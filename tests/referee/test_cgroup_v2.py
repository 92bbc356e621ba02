"""cgroup v2, for real where this machine allows it, on a fake tree where it cannot.

A machine with cgroup v1 (as the one these tests were written on) still has a cgroup2
hierarchy: as root, in a private mount namespace (unshare -m), the v1 hierarchies are
unmounted and cgroup2 is mounted at /sys/fs/cgroup, as on a v2-only machine. There the
referee's own code makes bot groups and enters, counts, kills (cgroup.kill, a frozen
group too) and removes them. What such a machine cannot show is a limit: the memory and
pids controllers are bound to their v1 hierarchies, so the v2 one lacks them, and
`CgroupRoot.find()` rightly gives None there (bots fall back to rlimits). The limits'
files, and the set-up `find()` does where the controllers are there, are checked on a
fake tree in tmp_path: names and values only, nothing a kernel enforces.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee.processes import cgroups
from referee.processes.cgroup_owners import this_process

V2_MACHINE = textwrap.dedent("""
    import json, os, subprocess, sys, time
    from pathlib import Path
    subprocess.run(["umount", "-R", "/sys/fs/cgroup"], check=True)  # only in this namespace
    subprocess.run(["mount", "-t", "cgroup2", "none", "/sys/fs/cgroup"], check=True)
    from referee.processes import cgroups
    from referee.processes.bot_command import BotCommand
    from referee.processes.bot_process import BotProcess
    from referee.processes.cgroups import CgroupRoot
    from referee.processes.sandbox import View, sandbox_problem
    from referee.settings import ResourceLimits
    result = {"controllers": Path("/sys/fs/cgroup/cgroup.controllers").read_text().split()}
    found = CgroupRoot.find()
    result["found"] = None if found is None else found.version
    if found is not None:
        found.kill_all()
    root = CgroupRoot(2, (Path(f"/sys/fs/cgroup/referee-test-{os.getpid()}"),))
    root.parents[0].mkdir()
    CgroupRoot.find = classmethod(lambda cls: root)
    NONE = ResourceLimits(memory_mb=None, cpu_seconds=None, processes=None)

    def alive(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def gone(pids):
        # cgroup.kill is asynchronous: a process may still be exiting just after it.
        deadline = time.monotonic() + 10
        while any(map(alive, pids)) and time.monotonic() < deadline:
            time.sleep(0.01)
        return not any(map(alive, pids))

    def spawn(script, view=None):
        cmd = BotCommand("bot", ("sh", "-c", script), stdio=True)
        return BotProcess.spawn(cmd, dict(os.environ), NONE, Path(os.devnull), view)

    try:
        # A bot whose child left its group: the group holds both, the kill takes both.
        bot = spawn("setsid sleep 60 & echo $!; exec sleep 60")
        escaped = int(bot.stdout.readline())
        result["holder"] = bot.limits_holder
        result["counted"] = sorted(bot.cgroup.pids()) == sorted([bot.pid, escaped])
        bot.kill()
        result["killed"] = gone([bot.pid, escaped])
        result["removed"] = not any(d.exists() for d in bot.cgroup.dirs)
        # CPU time of all of a bot's processes, as --clock cpu reads it.
        burn = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass"
        bot = spawn(f"{sys.executable} -c '{burn}' & {sys.executable} -c '{burn}'; wait")
        bot.wait(60)
        result["cpu"] = bot.cgroup.cpu_seconds()
        bot.kill()
        if sandbox_problem() is None:  # the same for a sandboxed bot
            bot = spawn("sleep 60 & exec sleep 60", View(cwd=Path("/")))
            deadline = time.monotonic() + 60
            while len(bot.cgroup.pids()) < 4 and time.monotonic() < deadline:
                time.sleep(0.01)  # bwrap, its init and two sleeps
            inside = bot.cgroup.pids()
            bot.kill()
            result["sandboxed"] = [len(inside), not gone(inside)]
        # A frozen group, as a referee killed mid-kill leaves it: the sentinel's kill_all.
        bot = spawn("exec sleep 60")
        (bot.cgroup.dirs[0] / "cgroup.freeze").write_text("1")
        while "frozen 1" not in (bot.cgroup.dirs[0] / "cgroup.events").read_text():
            time.sleep(0.01)
        frozen = bot.cgroup.pids()
        root.kill_all()
        time.sleep(0.1)
        result["frozen"] = [len(frozen), any(map(alive, frozen)), root.parents[0].exists()]
        bot.kill()  # reaps it
    finally:
        root.kill_all()
    print(json.dumps(result))
""")


def private_mounts_work() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                          capture_output=True, check=False)
    return done.returncode == 0 and Path("/proc/self/ns/cgroup").exists()


@pytest.mark.skipif(not private_mounts_work(), reason="needs root and unshare -m")
def test_bot_groups_on_a_real_cgroup2_hierarchy() -> None:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable,
                           "-c", V2_MACHINE], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    with_limits = {"memory", "pids"} <= set(result["controllers"])
    assert result["found"] == (2 if with_limits else None)
    assert result["holder"] == "cgroup v2"
    assert result["counted"] and result["killed"] and result["removed"]
    assert result["cpu"] >= 0.4  # two processes of 0.3 s each, less the clock's grain
    if "sandboxed" in result:
        assert result["sandboxed"] == [4, False]
    assert result["frozen"] == [1, False, False]


def fake_v2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, controllers: str) -> Path:
    """A folder that looks like this process's group on a v2-only machine."""
    (tmp_path / "cgroup.controllers").write_text(controllers)
    monkeypatch.setattr(cgroups, "_cgroup_mounts", lambda: {"": (tmp_path, "/")})
    monkeypatch.setattr(cgroups, "_own_groups", lambda: {"": "/"})
    return tmp_path


def test_on_v2_the_bots_parent_enables_the_controllers_and_each_bot_gets_its_limits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_v2(tmp_path, monkeypatch, "cpuset cpu io memory hugetlb pids rdma misc\n")
    root = cgroups._make_root()
    assert root is not None and root.version == 2
    assert root.parents == (tmp_path / this_process().root_name,)
    assert (root.parents[0] / "cgroup.subtree_control").read_text() == \
        "+memory +pids +cpu +cpuset"
    group = root.new_group(64 << 20, 10)
    pinned = (group.dirs[0] / "cpuset.cpus").read_text().split(",")
    assert {int(cpu) for cpu in pinned} == os.sched_getaffinity(0)  # the referee's CPUs
    assert len(group.dirs) == 1 and group.dirs[0].parent == root.parents[0]
    folder = group.dirs[0]
    assert (folder / "memory.max").read_text() == str(64 << 20)
    assert (folder / "memory.swap.max").read_text() == "0"  # no swapping past the limit
    assert (folder / "pids.max").read_text() == "12"  # and bwrap and the sandbox's init
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (folder / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
    assert group.oom_killed() and group.cpu_seconds() == 1.5


def test_on_v2_without_the_memory_controller_bots_have_no_cgroup(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_v2(tmp_path, monkeypatch, "cpu io pids\n")
    assert cgroups._make_root() is None
    assert not list(tmp_path.glob("referee-*"))
