"""A referee without libseccomp: its sandboxes lack the seccomp filter (against shared
keyrings, locks and watches, and as root against user namespaces). `--sandbox auto` says so in one warning line and plays on; `--sandbox on`
refuses with one error line, before any bot starts. The library is hidden from the
loader (ctypes.util.find_library), as on a machine without it."""

from __future__ import annotations

import ctypes.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.processes import sandbox, sandbox_filter
from referee.processes.sandbox import SandboxMode, sandbox_enabled, sandbox_problem
from tests.cli_support import assert_bad_input, run_main

BOT = "stdio:bots/rage_first.sh"


@pytest.fixture
def no_libseccomp(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    find = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, "find_library",
                        lambda name: None if name == "seccomp" else find(name))
    sandbox_filter._filter_or_problem.cache_clear()  # built once per process: again
    yield
    monkeypatch.undo()
    sandbox_filter._filter_or_problem.cache_clear()


needs_root = pytest.mark.skipif(not sandbox.running_as_root(),
                                reason="only a root referee needs the filter")
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")


@needs_root
def test_without_libseccomp_the_weakness_names_the_package(no_libseccomp: None) -> None:
    assert sandbox_filter.sandbox_filter(userns=True) is None
    weakness = sandbox.sandbox_weakness()
    assert weakness is not None and "libseccomp2" in weakness and "seccomp" in weakness


def test_a_referee_that_is_not_root_needs_the_filter_too(
        no_libseccomp: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """bwrap's --disable-userns forbids user namespaces there, but nothing else closes
    the keyrings, locks and watches that sandboxes share."""
    monkeypatch.setattr(sandbox, "running_as_root", lambda: False)
    weakness = sandbox.sandbox_weakness()
    assert weakness is not None and "libseccomp2" in weakness


@needs_root
@needs_sandbox
def test_sandbox_on_refuses_and_auto_sandboxes_without_the_filter(no_libseccomp: None) -> None:
    with pytest.raises(ConfigError, match="--sandbox on: no seccomp filter"):
        sandbox_enabled(SandboxMode.ON)
    assert sandbox_enabled(SandboxMode.AUTO)


@needs_root
@needs_sandbox
def test_play_with_sandbox_on_is_one_error_line(no_libseccomp: None, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert_bad_input(["play", "rage", "--sandbox", "on", "--seed", "1", "--log", str(log),
                      BOT, BOT, BOT], "--sandbox on", "libseccomp2")
    assert not log.exists()


@needs_root
@needs_sandbox
@pytest.mark.parametrize("command", [["play", "rage", "--seed", "1"],
                                     ["tournament", "rage", "--deals", "1", "--jobs", "2"]])
def test_sandbox_auto_warns_once_and_plays(no_libseccomp: None, tmp_path: Path,
                                           command: list[str]) -> None:
    if command[0] == "tournament":
        command = [*command, "--db", str(tmp_path / "r.sqlite")]
    code, out, err = run_main([*command, BOT, BOT, BOT])
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("referee: warning:")]
    assert len(warnings) == 1, err
    assert "libseccomp2" in warnings[0] and "--sandbox on" in warnings[0]
    assert out.strip()
