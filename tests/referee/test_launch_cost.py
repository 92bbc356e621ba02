"""What a bot's start does once per process instead of at every start, and that the
protections stay whole: bwrap and setpriv are found on PATH once, the sandbox's binds are
worked out once per bot folder, and the cgroup kill still takes a forking group whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.errors import BotStartError
from referee.processes import sandbox
from referee.processes.bot_command import BotCommand
from referee.processes.bot_process import BotProcess
from referee.processes.cgroups import CgroupRoot
from referee.processes.sandbox import View, bwrap_argv, package_root, sandbox_problem
from referee.settings import ResourceLimits
from tests.referee.fault_bots.support import alive, wait_until

NO_LIMITS = ResourceLimits(memory_mb=None, cpu_seconds=None, processes=None)
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")


@needs_sandbox
def test_bwrap_runs_from_the_path_found_once_not_by_a_search_at_each_start(
        spawned: list[BotProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap_argv(View(cwd=Path("/")), ["true"])  # bwrap found: the sandbox is used here
    # A PATH where no bwrap is: a start that looked it up again would fail.
    monkeypatch.setenv("PATH", str(tmp_path))
    cmd = BotCommand("bot", ("/bin/sh", "-c", "echo started"), stdio=True)
    bot = BotProcess.spawn(cmd, {"PATH": "/usr/bin:/bin"}, NO_LIMITS, Path(os.devnull),
                           View(cwd=Path("/")))
    spawned.append(bot)
    assert bot.stdout is not None and bot.stdout.read() == b"started\n"


def test_the_binds_are_worked_out_once_per_bot_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    resolved: list[str] = []
    realpath = os.path.realpath

    def counted(path: str | os.PathLike[str]) -> str:
        resolved.append(os.fspath(path))
        return realpath(path)

    monkeypatch.setattr(sandbox.os.path, "realpath", counted)
    once = bwrap_argv(View(cwd=Path("/"), bot_folder=first), ["bot"])
    assert str(first) in resolved
    resolved.clear()
    assert bwrap_argv(View(cwd=Path("/"), bot_folder=first), ["bot"]) == once
    assert resolved == []  # nothing resolved again
    other = bwrap_argv(View(cwd=Path("/"), bot_folder=second), ["bot"])
    assert str(second) in resolved
    assert ["--ro-bind", str(second), str(second)] == \
        other[other.index(str(second)) - 1:other.index(str(second)) + 2]
    assert str(first) not in other


def test_a_worked_out_sandbox_is_the_one_worked_out_afresh(tmp_path: Path) -> None:
    logs, within = tmp_path / "logs", package_root() / "referee" / "processes"
    logs.mkdir()
    view = View(cwd=tmp_path, bot_folder=tmp_path, secrets=(logs,), extra_dirs=(within,))
    cached = bwrap_argv(view, ["bot"])
    sandbox._read_only_binds.cache_clear()
    assert bwrap_argv(view, ["bot"]) == cached
    assert cached[cached.index(str(tmp_path)) - 1] == "--ro-bind"
    assert cached[cached.index(str(logs)) - 1] == "--tmpfs"  # the secret stays hidden
    assert str(within) not in cached  # under the packages' folder, which is shown


def test_a_bot_folder_of_slash_is_refused_at_every_start() -> None:
    for _ in range(2):
        with pytest.raises(BotStartError, match="cannot be /"):
            bwrap_argv(View(cwd=Path("/"), bot_folder=Path("/")), ["bot"])


FORKER = ("setsid sh -c 'while :; do sleep 100 & done' & echo $!; exec sleep 100")


@pytest.mark.skipif(CgroupRoot.find() is None, reason="no cgroup for bots here")
def test_the_kill_takes_a_group_that_keeps_forking_whole(spawned: list[BotProcess]) -> None:
    limits = ResourceLimits(memory_mb=None, cpu_seconds=None, processes=40)
    bot = BotProcess.spawn(BotCommand("bot", ("sh", "-c", FORKER), stdio=True),
                           dict(os.environ), limits, Path(os.devnull))
    spawned.append(bot)
    assert bot.stdout is not None and bot.cgroup is not None
    forker = int(bot.stdout.readline())
    assert wait_until(lambda: len(bot.cgroup.pids()) >= 20)  # type: ignore[union-attr]
    inside = bot.cgroup.pids()
    bot.kill()
    assert wait_until(lambda: not any(alive(pid) for pid in [forker, *inside]))
    assert not any(folder.exists() for folder in bot.cgroup.dirs)
