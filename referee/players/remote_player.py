"""RemotePlayer: a bot process behind a channel, with handshake, time limits and LOG lines."""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from protocols.wire import (
    ENV_ENDPOINT,
    ENV_TOKEN,
    MAX_LOG_LINES_PER_REQUEST,
    PROTOCOL_VERSION,
    STDIO_ENDPOINT,
    Hello,
    WireError,
    find_request,
    is_log,
    is_request,
    parse_hello,
)
from referee.processes.bot_command import BotCommand, bot_folder
from referee.processes.bot_process import BotProcess
from referee.errors import (
    BotFault, BotStartError, BotTimeout, ConfigError, OutputFlood, ProtocolError,
)
from referee.players.player import LineListener, Player
from referee.players.request_clock import CpuClock, wall_missed
from referee.players.stderr_tail import tail_lines, with_stdio_hint
from referee.players.token_redaction import redact_fault
from referee.processes.stderr_sink import RECENT
from referee.processes.sandbox import INSIDE_SOCKET_DIR, View, package_root
from referee.settings import ResourceLimits, TimeLimits
from protocols.clock import Clock
from referee.transport.channel import Channel
from referee.transport.remote_channel import RemoteChannel
from referee.transport.stdio_channel import StdioChannel
from referee.transport.zmq_channel import SOCKET_NAME, ZmqChannel, ZmqHub

BYE = "BYE"
BYE_GRACE = 0.2  # how long a bot may take to exit cleanly after BYE before the group kill
UNSOLICITED = "line sent without a request"  # a fault's detail starts so


class RemotePlayer(Player):
    """A bot program spoken to over ZeroMQ or stdio; every BotFault leaves close() usable."""

    hello: Hello  # set by the handshake in launch()

    def __init__(self, name: str, command: BotCommand, process: BotProcess, channel: Channel,
                 times: TimeLimits, listener: LineListener | None = None,
                 token: str = "") -> None:
        self.name = name
        self.command = command
        self.listener = listener
        self._process = process
        self._channel = channel
        self._times = times
        self._cpu_clock = times.clock is Clock.CPU  # asked once: an enum's attribute is slow
        self._bank = times.bank
        self._logs = 0  # LOG lines since the last reply
        self._greeted = False
        self._bye_sent = False
        self._closed = False
        self._token = token  # the HELLO's; a stdio bot must repeat it
        # Made just after the spawn: its start-up time runs from there, whatever else waits.
        self._started = time.monotonic()
        self._startup = times.startup  # the allowance, stretched by share_start
        self.hello_deadline = self._started + times.startup + times.tolerance

    @classmethod
    def launch(cls, cmd: BotCommand, label: str, hub: ZmqHub | None, times: TimeLimits,
               limits: ResourceLimits, stderr: Path | None = None,
               listener: LineListener | None = None, busy_wait: float | None = None,
               sandbox: View | None = None, game_stderr: Path | None = None
               ) -> RemotePlayer:
        """Start the bot, in a sandbox shaped like `sandbox` (None: none), and complete its
        handshake within times.startup, or raise its BotFault. `busy_wait`: seconds a wait
        for the bot polls before it sleeps (referee/transport/busy_wait.py). Its stderr
        goes to `game_stderr` first, if given (BotProcess.spawn)."""
        player = cls.start(cmd, label, hub, times, limits, stderr, listener, busy_wait,
                           sandbox, game_stderr)
        player.greet()
        return player

    @classmethod
    def start(cls, cmd: BotCommand, label: str, hub: ZmqHub | None, times: TimeLimits,
              limits: ResourceLimits, stderr: Path | None = None,
              listener: LineListener | None = None, busy_wait: float | None = None,
              sandbox: View | None = None, game_stderr: Path | None = None
              ) -> RemotePlayer:
        """launch() without the wait for the HELLO, which greet() or try_greet() take: so
        several bots start at once and boot side by side (referee/players/greeting.py)."""
        if hub is None and not cmd.stdio:
            raise ValueError(f"the ZeroMQ bot {cmd.text!r} needs a ZmqHub")
        token = secrets.token_hex(16)
        zmq_channel = None if cmd.stdio or hub is None else hub.channel(
            token, busy_wait=busy_wait, sandboxed=sandbox is not None)
        try:
            process = _start(cmd, label, token, zmq_channel, limits,
                             (stderr, game_stderr), sandbox)
        except BaseException:
            if zmq_channel is not None:
                zmq_channel.close()
            raise
        if times.clock is Clock.CPU and process.cgroup is None:
            process.kill()
            if zmq_channel is not None:
                zmq_channel.close()
            raise ConfigError(f"--clock cpu: bot {cmd.text!r} got no cgroup to count its "
                              "CPU time in")
        channel: Channel
        if zmq_channel is None:
            channel = StdioChannel(process, busy_wait, hub)
        else:
            zmq_channel.attach(process)
            channel = zmq_channel
        return cls(label, cmd, process, channel, times, listener, token)

    def greet(self) -> None:
        """Wait for the HELLO until the start-up deadline; on a fault, close and raise it
        (its tokens redacted: token_redaction)."""
        try:
            self._handshake(self._token, self._channel)
        except BotFault as fault:
            self.close()
            raise self._start_fault(fault)
        except BaseException:
            self.close()
            raise

    def try_greet(self) -> bool:
        """Take the HELLO if it has come, without waiting: True once greeted, False while
        the bot still has time; past its deadline (or on any fault), close and raise."""
        if self._greeted:
            return True
        try:
            now = time.monotonic()
            line = self._next_line(min(now, self.hello_deadline))  # only what is there
            if line is None:
                if now < self.hello_deadline:
                    return False
                raise self._no_hello(self._channel)
            self._replied(line)  # the HELLO: its reply to being started
            self._accept_hello(line, self._token)
        except BotFault as fault:
            self.close()
            raise self._start_fault(fault)
        except BaseException:
            self.close()
            raise
        return True

    def _start_fault(self, fault: BotFault) -> BotFault:
        """A handshake's fault (the bot closed), with the hint for a stdio bot run as a
        ZeroMQ one, and its tokens redacted."""
        if not self.command.stdio:
            with_stdio_hint(fault, self._process.stderr_recent())
        return redact_fault(fault, self._token)

    def stderr_tail(self) -> tuple[str, ...]:
        data = self._process.stderr_recent()
        return tail_lines(data, self._token, cut=len(data) >= RECENT)

    def share_start(self, factor: float) -> None:
        """Stretch the start-up allowance by `factor` (at least 1): it is meant for a bot
        booting alone, and this one boots beside others on fewer CPUs (greet_all)."""
        self._startup = self._times.startup * max(1.0, factor)
        self.hello_deadline = self._started + self._startup + self._times.tolerance

    @property
    def channel(self) -> Channel:
        """The bot's channel (for a wait on several bots at once)."""
        return self._channel

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def process(self) -> BotProcess:
        """The bot's process (for its pid and exit status)."""
        return self._process

    def confinement(self) -> dict[str, object]:
        """How the bot is held, for the game log's header: in a sandbox or not, and what
        limits its memory and processes (BotProcess.limits_holder)."""
        return {"sandbox": self._process.sandboxed, "limits": self._process.limits_holder}

    @property
    def bank_left(self) -> float:
        """Seconds left in this game's time bank."""
        return self._bank

    def _handshake(self, token: str, channel: Channel | None) -> None:
        line = self._next_line(self.hello_deadline)
        if line is None:
            raise self._no_hello(channel)
        self._replied(line)  # the HELLO: its reply to being started
        self._accept_hello(line, token)

    def _no_hello(self, channel: Channel | None) -> BotTimeout:
        ignored = channel.ignored_frames if isinstance(channel, ZmqChannel) else 0
        note = f" ({ignored} message(s) without a valid token were ignored)" if ignored else ""
        if isinstance(channel, RemoteChannel):
            note += channel.missed_start()
        allowed = f"{self._startup:g} s" if self._startup == self._times.startup else \
            f"{self._startup:.3g} s (the start-up time of {self._times.startup:g} s, " \
            "stretched: it booted beside other bots)"
        return BotTimeout(f"no HELLO within {allowed}{note}")

    def _accept_hello(self, line: str, token: str) -> None:
        try:
            hello = parse_hello(line)
        except WireError as exc:
            raise ProtocolError(f"bad HELLO: {exc}", line) from None
        if hello.token != token:  # stdio only: the hub binds a ZeroMQ bot by its token
            raise ProtocolError("HELLO with a wrong token", line)
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                f"bot speaks protocol version {hello.protocol}, "
                f"the referee speaks version {PROTOCOL_VERSION}", line)
        self.hello = hello
        self._greeted = True
        self._logs = 0

    def new_game(self, line: str) -> None:
        """Refill the time bank and send the GAME line. Lines the bot sent since the last
        game ended belong to that game, and are dropped: never charged to this one. Bytes
        that are no line (not UTF-8, too long, a flood) break the protocol whenever they
        come, and are charged here, where they are found (tests/tournaments/
        test_persistent_hostile.py)."""
        self._bank = self._times.bank
        self._drop_stale()
        self.tell(line)

    def _drop_stale(self) -> None:
        for _ in self._arrived():
            pass

    def tell(self, line: str) -> None:
        """Send a line that wants no reply."""
        self.tell_many((line,))

    def tell_many(self, lines: Sequence[str]) -> None:
        """Send lines that want no reply, in one tight loop (the held lines of a seat).

        Unsolicited lines from the bot are looked for at the next request, not here: a
        game tells far more lines than it asks, and nothing is lost by waiting.
        """
        self._check_told(lines)
        if lines:
            self._send(lines, time.monotonic() + self._times.move + self._times.tolerance)

    def ask(self, line: str, preamble: Sequence[str] = ()) -> str:
        """Send the preamble and the request in one batch and return the reply; a reply
        later than `move` spends the bank."""
        if not is_request(line):
            raise ValueError(f"ask() of a line that is not a request: {line!r}")
        batch = (*preamble, line)
        if "?" in "".join(preamble):  # _check_told(), only where it may find something
            self._check_told(preamble)
        channel = self._channel
        if channel.pending():  # mostly not: then there is nothing to look at
            self._check_unsolicited()
        # The clock starts as the request is handed to the transport: the referee's own
        # work (the check above, the log) is never charged to the bot.
        if self._cpu_clock:
            return self._ask_by_cpu(line, batch)
        # --clock wall, inline (every decision would pay for a clock object and its
        # calls): one wait, until move + bank + tolerance seconds have passed.
        times, listener = self._times, self.listener
        start = time.monotonic()
        if listener is not None:
            listener.sent(batch, start)
        deadline = start + times.move + self._bank + times.tolerance
        channel.send_lines(batch, deadline)
        reply = self._next_line(deadline)
        if reply is None:
            raise self._timed_out(line, wall_missed)
        now = time.monotonic()
        if listener is not None:
            listener.replied(reply, now)
        self._spend(now - start - times.move)
        return reply

    def _ask_by_cpu(self, line: str, batch: Sequence[str]) -> str:
        """ask() by --clock cpu: the reply is waited for slice by slice, each slice ending
        with a look at the bot's CPU time."""
        cgroup = self._process.cgroup
        assert cgroup is not None  # launch() refuses a bot without one
        clock = CpuClock(cgroup, self._times.move + self._bank + self._times.tolerance)
        self._sent(batch)
        self._channel.send_lines(batch, clock.deadline)
        while (deadline := clock.next_wait()) is not None:
            reply = self._next_line(deadline)
            if reply is not None:
                self._replied(reply)
                self._spend(clock.overrun(self._times.move))
                return reply
        raise self._timed_out(line, clock.missed)

    def _spend(self, overrun: float) -> None:
        """A reply later than `move` spends the bank."""
        if overrun > 0:
            self._bank = max(0.0, self._bank - overrun)

    def _timed_out(self, request: str, missed: Callable[[str, TimeLimits, float], str]
                   ) -> BotTimeout:
        """No reply to `request` in time: the bank is spent; `missed` says why."""
        bank, self._bank = self._bank, 0.0
        return BotTimeout(missed(request.split(" ", 1)[0], self._times, bank))

    def say_bye(self) -> None:
        """Send BYE once: the bot should exit within BYE_GRACE. Nothing is killed here, so
        a caller (`referee check`) can watch how the bot ends before close() kills it."""
        if self._bye_sent or not self._greeted or self._closed:
            return
        self._bye_sent = True
        self._send((BYE,), time.monotonic() + BYE_GRACE)

    def close(self, grace: float | None = None) -> None:
        """Say BYE, give the bot a moment to exit (`grace`, else BYE_GRACE), then kill
        its whole process group."""
        if self._closed:
            return
        try:
            if self._greeted and not self._process.exited():
                self.say_bye()
                self._process.wait(BYE_GRACE if grace is None else grace)
        except (BotFault, OSError):
            pass  # best effort: the kill follows anyway
        finally:
            self._closed = True
            self._process.kill()
            self._channel.close()

    @staticmethod
    def _check_told(lines: Sequence[str]) -> None:
        request = find_request(lines)
        if request is not None:
            raise ValueError(f"tell() of a request: {request!r}")

    def _send(self, lines: Sequence[str], deadline: float) -> None:
        self._sent(lines)
        self._channel.send_lines(lines, deadline)

    def _next_line(self, deadline: float) -> str | None:
        """The next non-LOG line, or None at the deadline. LOG lines go to the listener
        as they come, so that the log can bound what a flood makes it hold; the reply is
        the caller's to tell, with when it came."""
        recv = self._channel.recv
        while True:
            try:
                line = recv(deadline)
            except BotTimeout:
                return None
            if line[:3] != "LOG" or not is_log(line):  # the common reply costs no call
                self._logs = 0
                return line
            if self.listener is not None:
                self.listener.heard(line)
            self._count_log(line)

    def _check_unsolicited(self) -> None:
        """Lines that arrived with no request outstanding: LOGs are fine, others a fault.
        Only when something is pending."""
        for line in self._arrived():
            if not is_log(line):
                raise ProtocolError(f"{UNSOLICITED} (a second reply?)", line)
            self._count_log(line)

    def _arrived(self) -> Iterator[str]:
        """The lines already there, each found (logged) as it is taken."""
        while self._channel.pending():
            line = self._channel.recv(time.monotonic())
            self._found(line)
            yield line

    def _count_log(self, line: str) -> None:
        self._logs += 1
        if self._logs > MAX_LOG_LINES_PER_REQUEST:
            raise OutputFlood(f"more than {MAX_LOG_LINES_PER_REQUEST} LOG lines for one request",
                              line)


def _start(cmd: BotCommand, label: str, token: str, channel: ZmqChannel | None,
           limits: ResourceLimits, stderr: tuple[Path | None, Path | None],
           sandbox: View | None) -> BotProcess:
    """Spawn the bot, told where to connect: its own socket (in its sandbox), or stdio;
    `stderr`: where its stderr goes, and where it goes first (BotProcess.spawn)."""
    home, game = stderr
    if sandbox is None:
        endpoint = STDIO_ENDPOINT if channel is None else channel.endpoint
        env = {**os.environ, "PATH": bot_path(), ENV_ENDPOINT: endpoint, ENV_TOKEN: token}
        return BotProcess.spawn(cmd, env, limits, home, label=label, game_stderr=game)
    folder = None if channel is None else channel.folder
    if channel is not None and folder is None:
        raise BotStartError("a sandboxed bot has no network: use the ipc transport")
    endpoint = STDIO_ENDPOINT if folder is None else f"ipc://{INSIDE_SOCKET_DIR}/{SOCKET_NAME}"
    # The folder that holds every bot's socket folder is a secret too: a bot whose own
    # folder holds it (one under /tmp) must not reach the others' sockets.
    hidden = sandbox.secrets if folder is None else (*sandbox.secrets, folder.parent)
    view = replace(sandbox, bot_folder=bot_folder(cmd, sandbox.cwd), socket_dir=folder,
                   secrets=hidden)
    env = {**sandbox_env(), "PATH": bot_path(), ENV_ENDPOINT: endpoint, ENV_TOKEN: token}
    return BotProcess.spawn(cmd, env, limits, home, view, label=label, game_stderr=game)


def sandbox_env() -> dict[str, str]:
    """A sandboxed bot's environment, before its endpoint: nothing of the referee's own."""
    return {"HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "PYTHONPATH": str(package_root()), "PYTHONDONTWRITEBYTECODE": "1"}


def bot_path() -> str:
    """PATH for bots: the referee's interpreter first, so a script starting with
    `#!/usr/bin/env python3` runs where pyzmq and the SDK are installed."""
    here = os.path.dirname(sys.executable)
    rest = [p for p in os.environ.get("PATH", os.defpath).split(os.pathsep) if p != here]
    return os.pathsep.join([here, *rest])
