"""Bots for a game: parse their commands, give them names, start them, and stop them all.

A bot that faults while starting still gets its seat: a FaultedPlayer reports the fault
when the game starts, so the fault policy handles it like any other.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Callable, Mapping, Sequence

from referee.bot_names import MAX_NAME, RULE, is_bot_name, name_word, normal_name
from referee.printable import printable
from referee.processes.bot_command import (
    BotCommand, default_label, split_bot_command, with_folder,
)
from referee.processes.cgroups import CgroupRoot
from referee.errors import BotFault, BotStartError, BotStartFailed, ConfigError
from protocols.faults import FaultKind
from referee.players.greeting import greet_all
from referee.players.human import HUMAN, Idle, human_name
from referee.players.player import Player
from referee.processes.sandbox import (
    SandboxMode, SandboxSettings, View, package_root, sandbox_enabled, sandbox_problem,
)
from referee.players.remote_player import BYE_GRACE, RemotePlayer
from referee.players.remote_seats import (
    ELSEWHERE, RemoteSeatSpec, RemoteSettings, is_remote, parse_remote_seat,
    remote_command, start_remote,
)
from referee.players.sdk_bytecode import ensure_sdk_bytecode
from referee.players.stderr_tail import tail_lines
from referee.settings import ResourceLimits, TimeLimits
from protocols.clock import Clock
from referee.transport.zmq_channel import ZmqHub


@dataclass(frozen=True)
class BotSpec:
    """A bot to start: its command and the name shown in tables; a remote seat's
    (`remote:NAME=KEY_FILE`) has nothing to run, and its key."""

    command: BotCommand
    label: str
    remote: RemoteSeatSpec | None = None
    human: bool = False  # a person's seat (referee/players/human.py): no command runs


@dataclass(frozen=True)
class BotLaunch:
    """One bot to start: its stderr goes to `stderr` (None: the lineup's), and first to
    `game_stderr`, if given, until BotProcess.redirect_stderr(None)."""

    spec: BotSpec
    stderr: Path | None = None
    game_stderr: Path | None = None
    game: str = ""  # the game's id, where a remote seat's fault names it ("": none)



HUMANS_ONLY_IN_PLAY = (f"{HUMAN!r} is a person's seat, and people play only in `referee "
                       "play` (docs/human.md)")


def named(text: str) -> tuple[str | None, str]:
    """A BOT argument as (name, command): `alice=students/alice/bot` is named alice, and
    `Zoë=python bot.py` Zoë (NFC; referee.bot_names); a plain command, or one whose first
    word merely holds '=' after a space or a '/', has no name. BotStartError for a name
    that breaks the rules (too long, a '+', an unprintable character), and for a human
    seat (`human`, `human=NAME`): only `play` seats people (seat_specs)."""
    if human_name(text) is not None:
        raise BotStartError(HUMANS_ONLY_IN_PLAY)
    if is_remote(text):  # remote:NAME=KEY names its seat itself (parse_remote_seat)
        return None, text
    head, equals, command = text.partition("=")
    if not equals or not head or not command[:1].strip() or \
            any(c.isspace() or c == "/" for c in head):
        return None, text
    name = normal_name(head)
    if not is_bot_name(name):
        raise BotStartError(f"bot name {printable(name)!r} (in {printable(text)!r}) must "
                            f"be {RULE}")
    return name, command


def bot_specs(texts: Sequence[str], names: Sequence[str] | None = None,
              dirs: Mapping[str, Path] | None = None) -> list[BotSpec]:
    """Parse BOT arguments, `NAME=COMMAND` or `COMMAND` (raising BotStartError), and give
    each a distinct name: its own, else its program's, numbered where repeated. `dirs`:
    the folders declared for bots by name (`--bot-dir NAME=DIR`); a bot without one must
    have a command line that tells its folder (bot_command.bot_folder)."""
    if names:
        if any(human_name(text) is not None for text in texts):
            raise BotStartError(HUMANS_ONLY_IN_PLAY)
        labels, commands = list(names), [_command(text) for text in texts]
    else:
        labels, commands = _labelled(texts)
    dirs = dirs or {}
    for name in dirs:
        if name not in labels:
            raise BotStartError(f"--bot-dir {name}=...: no bot is named {name!r} (the "
                                f"bots: {', '.join(labels)})")
    return [_spec(command, label, dirs.get(label)) for command, label in zip(commands, labels)]


def _command(text: str) -> BotCommand:
    return remote_command(text) if is_remote(text) else split_bot_command(text)


def _spec(command: BotCommand, label: str, folder: Path | None) -> BotSpec:
    if not is_remote(command.text):
        return BotSpec(with_folder(command, folder), label)
    if folder is not None:
        raise BotStartError(f"--bot-dir {label}=...: {label} is a remote seat, with no "
                            "folder here")
    return BotSpec(command, label, parse_remote_seat(command.text))


def seat_specs(texts: Sequence[str], dirs: Mapping[str, Path] | None = None
               ) -> list[BotSpec]:
    """bot_specs, where a BOT may also be a person (`human`, `human=NAME`), for `play`:
    each named after the person, and every name distinct."""
    people = {index: human_name(text) for index, text in enumerate(texts)}
    bots = iter(bot_specs([t for i, t in enumerate(texts) if people[i] is None], dirs=dirs))
    specs = [next(bots) if name is None else
             BotSpec(BotCommand(HUMAN, (), False), _person(name), human=True)
             for name in people.values()]
    labels = [spec.label for spec in specs]
    if len(set(labels)) < len(labels):
        raise BotStartError(f"bot names must differ: {', '.join(labels)}")
    return specs


def _person(name: str) -> str:
    """A person's name, by the rule of bot names: kept as typed (NFC), or refused."""
    label = normal_name(name)
    if not is_bot_name(label):
        raise BotStartError(f"person's name {printable(label)!r} (in human=NAME) must be "
                            f"{RULE}")
    return label


def bot_labels(texts: Sequence[str]) -> list[str]:
    """The names bot_specs gives `texts` (BotStartError for a command that cannot start),
    before any folder is declared for them."""
    return _labelled(texts)[0]


def _labelled(texts: Sequence[str]) -> tuple[list[str], list[BotCommand]]:
    pairs = [(parse_remote_seat(text).name, text) if is_remote(text) else named(text)
             for text in texts]
    commands = [_command(command) for _, command in pairs]
    unnamed = [_default_name(default_label(c))
               for (name, _), c in zip(pairs, commands) if name is None]
    defaults = iter(unique_labels(unnamed))
    labels = [name if name is not None else next(defaults) for name, _ in pairs]
    if len(set(labels)) < len(labels):
        raise BotStartError(f"bot names must differ: {', '.join(labels)}")
    return labels, commands


def _default_name(label: str) -> str:
    """A program's or folder's name as a bot's (room left for a number: `-12`), where it
    is one; else with the characters no name may hold made '_' (bot_names.name_word),
    else `bot`."""
    name = normal_name(label)[:MAX_NAME - 4]
    if is_bot_name(name):
        return name
    word = name_word(normal_name(label))[:MAX_NAME - 4]
    return word if is_bot_name(word) else "bot"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_word(text: str) -> str:
    """`text` with every run of characters other than A-Z a-z 0-9 . _ - made one '_': fit
    for a table, a file name and a team name (joined by '+')."""
    return _UNSAFE.sub("_", text)


def unique_labels(labels: Sequence[str]) -> list[str]:
    """`a, b, a` -> `a-1, b, a-2`: repeated names get a number."""
    counts, seen = Counter(labels), Counter[str]()
    out = []
    for label in labels:
        seen[label] += 1
        out.append(f"{label}-{seen[label]}" if counts[label] > 1 else label)
    return out


class FaultedPlayer(Player):
    """Stands in for a bot that failed to start: every exchange raises its fault. `tail`:
    the last lines of its stderr, for the fault's record."""

    def __init__(self, name: str, error: BotFault, tail: tuple[str, ...] = ()) -> None:
        self.name = name
        self.error = error
        self._tail = tail

    def stderr_tail(self) -> tuple[str, ...]:
        return self._tail

    def new_game(self, line: str) -> None:
        raise self.error

    def tell(self, line: str) -> None:
        raise self.error

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        raise self.error


_NEVER_PLAYED = {FaultKind.CRASH: "died before its HELLO", FaultKind.TIMEOUT: "no HELLO",
                 FaultKind.PROTOCOL: "a bad HELLO"}


def start_failed(error: BotFault) -> BotFault:
    """A fault found while the bot started, as a start-up failure (FaultKind.STARTUP)
    that says what went wrong: a bot that never played is told apart from a crash in the
    game. A fault of another kind (a flood of its stdout) stays as it is."""
    what = _NEVER_PLAYED.get(error.kind)
    if what is None:
        return error
    said = error.detail.removeprefix("bad HELLO: ")  # the player's own words for it
    detail = said if said.startswith(what) else f"{what}: {said}"
    return BotStartFailed(detail, error.line)


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
    remote: RemoteSettings | None = None  # where remote seats connect (remote_seats.py)
    # A person's seat (play only), made from its name and what keeps the bots' connections
    # served while the person thinks (Lineup.serve_idle).
    human: Callable[[str, Idle], Player] | None = None


def sandbox_view(settings: LaunchSettings) -> View | None:
    """The shape of every bot's sandbox under `settings`, or None for no sandbox.
    ConfigError where `--sandbox on` or `--clock cpu` cannot be had, or the transport
    needs a network."""
    view = _view(settings)
    if settings.times.clock is Clock.CPU:
        check_cpu_clock(view is not None, settings.sandbox.mode)
    return view


def _view(settings: LaunchSettings) -> View | None:
    box = settings.sandbox
    if not sandbox_enabled(box.mode):
        return None
    if settings.transport != "ipc":
        raise ConfigError("sandboxed bots have no network: use --transport ipc, or "
                          "--sandbox off for trusted bots")
    return View(cwd=Path.cwd(), secrets=settings.secrets, extra_dirs=box.extra_dirs,
                tmp_bytes=box.tmp_mb << 20)


def check_cpu_clock(sandboxed: bool, mode: SandboxMode) -> None:
    """`--clock cpu` counts a bot's CPU time in its own cgroup: ConfigError where bots
    would have none, or run unsandboxed (free to move to another group)."""
    if not sandboxed:
        why = "not --sandbox off" if mode is SandboxMode.OFF else \
            f"and there is no sandbox here ({sandbox_problem()})"
        raise ConfigError(f"--clock cpu needs sandboxed bots, {why}: an unsandboxed bot "
                          "can leave its cgroup and use CPU time uncounted; use --clock "
                          "wall")
    if CgroupRoot.find() is None:
        raise ConfigError("--clock cpu needs a cgroup per bot, and none can be made here "
                          "(that takes root or a delegated cgroup subtree): use --clock "
                          "wall")


class Lineup:
    """The one way bots are started, for single games and tournament workers alike: starts
    them on demand and stops every one still running on close (a context manager)."""

    def __init__(self, settings: LaunchSettings) -> None:
        self.settings = settings
        self._view = sandbox_view(settings)
        ensure_sdk_bytecode(package_root())  # else each Python bot compiles the SDK anew
        self._hub: ZmqHub | None = None
        self._players: list[Player] = []

    @property
    def sandboxed(self) -> bool:
        return self._view is not None

    def launch(self, spec: BotSpec, stderr: Path | None = None,
               game_stderr: Path | None = None) -> Player:
        """A started bot, or a FaultedPlayer if it faulted while starting (see
        launch_many)."""
        return self.launch_many([BotLaunch(spec, stderr, game_stderr)])[0]

    def launch_all(self, specs: Sequence[BotSpec]) -> list[Player]:
        return self.launch_many([BotLaunch(spec) for spec in specs])

    def launch_many(self, launches: Sequence[BotLaunch]) -> list[Player]:
        """A player per launch: its bot started and greeted, or a FaultedPlayer for a bot
        that faulted while starting. Every process starts first, then all HELLOs are
        awaited together (greet_all). Any other exception closes them all."""
        players: list[Player] = []
        try:
            for launch in launches:
                players.append(self._start(launch))
            starting = [(i, p) for i, p in enumerate(players) if isinstance(p, RemotePlayer)]
            faults = greet_all([player for _, player in starting])
        except BaseException:
            for player in players:
                player.close()
            raise
        for at, fault in faults.items():
            index = starting[at][0]
            players[index] = FaultedPlayer(players[index].name, start_failed(fault),
                                           players[index].stderr_tail())
        # Closed players are dropped: a tournament worker launches thousands.
        self._players = [p for p in self._players if not _closed(p)] + players
        return players

    def _start(self, launch: BotLaunch) -> Player:
        """The bot's process, started without waiting for its HELLO; its stderr goes to
        `launch.stderr`, else to the settings' (else to ours)."""
        s, spec = self.settings, launch.spec
        if spec.human:
            if s.human is None:
                raise BotStartError(HUMANS_ONLY_IN_PLAY)
            return s.human(spec.label, self.serve_idle)
        if spec.remote is not None:
            if s.remote is None:
                raise ConfigError(f"remote seat {spec.label}: this command cannot seat "
                                  "remote bots (play, tournament, check and gate can, "
                                  "with --listen)")
            try:
                return start_remote(spec.remote, spec.command.text, s.remote, s.times,
                                    s.busy_wait, self._zmq_hub(), launch.game)
            except BotFault as error:  # its relay has stayed away: not waited for again
                return FaultedPlayer(spec.label, error, tail_lines(ELSEWHERE))
        try:  # a stdio bot's waits let the hub answer the ZeroMQ bots' heartbeats
            return RemotePlayer.start(
                spec.command, spec.label, self._zmq_hub(), s.times, s.limits,
                launch.stderr or s.stderr, busy_wait=s.busy_wait, sandbox=self._view,
                game_stderr=launch.game_stderr)
        except BotFault as error:
            return FaultedPlayer(spec.label, start_failed(error))

    def _zmq_hub(self) -> ZmqHub:
        if self._hub is None:
            self._hub = ZmqHub(self.settings.transport)
        return self._hub

    def serve_idle(self, now: float) -> None:
        """While none of its bots is spoken to (between a worker's games): read their
        ZeroMQ connections a little, so their heartbeats are answered."""
        if self._hub is not None:
            self._hub.keep_alive(None, now)

    def close(self) -> None:
        close_all(self._players)
        self._players.clear()
        if self._hub is not None:
            self._hub.close()
            self._hub = None

    def __enter__(self) -> Lineup:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def close_all(players: Sequence[Player]) -> None:
    """Close `players`, saying BYE to every one first and giving them all one BYE_GRACE
    to exit: their exits overlap, instead of each close waiting up to BYE_GRACE for its
    own bot after the one before (4 bots close in about half the time, under load)."""
    for player in players:
        try:
            player.say_bye()
        except (BotFault, OSError):
            pass  # its close() kills it anyway
    deadline = time.monotonic() + BYE_GRACE
    for player in players:
        player.close(max(0.0, deadline - time.monotonic()))


def _closed(player: Player) -> bool:
    return isinstance(player, FaultedPlayer) or (
        isinstance(player, RemotePlayer) and player.closed)
