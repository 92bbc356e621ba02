"""Line channels: the ZeroMQ hub (driven by in-test DEALER sockets) and the stdio channel."""

from __future__ import annotations

import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import zmq

from referee.processes.bot_process import BotProcess
from referee.errors import BotCrashed, BotTimeout, ConfigError, OutputFlood, ProtocolError
from referee.transport.channel import Channel, encode_line, encode_lines
from referee.transport.inbox import MAX_QUEUED_LINES
from referee.transport.stdio_channel import StdioChannel
from referee.transport.zmq_channel import MAX_CONNECTIONS, SOCKET_NAME, ZmqChannel, ZmqHub
from tests.referee.fault_bots.support import argv_command, wait_until
from tests.referee.conftest import Spawn

TOKEN = "a" * 32
LATE = 5.0  # how far past its deadline a wait may end on a loaded machine: a bound, not a time
FAR = 60.0  # a deadline that what must happen "at once" beats by far, however loaded the machine

Dealer = Callable[[], "zmq.Socket[bytes]"]


@pytest.fixture
def dealer(hub: ZmqHub) -> Iterator[Dealer]:
    """DEALER sockets connected to the hub: the test plays the bot."""
    context = zmq.Context()
    sockets: list[zmq.Socket[bytes]] = []

    def connect() -> zmq.Socket[bytes]:
        socket: zmq.Socket[bytes] = context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.connect(hub.endpoint)
        sockets.append(socket)
        return socket

    yield connect
    for socket in sockets:
        socket.close()
    context.term()


def sleeper(spawn: Spawn) -> BotProcess:
    return spawn(argv_command("sleep", "60"))


def bound_channel(hub: ZmqHub, dealer: Dealer, process: BotProcess,
                  token: str = TOKEN) -> tuple[ZmqChannel, zmq.Socket[bytes]]:
    """A channel whose fake bot has said HELLO (and the HELLO has been read)."""
    channel = hub.channel(token, process)
    bot = dealer()
    bot.send(f"HELLO 2 {token} fake 1.0".encode())
    assert channel.recv(soon()) == f"HELLO 2 {token} fake 1.0"
    return channel, bot


def soon(seconds: float = 10.0) -> float:
    """A deadline for a line that is on its way: met at once, unless the machine is loaded."""
    return time.monotonic() + seconds


# --- the hub ---------------------------------------------------------------------------

def test_each_ipc_endpoint_lives_in_a_private_directory_of_its_own_removed_on_close(
        ) -> None:
    hub = ZmqHub("ipc")
    first, second = hub.channel("a" * 32), hub.channel("b" * 32)
    folders = [Path(c.endpoint.removeprefix("ipc://")).parent for c in (first, second)]
    assert folders[0] != folders[1] and folders == [first.folder, second.folder]
    for folder in folders:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        # Only the one sandbox shown this folder may connect: the socket itself lets any
        # user of that sandbox (the unprivileged bot user, when the referee is root) in.
        assert stat.S_IMODE((folder / SOCKET_NAME).stat().st_mode) == 0o666
    assert stat.S_IMODE(folders[0].parent.stat().st_mode) == 0o711  # pass, never list
    hub.close()
    hub.close()
    assert not any(folder.exists() for folder in folders)
    assert not folders[0].parent.exists()


def test_tcp_endpoint_is_loopback_with_a_port() -> None:
    with ZmqHub("tcp") as hub:
        host, port = hub.channel(TOKEN).endpoint.removeprefix("tcp://").split(":")
        assert host == "127.0.0.1" and int(port) > 0


def test_unknown_transport_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="udp"):
        ZmqHub("udp")


def test_hello_binds_the_connection_and_lines_flow_both_ways(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    channel.send("PLAY? r3 r9")
    assert bot.recv() == b"PLAY? r3 r9"
    bot.send(b"r3")
    assert channel.recv(soon()) == "r3"


def test_a_batch_of_lines_is_one_frame_of_lines_joined_by_newlines(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    """protocols/README.md, Framing (protocol 2)."""
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    channel.send_lines(["PLAYED 1 r3", "PLAYED 2 b0", "PLAY? r9 y1"])
    channel.send_lines([])  # nothing to send: no empty message either
    channel.send("TRICK 1 2")
    assert bot.recv_multipart() == [b"PLAYED 1 r3\nPLAYED 2 b0\nPLAY? r9 y1"]
    assert bot.recv_multipart() == [b"TRICK 1 2"]


def test_frames_without_a_proven_token_are_ignored(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel = hub.channel(TOKEN, sleeper(spawn))
    stranger = dealer()
    stranger.send(b"hello there")
    stranger.send(f"HELLO 2 {'b' * 32} intruder 1.0".encode())
    stranger.send(b"HELLO 1")
    start = time.monotonic()
    with pytest.raises(BotTimeout):
        channel.recv(start + 0.3)
    assert time.monotonic() - start < 0.3 + LATE
    assert channel.ignored_frames == 3
    with pytest.raises(RuntimeError, match="before its HELLO"):
        channel.send("PLAY? x")


def test_after_the_hello_nobody_else_can_connect(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    assert channel.folder is not None and not (channel.folder / SOCKET_NAME).exists()
    thief = dealer()  # connects to a file that is gone: nothing it sends arrives
    thief.send(f"HELLO 2 {TOKEN} thief 1.0".encode())
    thief.send(b"r3")
    with pytest.raises(BotTimeout):
        channel.recv(time.monotonic() + 0.2)
    bot.send(b"r9")  # the bot's own connection is still there
    assert channel.recv(soon()) == "r9"


def test_a_connection_flood_closes_the_endpoint_as_that_bots_fault(
        hub: ZmqHub, spawn: Spawn) -> None:
    channel = hub.channel(TOKEN)
    path = channel.endpoint.removeprefix("ipc://")
    flood = (f"import socket\nkeep = []\nfor _ in range(3000):\n"
             f"    s = socket.socket(socket.AF_UNIX)\n"
             f"    try: s.connect({path!r})\n    except OSError: break\n"
             f"    keep.append(s)\nimport time; time.sleep(30)")
    channel.attach(spawn(argv_command("python", "-c", flood)))
    with pytest.raises(OutputFlood, match=f"more than {MAX_CONNECTIONS} connections"):
        channel.recv(soon(10))
    assert channel.closed


def test_one_bots_traffic_is_queued_for_it_and_never_blocks_another(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    chatty, chatty_bot = bound_channel(hub, dealer, sleeper(spawn), "c" * 32)
    quiet, quiet_bot = bound_channel(hub, dealer, sleeper(spawn), "q" * 32)
    for i in range(300):
        chatty_bot.send(f"LOG {i}".encode())
    quiet_bot.send(b"mine")
    assert quiet.recv(soon()) == "mine"
    assert [chatty.recv(soon()) for _ in range(300)] == [f"LOG {i}" for i in range(300)]
    assert not quiet.pending()


def test_pending_says_whether_a_line_is_ready(hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    assert not channel.pending()
    bot.send(b"late")
    assert wait_until(channel.pending)
    assert channel.recv(time.monotonic()) == "late"
    assert not channel.pending()


def test_recv_waits_until_the_deadline_and_no_longer(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, _ = bound_channel(hub, dealer, sleeper(spawn))
    start = time.monotonic()
    with pytest.raises(BotTimeout):
        channel.recv(start + 0.3)
    assert 0.3 <= time.monotonic() - start < 0.3 + LATE


@pytest.mark.parametrize(("frame", "message", "excerpt"), [
    (b"x" * 5000, "longer than 4096 bytes", "x" * 200 + "..."),
    (b"\xff\xfe bad", "not UTF-8", "\\xff\\xfe bad"),
    (b"one\ntwo", "exactly one line", "one\ntwo"),
])
def test_framing_errors_are_protocol_errors_with_the_offending_bytes(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn, frame: bytes, message: str,
        excerpt: str) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    bot.send(frame)
    with pytest.raises(ProtocolError, match=message) as caught:
        channel.recv(soon())
    assert caught.value.line == excerpt


def test_a_message_of_several_frames_is_a_protocol_error(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    bot.send_multipart([b"", b"r3"])  # what a REQ socket would send
    with pytest.raises(ProtocolError, match="exactly one frame, got 2"):
        channel.recv(soon())


def test_unread_lines_past_the_cap_are_a_flood_after_the_queued_ones(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    for i in range(MAX_QUEUED_LINES + 50):
        bot.send(f"line {i}".encode())
    end = time.monotonic() + 2  # the referee takes in, without reading, all that comes
    while time.monotonic() < end:
        channel.drain()
        time.sleep(0.05)
    assert channel.pending()
    got = [channel.recv(soon()) for _ in range(MAX_QUEUED_LINES)]
    assert got == [f"line {i}" for i in range(MAX_QUEUED_LINES)]
    with pytest.raises(OutputFlood):
        channel.recv(soon())


def test_an_exit_wakes_the_wait_at_once_with_the_exit_code(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    process = spawn(argv_command("sh", "-c", "sleep 0.2; exit 5"))
    channel, _ = bound_channel(hub, dealer, process)
    start = time.monotonic()
    with pytest.raises(BotCrashed, match="exited with code 5") as caught:
        channel.recv(start + FAR)
    assert caught.value.exit_code == 5
    assert time.monotonic() - start < FAR / 2


def test_a_line_sent_just_before_the_exit_is_still_read(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    process = spawn(argv_command("sleep", "0.1"))
    channel, bot = bound_channel(hub, dealer, process)
    assert process.wait(3)
    bot.send(b"last words")
    assert channel.recv(soon()) == "last words"
    with pytest.raises(BotCrashed):
        channel.recv(soon())


def test_a_send_to_an_exited_bot_is_reported_as_a_crash_by_the_next_recv(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    process = spawn(argv_command("sh", "-c", "exit 4"))
    channel, _ = bound_channel(hub, dealer, process)
    assert process.wait(3)
    channel.send("PLAYED 0 a")  # sends never block or check: the wait for a reply does
    start = time.monotonic()
    with pytest.raises(BotCrashed) as caught:
        channel.recv(start + FAR)
    assert caught.value.exit_code == 4
    assert time.monotonic() - start < FAR / 2, "reported at once, not at the deadline"


def test_a_closed_channel_lets_go_of_its_endpoint(
        hub: ZmqHub, dealer: Dealer, spawn: Spawn) -> None:
    channel, bot = bound_channel(hub, dealer, sleeper(spawn))
    channel.close()
    channel.close()
    assert channel.closed and channel.folder is not None and not channel.folder.exists()
    bot.send(b"anyone?")  # goes nowhere, raises nothing


@pytest.mark.parametrize("line", ["a\nb", "a\rb", "x" * 4097])
def test_referee_lines_that_break_the_framing_are_refused(line: str) -> None:
    with pytest.raises(ValueError):
        encode_line(line)
    with pytest.raises(ValueError, match="line"):  # also among others in a batch
        encode_lines(["PLAYED 1 r3", line, "PLAY? r9"])


def test_a_batch_may_be_longer_than_one_line_may() -> None:
    lines = ["x" * 4000, "y" * 4000]
    assert encode_lines(lines) == ("x" * 4000 + "\n" + "y" * 4000).encode()


# --- the stdio channel -----------------------------------------------------------------

def stdio(spawn: Spawn, script: str) -> tuple[StdioChannel, BotProcess]:
    process = spawn(argv_command("python", "-c", script, stdio=True))
    return StdioChannel(process), process


ECHO = "import sys\nfor line in sys.stdin:\n    print('got ' + line.strip(), flush=True)"


def test_stdio_lines_flow_both_ways(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, ECHO)
    for word in ["one", "two", "three"]:
        channel.send(word)
        assert channel.recv(soon()) == f"got {word}"
    assert not channel.pending()


def test_stdio_batch_arrives_as_lines_in_order(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, ECHO)
    channel.send_lines(["one", "two", "three"])
    assert [channel.recv(soon()) for _ in range(3)] == ["got one", "got two", "got three"]


def test_stdio_accepts_crlf_and_a_last_line_without_newline(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, "import sys; sys.stdout.write('a\\r\\nb'); sys.exit(2)")
    assert channel.recv(soon()) == "a"
    assert channel.recv(soon()) == "b"
    with pytest.raises(BotCrashed) as caught:
        channel.recv(soon())
    assert caught.value.exit_code == 2


def test_stdio_overlong_line_is_reported_once_and_skipped(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, "print('y' * 9000); print('ok', flush=True); input()")
    with pytest.raises(ProtocolError, match="longer than 4096") as caught:
        channel.recv(soon())
    assert caught.value.line == "y" * 200 + "..."
    assert channel.recv(soon()) == "ok"


def test_stdio_not_utf8_is_a_protocol_error(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, "import sys; sys.stdout.buffer.write(b'\\xc3\\x28\\n'); "
                              "sys.stdout.flush(); input()")
    with pytest.raises(ProtocolError, match="not UTF-8") as caught:
        channel.recv(soon())
    assert caught.value.line == "\\xc3("


def assert_times_out(channel: Channel, seconds: float) -> None:
    """recv() raises BotTimeout at its deadline: not before, and not much after."""
    start = time.monotonic()
    with pytest.raises(BotTimeout):
        channel.recv(start + seconds)
    assert seconds <= time.monotonic() - start < seconds + LATE


def test_stdio_recv_is_bounded(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, "input()")
    assert_times_out(channel, 0.3)


def test_stdio_exit_is_seen_at_once_even_if_a_child_keeps_stdout_open(spawn: Spawn) -> None:
    process = spawn(argv_command("sh", "-c", f"sleep {FAR * 2:g} & sleep 0.2; exit 6",
                                 stdio=True))
    channel = StdioChannel(process)
    start = time.monotonic()
    with pytest.raises(BotCrashed, match="exited with code 6"):
        channel.recv(start + FAR)
    assert time.monotonic() - start < FAR / 2


def test_stdio_send_to_a_bot_that_does_not_read_times_out(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, "import time; time.sleep(60)")
    start = time.monotonic()
    with pytest.raises(BotTimeout, match="stopped reading"):
        for _ in range(100):  # 400 KB: far more than a pipe holds
            channel.send("z" * 4000, deadline=start + 0.3)
    assert 0.3 <= time.monotonic() - start < 0.3 + LATE


def test_stdio_send_to_a_closed_stdin_is_a_crash_with_the_exit_code(spawn: Spawn) -> None:
    channel, process = stdio(spawn, "import os, sys; os.close(0); sys.exit(7)")
    assert process.wait(3)
    with pytest.raises(BotCrashed) as caught:
        channel.send("PLAY? a")
    assert caught.value.exit_code == 7


def test_stdio_flood_past_the_cap(spawn: Spawn) -> None:
    channel, _ = stdio(spawn, f"print('\\n'.join(map(str, range({MAX_QUEUED_LINES + 50}))), "
                              "flush=True); input()")
    got = [channel.recv(soon()) for _ in range(MAX_QUEUED_LINES)]
    assert got == [str(i) for i in range(MAX_QUEUED_LINES)]
    with pytest.raises(OutputFlood):
        channel.recv(soon())


def test_stdio_channel_refuses_use_after_its_process_is_killed(spawn: Spawn) -> None:
    channel, process = stdio(spawn, "input()")
    process.kill()
    with pytest.raises(RuntimeError, match="closed"):
        channel.send("x")


# --- channels that poll before they sleep (busy_wait.py) -------------------------------

POLL = 0.005  # a budget well above a local round trip and well below the waits below
LATE_BOT = """
import os, sys, time, zmq
socket = zmq.Context().socket(zmq.DEALER)
socket.connect(sys.argv[1])
socket.send(("HELLO 2 %s late 1.0" % sys.argv[2]).encode())
for delay in (0.0, 0.05):  # one line at once, one after the polling budget
    time.sleep(delay)
    socket.send(b"r%d" % int(delay * 100))
time.sleep(30)
"""


def test_a_polling_zmq_channel_gets_early_and_late_lines_and_still_times_out(
        spawn: Spawn) -> None:
    with ZmqHub() as hub:
        channel = hub.channel(TOKEN, busy_wait=POLL)
        channel.attach(spawn(argv_command("python", "-c", LATE_BOT, channel.endpoint, TOKEN)))
        assert channel.recv(soon(10)).startswith("HELLO 2")
        assert channel.recv(soon()) == "r0"
        assert channel.recv(soon()) == "r5"
        assert_times_out(channel, 0.2)


def test_a_polling_stdio_channel_gets_early_and_late_lines_and_still_times_out(
        spawn: Spawn) -> None:
    script = "import time\nprint('r0', flush=True)\ntime.sleep(0.05)\nprint('r5', flush=True)\ninput()"
    process = spawn(argv_command("python", "-c", script, stdio=True))
    channel = StdioChannel(process, busy_wait=POLL)
    assert channel.recv(soon(10)) == "r0"
    assert channel.recv(soon()) == "r5"
    assert_times_out(channel, 0.2)


def test_a_polling_channel_still_sees_a_crash_at_once(spawn: Spawn) -> None:
    process = spawn(argv_command("python", "-c", "import sys; sys.exit(4)", stdio=True))
    channel = StdioChannel(process, busy_wait=POLL)
    start = time.monotonic()
    with pytest.raises(BotCrashed) as caught:
        channel.recv(start + FAR)
    assert caught.value.exit_code == 4
    assert time.monotonic() - start < FAR / 2
