"""Remote seats: `remote:NAME=PUBLIC_KEY_FILE` as a BOT argument, and their player.

A remote seat is played by a bot on the contestant's machine, through `referee connect`
and the RemoteHall (referee/transport/remote_hall.py). Its player is a RemotePlayer like
any local bot's, over a RemoteChannel instead of a pipe or a local socket: the same
handshake, time limits, LOG rules and faults apply, at the referee, so the network counts
in the move time. The referee runs nothing of it: its "process" (SeatProcess) is only the
seat's connection, which close() leaves as it is (the relay ends its own bot on BYE).
"""

from __future__ import annotations

import multiprocessing.util
import re
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.ansi import CLEAR_LINE
from protocols.remote_relay import RELAYED_TOKEN
from referee.errors import BotStartError, BotStartFailed, ConfigError
from referee.players.remote_player import RemotePlayer
from referee.processes.bot_command import BotCommand
from referee.processes.bot_process import BotProcess
from referee.printable import printable
from referee.settings import TimeLimits
from protocols.clock import Clock
from referee.transport.channel import KeepAlive
from referee.transport.curve_keys import read_public_key, read_secret_key
from referee.transport.endpoints import TcpAddress
from referee.transport.remote_channel import RemoteChannel
from referee.transport.remote_hall import RemoteHall, Seat

REMOTE_PREFIX = "remote:"
_REMOTE = re.compile(r"remote:([A-Za-z0-9._-]{1,40})=(\S.*)", re.DOTALL)
# The least and most time a silent peer is given before its connection counts as gone:
# the move time between, so that a dead peer is found within a move.
MIN_HEARTBEAT = 0.5
MAX_HEARTBEAT = 10.0


@dataclass(frozen=True)
class RemoteSeatSpec:
    """A parsed `remote:NAME=PUBLIC_KEY_FILE`."""

    name: str
    key_file: Path
    key: bytes  # Z85


def is_remote(text: str) -> bool:
    return text.startswith(REMOTE_PREFIX)


def parse_remote_seat(text: str) -> RemoteSeatSpec:
    """`remote:NAME=PUBLIC_KEY_FILE`, its key read now; BotStartError if malformed or the
    file is no public key file."""
    match = _REMOTE.fullmatch(text)
    if match is None:
        raise BotStartError(f"remote seat {printable(text[:200])!r}: write "
                            "remote:NAME=PUBLIC_KEY_FILE (NAME: 1-40 of A-Z a-z 0-9 . _ -)")
    name, file = match.groups()
    try:
        key = read_public_key(Path(file))
    except ConfigError as error:
        raise BotStartError(f"remote seat {name}: {error}") from None
    return RemoteSeatSpec(name, Path(file), key)


def remote_command(text: str) -> BotCommand:
    """The BotCommand a remote seat stands under: nothing to run (argv empty)."""
    return BotCommand(text=text, argv=(), stdio=False)


@dataclass(frozen=True)
class RemoteSettings:
    """Where remote seats are served: picklable, so a tournament worker opens the hall
    in its own process (hall_for)."""

    listen: TcpAddress
    key_file: Path
    seats: tuple[tuple[str, bytes], ...]  # (name, public key)
    heartbeat: float

    @classmethod
    def make(cls, listen: TcpAddress, key_file: Path,
             specs: Sequence[RemoteSeatSpec], times: TimeLimits) -> RemoteSettings:
        """ConfigError where the referee's key file is unfit, or two seats share a key."""
        if times.clock is Clock.CPU:
            raise ConfigError("--clock cpu cannot count a remote bot's CPU time (it runs on "
                              "another machine): use --clock wall")
        read_secret_key(key_file)
        keys: dict[bytes, str] = {}
        for spec in specs:
            if spec.key in keys and keys[spec.key] != spec.name:
                raise ConfigError(f"remote seats {keys[spec.key]} and {spec.name} have the "
                                  "same key: a key takes only its own seat")
            keys[spec.key] = spec.name
        heartbeat = min(MAX_HEARTBEAT, max(MIN_HEARTBEAT, times.move))
        return cls(listen, key_file.resolve(),
                   tuple((name, key) for key, name in keys.items()), heartbeat)


_HALLS: dict[RemoteSettings, RemoteHall] = {}
_HALLS_LOCK = threading.Lock()


def tell_organiser(line: str) -> None:
    """A hall's news (connections, refusals) on standard error, one escaped line each.
    On a terminal the line is cleared first: a tournament's progress bar may stand there
    (drawn by the parent process, without a newline), drawn again below at its next
    update."""
    clear = CLEAR_LINE if sys.stderr.isatty() else ""
    sys.stderr.write(f"{clear}referee: remote: {printable(line)}\n")
    sys.stderr.flush()


def hall_for(settings: RemoteSettings) -> RemoteHall:
    """This process's hall for `settings`, opened on first use (closed by close_halls, or
    at this process's exit)."""
    with _HALLS_LOCK:
        hall = _HALLS.get(settings)
        if hall is None:
            hall = RemoteHall(settings.listen, read_secret_key(settings.key_file),
                              dict(settings.seats), settings.heartbeat, tell_organiser)
            if not _HALLS:
                multiprocessing.util.Finalize(None, close_halls, exitpriority=40)
            _HALLS[settings] = hall
            tell_organiser(f"listening on {hall.endpoint} for the seats "
                           f"{', '.join(name for name, _ in settings.seats)}")
        return hall


def close_halls() -> None:
    """Close every hall of this process: the relays hear that the event is over."""
    with _HALLS_LOCK:
        for hall in _HALLS.values():
            hall.close()
        _HALLS.clear()


ELSEWHERE = b"[referee: a remote bot's stderr stays on the contestant's machine]\n"


class SeatProcess(BotProcess):
    """A remote bot's stand-in for its process: the referee runs and kills nothing of it.
    It "exits" when its connection goes, or its relay reports its bot ended."""

    def __init__(self, seat: Seat, command: BotCommand) -> None:  # no super(): no process
        self._seat = seat
        self.command = command
        self.pid = 0
        self.tag = b""
        self.sandboxed = False
        self.cgroup = None

    @property
    def limits_holder(self) -> str:
        return "none: a remote bot runs on its own machine"

    def redirect_stderr(self, game_stderr: Path | None) -> int:
        return 0  # its stderr stays on the contestant's machine

    def stderr_recent(self) -> bytes:
        """What a fault of this seat shows as its stderr: where the stderr is (the tables
        said "none", which reads as a bot that wrote nothing)."""
        return ELSEWHERE

    @property
    def exit_code(self) -> int | None:
        return None

    def exited(self) -> bool:
        return bool(self._seat.gone)

    def exit_fd(self) -> int | None:
        return None

    def wait(self, timeout: float) -> bool:
        return True  # nothing to wait for here: the relay ends its bot on BYE

    def kill(self) -> None:
        pass  # nothing runs here

    def describe_exit(self) -> str:
        return self._seat.gone or "still connected"


def start_remote(spec: RemoteSeatSpec, text: str, settings: RemoteSettings,
                 times: TimeLimits, busy_wait: float | None, hub: KeepAlive | None,
                 game: str = "") -> RemotePlayer:
    """The seat's player, its HELLO still to come (greet, as for a local bot); `game`:
    the game's id, for people. BotStartFailed at once, with no wait, for a seat whose
    start-up of an earlier game ended with no relay connected, and none has connected
    since: a tournament with an absent contestant would wait the whole start-up time in
    each of its games. A relay that connects meanwhile plays from the next game."""
    hall = hall_for(settings)
    since = hall.absent_since(spec.name)
    if since:
        raise BotStartFailed(f"no HELLO: not waited for, as its relay (`referee connect` "
                             f"with its key) has not connected since it missed its "
                             f"start-up {since}; it plays again from the game after it "
                             "connects")
    where = f"in game {game}" if game else ""
    channel = RemoteChannel(hall, spec.name, busy_wait, hub, where)
    command = remote_command(text)
    return RemotePlayer(spec.name, command, SeatProcess(channel.seat, command), channel,
                        times, token=RELAYED_TOKEN)
