"""The SDK's bytecode is written once by the referee (referee/players/sdk_bytecode.py):
sandboxed Python bots cannot write it, and without it each one compiles the SDK anew."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from referee.players import sdk_bytecode
from referee.players.lineup import LaunchSettings, Lineup
from referee.processes.sandbox import SandboxMode, SandboxSettings, package_root


def cached(source: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(source)))


def test_a_lineup_leaves_the_sample_bots_imports_compiled() -> None:
    with Lineup(LaunchSettings(sandbox=SandboxSettings(SandboxMode.OFF))):
        pass
    root = package_root()
    for module in ("bots/sdk.py", "bots/rage_sdk.py", "referee/games/rage/codec.py",
                   "referee/errors.py", "referee/games/rage/rules.py"):
        source = root / module
        assert cached(source).is_file(), module
        assert cached(source).stat().st_mtime >= source.stat().st_mtime, module


def test_only_the_sdk_folders_are_compiled_and_a_read_only_one_is_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("bots/a.py", "protocols/b.py", "referee/games/c.py",
                   "referee/games/some_game/f.py", "referee/cli/d.py", "tournaments/e.py"):
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text("X = 1\n")
    (tmp_path / "protocols").chmod(0o555)
    monkeypatch.setattr(sdk_bytecode, "_done", False)
    try:
        sdk_bytecode.ensure_sdk_bytecode(tmp_path)
    finally:
        (tmp_path / "protocols").chmod(0o755)
    assert cached(tmp_path / "bots/a.py").is_file()
    assert cached(tmp_path / "referee/games/c.py").is_file()
    assert cached(tmp_path / "referee/games/some_game/f.py").is_file()  # a game's folder
    assert not cached(tmp_path / "referee/cli/d.py").exists()  # bots never import it
    assert not cached(tmp_path / "tournaments/e.py").exists()
    # root writes through a read-only folder; anyone else's compile skips it quietly
    assert cached(tmp_path / "protocols/b.py").is_file() == (os.geteuid() == 0)
    monkeypatch.setattr(sdk_bytecode, "_done", False)
    (tmp_path / "bots/a.py").write_text("X = 2\n")
    os.utime(tmp_path / "bots/a.py", (2_000_000_000, 2_000_000_000))  # bytecode now stale
    sdk_bytecode.ensure_sdk_bytecode(tmp_path)
    header = cached(tmp_path / "bots/a.py").read_bytes()[:16]
    assert int.from_bytes(header[8:12], "little") == 2_000_000_000  # the source's mtime
