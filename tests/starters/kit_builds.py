"""Building the starter kits (bots/starters/) once per test session, each in a folder of
its own that a sandboxed bot can read.

A kit whose toolchain is missing fails its tests, so CI cannot pass without building every
kit. Where a missing toolchain is expected (a developer's machine), set
REFEREE_KITS_OPTIONAL=1 and such a kit's tests are skipped instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

STARTERS = Path(__file__).resolve().parents[2] / "bots" / "starters"
OPTIONAL = "REFEREE_KITS_OPTIONAL"
BUILD_TIMEOUT_S = 600  # a first `cargo build` or `npm install` on a cold cache


@dataclass(frozen=True)
class Kit:
    """A kit: the tools its build needs, the build's commands, and its bots' commands."""

    name: str
    tools: tuple[str, ...]
    build: tuple[tuple[str, ...], ...]
    bots: tuple[str, ...]  # referee BOT words, run from the kit's folder
    libraries: tuple[str, ...] = ()  # header files the build needs (from apt packages)


JAVA = ("stdio:java -Xmx512m -XX:CompressedClassSpaceSize=64m -XX:ReservedCodeCacheSize=64m "
        "-XX:MaxMetaspaceSize=128m -cp build Main")

KITS = (
    Kit("c", ("cc", "make"), (("make", "-s", "bot-stdio", "bot-zmq"),),
        ("stdio:./bot-stdio", "./bot-zmq"), ("zmq.h",)),
    Kit("cpp", ("g++",), (("g++", "-O2", "-std=c++17", "-o", "bot", "bot.cpp", "-lzmq"),),
        ("./bot",), ("zmq.h",)),
    Kit("rust", ("cargo",), (("cargo", "build", "-q", "--release"),),
        ("stdio:./target/release/starter",)),
    Kit("java", ("javac", "java"), (("javac", "-d", "build", "Main.java"),), (JAVA,)),
    Kit("node", ("node", "npm"),
        (("npm", "install", "--no-audit", "--no-fund", "--loglevel=error"),),
        ("node bot.js",)),
)


class KitBuilds:
    """Each kit built at most once: its folder, or the reason it cannot be built here."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="referee-kits-", dir="/var/tmp"))
        self.root.chmod(0o755)  # the sandbox's user must reach the bots
        self.done: dict[str, Path | str] = {}

    def folder(self, kit: Kit) -> Path:
        """The built kit's folder; fails (or skips, under REFEREE_KITS_OPTIONAL) if it
        cannot be built here."""
        if kit.name not in self.done:
            self.done[kit.name] = self._build(kit)
        result = self.done[kit.name]
        if isinstance(result, str):
            if os.environ.get(OPTIONAL):
                pytest.skip(f"{result} ({OPTIONAL} is set)")
            pytest.fail(f"{result}: install it (see .ci/run), or set {OPTIONAL}=1 to skip")
        return result

    def _build(self, kit: Kit) -> Path | str:
        missing = [tool for tool in kit.tools if shutil.which(tool) is None]
        missing += [h for h in kit.libraries if not Path("/usr/include", h).exists()]
        if missing:
            return f"the {kit.name} kit needs {', '.join(missing)}, missing here"
        folder = self.root / kit.name
        shutil.copytree(STARTERS / kit.name, folder,
                        ignore=shutil.ignore_patterns("target", "build", "node_modules", "bot",
                                                      "bot-stdio", "bot-zmq", "check-vectors"))
        for command in kit.build:
            done = subprocess.run(command, cwd=folder, capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT_S, check=False)
            if done.returncode != 0:
                pytest.fail(f"building the {kit.name} kit failed: {' '.join(command)}\n"
                            f"{done.stdout}{done.stderr}")
        subprocess.run(["chmod", "-R", "a+rX", str(folder)], check=True)
        return folder

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
