"""The sweep of killed referees' cgroup roots removes only roots whose owner is provably
gone: never a live referee's, not even one in another PID namespace, which cannot be seen
from here (referee.processes.cgroup_owners)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.processes import cgroup_owners, cgroups
from referee.processes.cgroup_owners import Liveness, Owner, this_process
from tests.referee.test_orphans import ROOT, unshare_works

# A referee process as far as its cgroup root goes: it makes its root (sweeping stale
# ones), says where, makes a bot group for each "group" line, and at end of input exits
# (removing its root) or, given "killed", ends as a killed referee would: no exit hooks.
REFEREE = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    from referee.processes import cgroups
    if sys.argv[1] != "real":
        tree = Path(sys.argv[1])
        cgroups._cgroup_mounts = lambda: {c: (tree / c, "/") for c in cgroups._V1_CONTROLLERS}
        cgroups._own_groups = lambda: {c: "/" for c in cgroups._V1_CONTROLLERS}
    root = cgroups.CgroupRoot.find()
    print(json.dumps(None if root is None else [str(p) for p in root.parents]), flush=True)
    for line in sys.stdin:
        group = root.new_group(None, None)
        print(json.dumps(all(folder.is_dir() for folder in group.dirs)), flush=True)
        group.remove()
    if sys.argv[2:] == ["killed"]:
        os._exit(9)
""")


class Referee:
    """A REFEREE process on `tree` ("real": this machine's cgroups), in a new PID
    namespace of its own if asked."""

    def __init__(self, tree: str, *, killed: bool = False, new_namespace: bool = False
                 ) -> None:
        unshare = ["unshare", "--pid", "--fork", "--mount-proc"] if new_namespace else []
        self.process = subprocess.Popen(
            [*unshare, sys.executable, "-c", REFEREE, tree, *(["killed"] if killed else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.process.stdout is not None
        self.roots = [Path(p) for p in json.loads(self.process.stdout.readline())]
        assert self.roots, "no root made"

    def makes_a_group(self) -> bool:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("group\n")
        self.process.stdin.flush()
        return bool(json.loads(self.process.stdout.readline()))

    def end(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(60)


@pytest.fixture
def referees() -> Iterator[list[Referee]]:
    """Referees a test starts: ended afterwards, and any root they left removed."""
    started: list[Referee] = []
    yield started
    for referee in started:
        referee.end()
        for root in referee.roots:
            cgroups._rmdir_quietly(root)


def real_cgroups() -> bool:
    return cgroups.CgroupRoot.find() is not None


@pytest.fixture(params=["fake", "real"])
def tree(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the referees make their roots: a fake v1 tree in tmp_path, or this machine's."""
    if request.param == "real":
        if not real_cgroups():
            pytest.skip("this machine lets the referee make no cgroup")
        return "real"
    for controller in cgroups._V1_CONTROLLERS:
        (tmp_path / controller).mkdir()
    return str(tmp_path)


def exist(roots: list[Path]) -> list[bool]:
    return [root.is_dir() for root in roots]


@pytest.mark.skipif(not unshare_works(), reason="no new PID namespace allowed here")
def test_a_referee_in_another_pid_namespace_sweeps_no_live_referees_root(
        tree: str, referees: list[Referee]) -> None:
    live = Referee(tree)  # no bot yet: its root is empty, and its pid unseen from there
    referees.append(live)
    dead = Referee(tree, killed=True)
    referees.append(dead)
    dead.end()  # its root is left behind
    other = Referee(tree, new_namespace=True)
    referees.append(other)
    assert Owner.of_root(other.roots[0].name) != Owner.of_root(live.roots[0].name)
    assert all(exist(live.roots + dead.roots))  # neither is provably gone there
    assert live.makes_a_group()
    ours = Referee(tree)  # our namespace: it sees the dead one is gone, the others live
    referees.append(ours)
    assert not any(exist(dead.roots))
    assert all(exist(live.roots + other.roots + ours.roots))
    assert other.makes_a_group() and live.makes_a_group()
    for referee in (live, other, ours):
        referee.end()
        assert not any(exist(referee.roots))  # each removes its own at its exit


def pid_of_a_finished_process() -> tuple[int, int]:
    """The pid and start time of a process of ours that has ended and been reaped."""
    child = subprocess.Popen(["sleep", "60"])
    start = cgroup_owners._start_time(str(child.pid))
    child.kill()
    child.wait()
    assert start is not None
    return child.pid, start


def unused_namespace() -> int:
    """A PID namespace inode that no process is in (dynamic ones count up from 2**32 -
    2**28; freed ones are reused by the next namespace made, so a real dead one would not
    stay unused)."""
    namespace = 0xF0000000 + 50_000_000
    assert namespace not in cgroup_owners._namespaces_in_use()
    return namespace


def sweep(tmp_path: Path, *owners: Owner | str) -> list[bool]:
    """Make a root (each with an empty bot group) per owner or name in tmp_path, sweep it
    as this process would, and say which roots are left."""
    names = [o if isinstance(o, str) else o.root_name for o in owners]
    for name in names:
        (tmp_path / name / "bot-1").mkdir(parents=True)
    cgroups._sweep_stale(tmp_path, Liveness(this_process()))
    return [(tmp_path / name).exists() for name in names]


def test_our_namespaces_roots_are_swept_once_their_referee_is_gone(tmp_path: Path) -> None:
    me = this_process()
    pid, start = pid_of_a_finished_process()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        sleeper_start = cgroup_owners._start_time(str(sleeper.pid)) or 0
        alive = Owner(me.namespace, sleeper.pid, sleeper_start)
        # A pid reused: the process that has it now started later than the root's owner.
        reused = Owner(me.namespace, sleeper.pid, max(sleeper_start - 1, 1))
        left = sweep(tmp_path, me, alive, Owner(me.namespace, pid, start), reused,
                     f"referee-{pid}", "referee-test-1", f"referee-{me.namespace}-{pid}")
    finally:
        sleeper.kill()
        sleeper.wait()
    boot_clock = cgroup_owners._boot_clock_is_the_hosts()
    # ours and the live one's stay; other names (an older referee's) are not ours to judge
    assert left == [True, True, False, not boot_clock, True, True, True]


@pytest.mark.skipif(this_process().namespace != cgroup_owners._INITIAL_PID_NAMESPACE
                    or os.geteuid() != 0, reason="needs root in the initial PID namespace")
def test_roots_of_a_namespace_nobody_is_in_are_swept_only_from_the_initial_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    me = this_process()
    gone = Owner(unused_namespace(), 1, me.start)
    # A live foreign namespace: any other process's, else (none here) a made-up stand-in.
    others = cgroup_owners._namespaces_in_use() - {me.namespace}
    foreign = Owner(min(others) if others else me.namespace + 1, 1, me.start)
    if not others:
        monkeypatch.setattr(cgroup_owners, "_namespaces_in_use",
                            lambda: {me.namespace, foreign.namespace})
    assert sweep(tmp_path, gone, foreign) == [False, True]
    elsewhere = Owner(foreign.namespace, me.pid, me.start)  # as a referee in `foreign`
    assert not Liveness(elsewhere).gone(Owner(unused_namespace(), 1, me.start))
