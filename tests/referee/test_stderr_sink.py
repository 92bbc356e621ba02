"""The capped stderr sink, with real bot processes writing into it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.processes import stderr_sink
from referee.processes.stderr_sink import DEFAULT_HEAD, DEFAULT_TAIL, THREAD_NAME, StderrSink
from tests.referee.fault_bots.support import wait_until

MARKER = re.compile(rb"\[referee: (\d+) bytes of stderr cut here\]\n")
PROMPT = 10.0  # "returns promptly", generous for a loaded machine: the pipe's writers
# live far longer (60 s, or for ever), so a close that waited for them fails it
BIG_TAIL_SIZE = 512 * 1024  # the numbered lines at each end of the 50 MB flood

# The flood: numbered head lines, 49 MB of filler, numbered tail lines; deterministic, so
# the test can rebuild its ends.
FLOOD = """
import sys
def numbered(tag, size):
    lines = b"".join(b"%s%07d\\n" % (tag, i) for i in range(size // 9 + 1))
    return lines[:size]
out = sys.stderr.buffer
out.write(numbered(b"h", {n}))
filler = (b"-" * 1023 + b"\\n") * 1024
for _ in range(49):
    out.write(filler)
out.write(numbered(b"t", {n}))
out.flush()
""".format(n=BIG_TAIL_SIZE)


def numbered(tag: bytes, size: int) -> bytes:
    """The same as the flood's numbered(): lines 'h0000000', 'h0000001'..., cut to `size`."""
    lines = b"".join(b"%s%07d\n" % (tag, i) for i in range(size // 9 + 1))
    return lines[:size]


FLOOD_TOTAL = 2 * BIG_TAIL_SIZE + 49 * 1024 * 1024


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts; killed afterwards."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def run_bot(processes: list[subprocess.Popen[bytes]], sink: StderrSink, code: str,
            stdout: int | None = None) -> subprocess.Popen[bytes]:
    """Start `python -c code` with its stderr into `sink`, as the referee would."""
    process = subprocess.Popen([sys.executable, "-c", code], stderr=sink.child_fd(),
                               stdout=stdout, stdin=subprocess.DEVNULL)
    sink.started()
    processes.append(process)
    return process


def write_stderr(text: bytes) -> str:
    """Code for a bot that writes `text` to stderr and exits."""
    return f"import sys; sys.stderr.buffer.write({text!r}); sys.stderr.flush()"


def test_a_50_mb_flood_leaves_head_marker_and_tail(tmp_path: Path,
                                                    processes: list[subprocess.Popen[bytes]]
                                                    ) -> None:
    out = tmp_path / "alice.stderr"
    sink = StderrSink(out)
    bot = run_bot(processes, sink, FLOOD)
    assert bot.wait(60) == 0
    assert sink.wait(10), "EOF seen once the bot is gone"
    sink.close()
    data = out.read_bytes()
    match = MARKER.search(data)
    assert match is not None
    assert len(data) <= DEFAULT_HEAD + DEFAULT_TAIL + len(match.group(0)) + 1  # + "\n" before
    head, tail = data[:match.start()], data[match.end():]
    expected_head = numbered(b"h", BIG_TAIL_SIZE)[:DEFAULT_HEAD]
    assert not expected_head.endswith(b"\n")
    assert head == expected_head + b"\n"  # the head ends mid-line: the marker gets its own
    assert tail == numbered(b"t", BIG_TAIL_SIZE)[-DEFAULT_TAIL:]
    assert int(match.group(1)) == FLOOD_TOTAL - DEFAULT_HEAD - DEFAULT_TAIL
    assert sink.total_bytes == FLOOD_TOTAL
    assert sink.cut_bytes == int(match.group(1))


def test_the_head_is_written_live(tmp_path: Path,
                                  processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "bot.stderr"
    sink = StderrSink(out)
    run_bot(processes, sink, "import sys, time; sys.stderr.write('alive\\n'); "
                             "sys.stderr.flush(); time.sleep(60)")
    assert wait_until(lambda: out.read_bytes() == b"alive\n", timeout=10)
    processes[0].kill()
    sink.close()
    assert out.read_bytes() == b"alive\n"


def test_a_small_stderr_passes_through_unchanged(tmp_path: Path,
                                                 processes: list[subprocess.Popen[bytes]]
                                                 ) -> None:
    out = tmp_path / "bot.stderr"
    out.write_bytes(b"from an earlier game\n")  # append mode: kept
    text = b"Traceback (most recent call last):\n  oops\n\x00\xff no newline at the end"
    sink = StderrSink(out)
    assert run_bot(processes, sink, write_stderr(text)).wait(10) == 0
    sink.close()
    assert out.read_bytes() == b"from an earlier game\n" + text
    assert sink.cut_bytes == 0


def test_between_head_and_head_plus_tail_nothing_is_cut(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "bot.stderr"
    text = bytes(range(256)) * 2  # 512 bytes: more than the head, less than head + tail
    sink = StderrSink(out, head=300, tail=300)
    assert run_bot(processes, sink, write_stderr(text)).wait(10) == 0
    assert sink.wait(10)
    sink.close()
    assert out.read_bytes() == text


def test_eof_writes_marker_and_tail_without_close(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "bot.stderr"
    text = b"".join(b"line %d\n" % i for i in range(1000))
    sink = StderrSink(out, head=100, tail=100)
    assert run_bot(processes, sink, write_stderr(text)).wait(10) == 0
    assert sink.wait(10)
    data = out.read_bytes()  # before close(): a referee killed now keeps this
    sink.close()
    assert data == out.read_bytes()
    match = MARKER.search(data)
    assert match is not None
    assert int(match.group(1)) == len(text) - 200
    assert data[:match.start()] == text[:100] + b"\n"  # the head ended mid-line
    assert data[match.end():] == text[-100:]


def test_close_returns_promptly_while_a_grandchild_floods_the_pipe(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "bot.stderr"
    sink = StderrSink(out, head=1000, tail=1000)
    # The bot starts a grandchild that inherits its stderr and writes to it forever,
    # then dies: the pipe never reaches EOF.
    grandchild = "import sys\nwhile True: sys.stderr.write('x' * 1000 + '\\n')"
    bot = run_bot(processes, sink,
                  "import subprocess, sys\n"
                  f"p = subprocess.Popen([sys.executable, '-c', {grandchild!r}])\n"
                  "print(p.pid, flush=True)\n", stdout=subprocess.PIPE)
    assert bot.stdout is not None
    grandchild_pid = int(bot.stdout.readline())
    try:
        assert bot.wait(10) == 0
        assert wait_until(lambda: sink.total_bytes > 100_000, timeout=10)
        assert not sink.wait(0.1)  # no EOF: the grandchild holds the pipe
        began = time.monotonic()
        sink.close()
        assert time.monotonic() - began < PROMPT
    finally:
        os.kill(grandchild_pid, signal.SIGKILL)
    data = out.read_bytes()
    match = MARKER.search(data)
    assert match is not None
    assert len(data) <= 2000 + len(match.group(0)) + 1
    assert int(match.group(1)) == sink.total_bytes - 2000


def test_close_returns_promptly_while_a_grandchild_sleeps_on_the_pipe(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "bot.stderr"
    sink = StderrSink(out)
    bot = run_bot(processes, sink,
                  "import subprocess, sys\n"
                  "p = subprocess.Popen(['sleep', '60'])\n"
                  "sys.stderr.write('bye\\n')\n"
                  "print(p.pid, flush=True)\n", stdout=subprocess.PIPE)
    assert bot.stdout is not None
    grandchild_pid = int(bot.stdout.readline())
    try:
        assert bot.wait(10) == 0
        began = time.monotonic()
        sink.close()
        assert time.monotonic() - began < PROMPT
    finally:
        os.kill(grandchild_pid, signal.SIGKILL)
    assert out.read_bytes() == b"bye\n"


@pytest.mark.parametrize("where", ["no such directory", "/dev/full"])
def test_an_unwritable_file_raises_nothing(tmp_path: Path, where: str,
                                           processes: list[subprocess.Popen[bytes]]) -> None:
    # A path that cannot be opened, or a device that answers every write with ENOSPC.
    path = tmp_path / "missing" / "bot.stderr" if where == "no such directory" else Path(where)
    sink = StderrSink(path, head=1000, tail=1000)
    assert run_bot(processes, sink, write_stderr(b"y" * 100_000)).wait(10) == 0
    assert sink.wait(10)
    sink.close()
    assert sink.write_errors >= 1
    assert sink.last_error is not None
    assert sink.total_bytes == 100_000  # still drained: the bot never blocks on it


def test_a_bad_fd_destination_raises_nothing(processes: list[subprocess.Popen[bytes]]) -> None:
    bad_fd = closed_fd()
    sink = StderrSink(bad_fd, prefix="[bob] ")
    assert run_bot(processes, sink, write_stderr(b"hello\n" * 1000)).wait(10) == 0
    sink.close()
    assert sink.write_errors >= 1
    assert isinstance(sink.last_error, OSError)


def test_a_broken_pipe_destination_raises_nothing(
        processes: list[subprocess.Popen[bytes]]) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # EPIPE on every write
    try:
        sink = StderrSink(write_end)
        assert run_bot(processes, sink, write_stderr(b"z" * 10_000)).wait(10) == 0
        sink.close()
    finally:
        os.close(write_end)
    assert sink.write_errors >= 1


def closed_fd() -> int:
    """An fd number that is not open (high, so nothing in the test opens it meanwhile)."""
    for fd in range(900, 1000):
        try:
            os.fstat(fd)
        except OSError:
            return fd
    raise AssertionError("no free fd")


def test_prefix_mode_prefixes_every_line(tmp_path: Path,
                                         processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "shared"
    with open(out, "wb") as shared:  # an fd we own, like the referee's fd 2
        sink = StderrSink(shared.fileno(), prefix="[alice] ")
        text = b"one\ntwo\n\nthree without a newline"
        assert run_bot(processes, sink, write_stderr(text)).wait(10) == 0
        sink.close()
        os.fstat(shared.fileno())  # still open: the sink does not own an fd destination
    assert out.read_bytes() == b"[alice] one\n[alice] two\n[alice] \n[alice] three without a newline\n"


def test_prefix_mode_shows_control_characters_escaped_and_a_file_keeps_them(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    """A bot must not clear the referee's terminal or rewrite a line of it: no escape
    sequence, no C1 code (in UTF-8 or a raw 0x9b, the 8-bit CSI), no bidirectional
    override (U+202E would show the rest of the line backwards)."""
    text = (b"\x1b[2Jclear\rPASS\tok\xc2\x9b2J \xc3\xa9t\xc3\xa9\x7f raw\x9b2J "
            b"\xe2\x80\xaeevil\n")
    out, kept = tmp_path / "shared", tmp_path / "bot.stderr"
    with open(out, "wb") as shared:
        sinks = [StderrSink(shared.fileno(), prefix="[eve] "), StderrSink(kept)]
        for sink in sinks:
            assert run_bot(processes, sink, write_stderr(text)).wait(10) == 0
            sink.close()
    assert out.read_bytes() == (b"[eve] \\x1b[2Jclear\\rPASS\\tok\\x9b2J "
                                b"\xc3\xa9t\xc3\xa9\\x7f raw\\udc9b2J \\u202eevil\n")
    assert kept.read_bytes() == text


def test_prefix_mode_prefixes_marker_and_tail_lines(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "shared"
    text = b"".join(b"line %d\n" % i for i in range(10_000))
    with open(out, "wb") as shared:
        sink = StderrSink(shared.fileno(), prefix="[alice] ", head=1000, tail=1000)
        assert run_bot(processes, sink, write_stderr(text)).wait(10) == 0
        sink.close()
    data = out.read_bytes()
    lines = data.splitlines(keepends=True)
    assert all(line.startswith(b"[alice] ") and line.endswith(b"\n") for line in lines)
    assert any(MARKER.fullmatch(line[len(b"[alice] "):]) for line in lines)
    assert data.endswith(b"[alice] line 9999\n")
    # Bot bytes are capped; the framing adds a prefix and at most one newline per line.
    assert len(data) <= 2000 + len(lines) * (len(b"[alice] ") + 1) + 60


def test_prefix_mode_keeps_two_bots_lines_apart(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "shared"
    code = ("import sys, time\n"
            "for i in range(200):\n"
            "    sys.stderr.write('part-'); sys.stderr.flush(); time.sleep(0.001)\n"
            "    sys.stderr.write('%d\\n' % i); sys.stderr.flush()\n")
    with open(out, "wb") as shared:
        sinks = [StderrSink(shared.fileno(), prefix=f"[{name}] ") for name in ("a", "b")]
        bots = [run_bot(processes, sink, code) for sink in sinks]
        assert [bot.wait(20) for bot in bots] == [0, 0]
        for sink in sinks:
            sink.close()
    lines = out.read_bytes().splitlines()
    assert sorted(lines) == sorted(b"[%s] part-%d" % (n, i) for n in (b"a", b"b")
                                   for i in range(200))


def test_many_sinks_are_served_by_one_thread(tmp_path: Path,
                                             processes: list[subprocess.Popen[bytes]]) -> None:
    StderrSink(os.devnull).close()  # the reader thread exists from here on
    threads_before = threading.active_count()
    sinks = [StderrSink(tmp_path / f"bot{i}.stderr", head=1000, tail=1000) for i in range(50)]
    bots = [run_bot(processes, sink, write_stderr(b"bot %d\n" % i * 500))
            for i, sink in enumerate(sinks)]
    assert threading.active_count() == threads_before
    assert [t.name for t in threading.enumerate()].count(THREAD_NAME) == 1
    assert all(bot.wait(30) == 0 for bot in bots)
    assert all(sink.wait(10) for sink in sinks)
    for sink in sinks:
        sink.close()
    for i in range(50):
        data = (tmp_path / f"bot{i}.stderr").read_bytes()
        text = b"bot %d\n" % i * 500
        match = MARKER.search(data)
        assert match is not None
        assert int(match.group(1)) == len(text) - 2000
        assert data[:1000] == text[:1000]
        assert data[match.end():] == text[-1000:]


def test_close_is_idempotent_and_ends_the_write_end(tmp_path: Path) -> None:
    sink = StderrSink(tmp_path / "never.stderr")
    fd = sink.child_fd()
    sink.close()
    sink.close()
    with pytest.raises(ValueError):
        sink.child_fd()
    with pytest.raises(OSError):
        os.fstat(fd)


def test_a_forked_child_gets_its_own_reader(tmp_path: Path,
                                            processes: list[subprocess.Popen[bytes]]) -> None:
    StderrSink(os.devnull).close()  # the parent's reader thread is running
    parent_sink = StderrSink(tmp_path / "parent.stderr")
    pid = os.fork()
    if pid == 0:  # the child: a sink must work without the parent's thread
        status = 1
        try:
            sink = StderrSink(tmp_path / "child.stderr", head=10, tail=10)
            child_bot = subprocess.Popen([sys.executable, "-c", write_stderr(b"c" * 100)],
                                         stderr=sink.child_fd())
            sink.started()
            child_bot.wait()
            if sink.wait(10):
                sink.close()
                status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    child_data = (tmp_path / "child.stderr").read_bytes()
    assert child_data == b"c" * 10 + b"\n[referee: 80 bytes of stderr cut here]\n" + b"c" * 10
    # And the parent's sinks still work.
    assert run_bot(processes, parent_sink, write_stderr(b"parent\n")).wait(10) == 0
    assert parent_sink.wait(10)
    parent_sink.close()
    assert (tmp_path / "parent.stderr").read_bytes() == b"parent\n"


def test_negative_sizes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        StderrSink(tmp_path / "x", head=-1)
    assert stderr_sink.DEFAULT_TAIL == DEFAULT_TAIL


def test_a_spawn_with_preexec_fn_keeps_the_write_end(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    # BotProcess.spawn passes a preexec_fn, so our at-fork hook runs in the child before
    # subprocess dup2s the write end onto fd 2: the hook must not close it.
    out = tmp_path / "bot.stderr"
    sink = StderrSink(out)
    bot = subprocess.Popen([sys.executable, "-c", write_stderr(b"through\n")],
                           stderr=sink.child_fd(), preexec_fn=lambda: None)
    sink.started()
    processes.append(bot)
    assert bot.wait(10) == 0
    assert sink.wait(10)
    sink.close()
    assert out.read_bytes() == b"through\n"


def test_a_bot_flooding_forever_does_not_starve_the_referee(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    sink = StderrSink(tmp_path / "bot.stderr")
    run_bot(processes, sink, "import os\nwhile True: os.write(2, b'f' * 65536)")
    assert wait_until(lambda: sink.total_bytes > 10 * 1024 * 1024, timeout=30)
    began = time.monotonic()
    sum(i * i for i in range(200_000))  # the referee's own work, meanwhile
    for _ in range(10):
        time.sleep(0.01)
    assert time.monotonic() - began < PROMPT
    processes[0].kill()
    sink.close()
    assert (tmp_path / "bot.stderr").stat().st_size <= DEFAULT_HEAD + DEFAULT_TAIL + 100
