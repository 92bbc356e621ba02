"""Bots for a game: parse their commands, give them names, start them, and stop them all.

A bot that faults while starting still gets its seat: a FaultedPlayer reports the fault
when the game starts, so the fault policy handles it like any other.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Sequence

from referee.processes.bot_command import BotCommand, default_label, parse_bot_command
from referee.errors import BotFault, ConfigError
from referee.players.player import Player
from referee.processes.sandbox import SandboxSettings, View, sandbox_enabled
from referee.players.remote_player import RemotePlayer
from referee.settings import ResourceLimits, TimeLimits
from referee.transport.zmq_channel import ZmqHub


@dataclass(frozen=True)
class BotSpec:
    """A bot to start: its command and the name shown in tables."""

    command: BotCommand
    label: str


def bot_specs(texts: Sequence[str], names: Sequence[str] | None = None) -> list[BotSpec]:
    """Parse BOT arguments (raising BotStartError) and give each a distinct name."""
    commands = [parse_bot_command(text) for text in texts]
    labels = list(names) if names else unique_labels([default_label(c) for c in commands])
    return [BotSpec(command, label) for command, label in zip(commands, labels)]


def unique_labels(labels: Sequence[str]) -> list[str]:
    """`a, b, a` -> `a-1, b, a-2`: repeated names get a number."""
    counts, seen = Counter(labels), Counter[str]()
    out = []
    for label in labels:
        seen[label] += 1
        out.append(f"{label}-{seen[label]}" if counts[label] > 1 else label)
    return out


class FaultedPlayer(Player):
    """Stands in for a bot that failed to start: every exchange raises its fault."""

    def __init__(self, name: str, error: BotFault) -> None:
        self.name = name
        self.error = error

    def new_game(self, line: str) -> None:
        raise self.error

    def tell(self, line: str) -> None:
        raise self.error

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        raise self.error


@dataclass(frozen=True)
class LaunchSettings:
    """How bots are started: limits, transport, sandbox, where their stderr goes, and
    the paths no bot may see (game logs, results)."""

    times: TimeLimits = TimeLimits()
    limits: ResourceLimits = ResourceLimits()
    transport: str = "ipc"
    stderr: Path | None = None
    busy_wait: float | None = None  # seconds a wait polls first (None: by CPUs; busy_wait.py)
    sandbox: SandboxSettings = SandboxSettings()
    secrets: tuple[Path, ...] = ()


def sandbox_view(settings: LaunchSettings) -> View | None:
    """The shape of every bot's sandbox under `settings`, or None for no sandbox.
    ConfigError where `--sandbox on` cannot be had, or the transport needs a network."""
    box = settings.sandbox
    if not sandbox_enabled(box.mode):
        return None
    if settings.transport != "ipc":
        raise ConfigError("sandboxed bots have no network: use --transport ipc, or "
                          "--sandbox off for trusted bots")
    return View(cwd=Path.cwd(), secrets=settings.secrets, extra_dirs=box.extra_dirs,
                tmp_bytes=box.tmp_mb << 20)


class Lineup:
    """The one way bots are started, for single games and tournament workers alike: starts
    them on demand and stops every one still running on close (a context manager)."""

    def __init__(self, settings: LaunchSettings) -> None:
        self.settings = settings
        self._view = sandbox_view(settings)
        self._hub: ZmqHub | None = None
        self._players: list[Player] = []

    @property
    def sandboxed(self) -> bool:
        return self._view is not None

    def launch(self, spec: BotSpec, stderr: Path | None = None) -> Player:
        """A started bot, or a FaultedPlayer if it faulted while starting. Its stderr goes
        to `stderr`, else to the settings' (else to ours)."""
        s = self.settings
        hub = None if spec.command.stdio else self._zmq_hub()
        try:
            player: Player = RemotePlayer.launch(
                spec.command, spec.label, hub, s.times, s.limits, stderr or s.stderr,
                busy_wait=s.busy_wait, sandbox=self._view)
        except BotFault as error:
            player = FaultedPlayer(spec.label, error)
        # Closed players are dropped: a tournament worker launches thousands.
        self._players = [p for p in self._players if not _closed(p)]
        self._players.append(player)
        return player

    def launch_all(self, specs: Sequence[BotSpec]) -> list[Player]:
        return [self.launch(spec) for spec in specs]

    def _zmq_hub(self) -> ZmqHub:
        if self._hub is None:
            self._hub = ZmqHub(self.settings.transport)
        return self._hub

    def close(self) -> None:
        for player in self._players:
            player.close()
        self._players.clear()
        if self._hub is not None:
            self._hub.close()
            self._hub = None

    def __enter__(self) -> Lineup:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def _closed(player: Player) -> bool:
    return isinstance(player, FaultedPlayer) or (
        isinstance(player, RemotePlayer) and player.closed)
