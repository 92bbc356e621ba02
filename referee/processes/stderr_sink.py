"""A capped sink for a bot's stderr: the head as it comes, then only the tail.

A bot's stderr (and a ZeroMQ bot's stdout) goes into a pipe that a StderrSink owns. The
first `head` bytes pass to the destination as they arrive, so a crash still leaves them
there; after that only the last `tail` bytes are kept, in a bounded buffer, and written
behind a marker line when the pipe reaches end of file or the sink is closed:

    [referee: 123456789 bytes of stderr cut here]

So whatever a bot writes, its destination gets at most head + tail of its bytes and one
marker line (plus, in prefix mode, the prefixes and line ends that framing adds).

Prefix mode is for our own stderr, a terminal: there a bot's control characters (escape
sequences, carriage returns, C1 codes) are written as escapes like `\x1b`, so no bot can
clear the screen or overwrite another line, such as a verdict of `referee check`. Files
keep the bytes as they came. One
daemon thread per process reads every sink's pipe with `selectors`; a forked child starts
its own when it makes its first sink. Writing to the destination never raises: an error
is counted, and the bytes are dropped.

A bot process that plays many games can have each game's output kept apart:
`redirect(path)` sends what follows to a file of its own, which keeps only the last
`tail` bytes behind the marker (written when the visit ends; no file if the bot wrote
nothing), and `redirect(None)` ends that visit and returns to the sink's own destination,
whose head and tail budget spans the whole process, so no file grows without bound.

Use:
    sink = StderrSink(path)                      # or StderrSink(2, prefix="[alice] ")
    popen = subprocess.Popen(argv, stderr=sink.child_fd(), ...)
    sink.started()                               # the child has its copy now
    sink.redirect(game_path)                     # a game starts: its own file
    sink.redirect(None)                          # it ends: drained, back to `path`
    ...                                          # kill the bot's processes
    sink.close()                                 # marker and tail; never blocks for long
"""

from __future__ import annotations

import os
import re
import selectors
import threading
import time
from types import TracebackType

from referee.printable import printable

DEFAULT_HEAD = 64 * 1024  # bytes passed through as they arrive
DEFAULT_TAIL = 64 * 1024  # bytes kept from the end, written at EOF or close()
RECENT = 4 * 1024  # the last bytes kept in memory for a fault's record (recent())
THREAD_NAME = "referee-stderr"  # the reader thread's name (one per process)

_READ_SIZE = 64 * 1024  # a Linux pipe's default capacity: one read usually empties it
_READS_PER_WAKE = 4  # per sink and wake-up, so that a flooding bot cannot hog the thread
_DRAIN_READS = 16  # close() reads at most this much: a live writer could refill forever
_MAX_LINE = 4096  # prefix mode holds back a partial line up to this long, then breaks it
_SELECT_RETRY = 0.05  # after an unexpected select() error: no busy loop
_FILE_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
_VISIT_FLAGS = os.O_WRONLY | os.O_TRUNC | os.O_CREAT | os.O_CLOEXEC  # a game played again
# Set in a process ending mid-game: no visit's file is made from then on (drop_visits).
_VISITS_DROPPED = threading.Event()
# What a terminal would act on: C0 controls but tab and newline, DEL, every byte above
# ASCII (C1 codes raw or in UTF-8, bidirectional overrides) checked by printable().
_UNSAFE = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f-\xff]")
# A bot's token on a terminal: a stdio bot run as a ZeroMQ one prints its HELLO there.
_TOKEN_LIKE = re.compile(rb"(?<![0-9a-fA-F])[0-9a-fA-F]{32}(?![0-9a-fA-F])")


def drop_visits() -> None:
    """Make no visit's file (a game's stderr) from now on, in this process: for a pool
    worker ended mid-game, whose game is not stored and whose files are removed
    (referee/logs/unfinished.py). Its bots, killed next, reach the end of their pipes
    after that, and a visit's file is made only when the visit ends."""
    _VISITS_DROPPED.set()


class StderrSink:
    """One bot's stderr: a pipe whose output goes, capped, to a file or to an fd."""

    def __init__(self, destination: str | os.PathLike[str] | int, *, prefix: str = "",
                 head: int = DEFAULT_HEAD, tail: int = DEFAULT_TAIL) -> None:
        """Destination: a path (opened to append; ours to close) or an fd (not ours)."""
        _check_sizes(head, tail)
        self._stats = _Stats()
        self._pid = os.getpid()  # a forked child's copy of the sink must not act
        self._lock = threading.Lock()  # the reader thread, redirect() and close(): one at a time
        self._done = threading.Event()  # the tail is written: EOF or close()
        read_fd, write_fd = os.pipe2(os.O_CLOEXEC)  # the child gets its copy by dup2
        os.set_blocking(read_fd, False)  # the child's end stays blocking, as bots expect
        self._read_fd: int | None = read_fd
        self._write_fd: int | None = write_fd
        self._home = _Output(destination, self._stats, _FILE_FLAGS, prefix=prefix.encode(),
                             head=head, tail=tail)
        self._out = self._home  # where bytes go now: home, or a redirect's visit
        # The last RECENT bytes since the last redirect: what a fault quotes, read at
        # once from memory, whatever the destination (a terminal keeps nothing to read).
        self._recent = bytearray()
        try:
            self._collector = _collector()
            self._collector.register(read_fd, self)
        except BaseException:
            self._close_fds()
            raise

    def __enter__(self) -> StderrSink:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    @property
    def total_bytes(self) -> int:
        """Bytes the bot wrote that were read so far."""
        return self._stats.total

    @property
    def cut_bytes(self) -> int:
        """Bytes dropped between the head and the tail so far (every destination)."""
        return self._stats.cut

    @property
    def write_errors(self) -> int:
        """Failed opens and writes of the destination (swallowed, not raised)."""
        return self._stats.errors

    @property
    def last_error(self) -> OSError | None:
        """The latest of those errors, if any."""
        return self._stats.last_error

    def recent(self) -> bytes:
        """The last bytes (at most RECENT) the bot wrote since the sink was made or last
        redirected: for a game, what it wrote in that game."""
        with self._lock:
            return bytes(self._recent)

    def child_fd(self) -> int:
        """The pipe's write end: the child's stderr (and a ZeroMQ bot's stdout)."""
        if self._write_fd is None:
            raise ValueError("the sink's write end is closed (after started() or close())")
        return self._write_fd

    def started(self) -> None:
        """The child is spawned: close our copy of the write end, so its exit makes EOF."""
        with self._lock:
            self._close_write_end()

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for EOF (or close()); True if the tail is written."""
        return self._done.wait(timeout)

    def redirect(self, destination: str | os.PathLike[str] | None, *,
                 tail: int = DEFAULT_TAIL) -> int:
        """Send what the bot writes from now on to the file `destination` (a visit), or
        for None back to the sink's own destination. What the pipe holds goes to the
        current one first; a visit it ends gets its marker and tail written and is closed.

        A visit's file keeps the last `tail` bytes, behind the marker if any were cut; it is
        made (replacing an older one) only once the bot wrote something. After EOF or
        close() nothing more arrives. Returns the bytes the ended visit received (0 if
        there was none)."""
        _check_sizes(0, tail)
        if os.getpid() != self._pid:
            return 0  # a forked child's copy: the parent's sink, not ours to move
        with self._lock:
            if self._read_fd is not None and self._read(_DRAIN_READS):
                self._end()
            ended = self._out
            self._recent.clear()
            self._out = self._home if destination is None else _Output(
                destination, self._stats, _VISIT_FLAGS, head=0, tail=tail, lazy=True)
            if ended is self._home:
                return 0
            ended.finish()  # a no-op if EOF or close() finished it already
            return ended.total

    def close(self) -> None:
        """Read what the pipe holds without blocking, write marker and tail, close. Idempotent."""
        if os.getpid() != self._pid:
            # A forked child's copy: the parent reads and writes; its lock may be held
            # by a thread that does not exist here.
            self._close_fds()
            return
        with self._lock:
            if self._read_fd is not None:
                self._read(_DRAIN_READS)
                self._end()
            self._close_write_end()

    def _on_readable(self) -> None:
        """The reader thread: take a bounded amount; at EOF, finish."""
        with self._lock:
            if self._read_fd is None:
                return  # closed meanwhile
            if self._read(_READS_PER_WAKE):
                self._end()

    def _read(self, limit: int) -> bool:
        """Up to `limit` non-blocking reads, each taken in; True at end of file."""
        assert self._read_fd is not None
        for _ in range(limit):
            try:
                data = os.read(self._read_fd, _READ_SIZE)
            except BlockingIOError:
                return False
            except OSError:
                return True  # cannot happen to a pipe we own; treat as the end
            if not data:
                return True
            self._stats.total += len(data)
            self._out.take(data)
            recent = self._recent
            if len(data) >= RECENT:  # a flood: only its end is kept, not copied whole
                recent[:] = data[-RECENT:]
            else:
                recent += data
                if len(recent) > RECENT:
                    del recent[:len(recent) - RECENT]
        return False

    def _end(self) -> None:
        """EOF or close(): stop reading, write every open destination's marker and tail."""
        assert self._read_fd is not None
        # Unregister first: the reader thread must not see the fd once closed.
        self._collector.unregister(self._read_fd)
        self._out.finish()
        self._home.finish()  # a no-op if it was the current one
        self._close_fd("_read_fd")
        self._done.set()

    def _close_write_end(self) -> None:
        self._close_fd("_write_fd")

    def _close_fds(self) -> None:
        """Close every fd we own, without reading or writing (a failed start, a forked copy)."""
        self._close_fd("_read_fd")
        self._close_fd("_write_fd")
        self._out.close()
        self._home.close()

    def _close_fd(self, name: str) -> None:
        """Close the fd in attribute `name` (if open) and forget it."""
        fd: int | None = getattr(self, name)
        setattr(self, name, None)
        _close_quietly(fd)


class _Stats:
    """What a sink counts, over all its destinations."""

    def __init__(self) -> None:
        self.total = 0  # bytes read from the pipe
        self.cut = 0  # of those, dropped between a head and a tail
        self.errors = 0  # failed opens and writes
        self.last_error: OSError | None = None

    def note(self, error: OSError) -> None:
        self.errors += 1
        self.last_error = error


class _Output:
    """One destination with its own caps: the first `head` bytes pass as they come, then
    only the last `tail` are kept, written behind the marker by finish()."""

    def __init__(self, destination: str | os.PathLike[str] | int, stats: _Stats, flags: int,
                 *, prefix: bytes = b"", head: int, tail: int, lazy: bool = False) -> None:
        """A path is opened with `flags` (ours to close): now, or if `lazy` at the first
        write, so that a bot that writes nothing leaves no file; an fd is not ours."""
        self._stats = stats
        self._flags = flags
        self._head = head
        self._tail = tail
        self._lines = _Lines(prefix)
        self._ring = bytearray()  # the last `tail` bytes after the head
        self._passed = 0  # bytes passed through as the head
        self._cut = 0  # bytes dropped between head and tail
        self.total = 0  # bytes taken
        self._finished = False
        self._path: str | os.PathLike[str] | None = None  # not opened yet
        self._lazy = lazy
        self._fd: int | None = None
        self._owns = False
        if isinstance(destination, int):
            self._fd = destination
        else:
            self._path = destination
            if not lazy:
                self._open()

    def take(self, data: bytes) -> None:
        """Pass `data` through while the head lasts; keep the rest in the ring."""
        self.total += len(data)
        room = self._head - self._passed
        if room > 0:
            self._passed += min(room, len(data))
            self._write(self._lines.feed(data[:room]))
            data = data[room:]
        if data:
            self._keep(data)

    def finish(self) -> None:
        """Write the marker (if anything was cut) and the tail; close. Idempotent."""
        if self._finished:
            return
        self._finished = True
        out = b""
        if self._cut:
            out = self._lines.end_line() + self._lines.feed(_marker(self._cut))
        out += self._lines.feed(bytes(self._ring)) + self._lines.flush()
        self._ring = bytearray()
        self._write(out)
        self.close()

    def close(self) -> None:
        """Close the destination if it is ours, writing nothing more."""
        self._path = None  # never opened now
        if self._owns:
            self._owns = False
            fd, self._fd = self._fd, None
            _close_quietly(fd)

    def _keep(self, data: bytes) -> None:
        """Append to the ring, dropping (and counting) what falls off its front."""
        self._ring += data
        excess = len(self._ring) - self._tail
        if excess > 0:
            del self._ring[:excess]  # cheap: a bytearray moves its start, not its bytes
            self._cut += excess
            self._stats.cut += excess

    def _open(self) -> None:
        """Open the path, once; a failure is counted and the bytes are dropped. A visit's
        (a lazy file) is not made once the process drops them (drop_visits)."""
        path, self._path = self._path, None
        assert path is not None
        if self._lazy and _VISITS_DROPPED.is_set():
            return
        try:
            self._fd, self._owns = os.open(path, self._flags, 0o666), True
        except OSError as error:
            self._stats.note(error)  # the bot still runs; its stderr is drained and dropped

    def _write(self, data: bytes) -> None:
        """Write all of `data` to the destination; an error drops it, counted, never raised."""
        if data and self._path is not None:
            self._open()
        if self._fd is None:
            return
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except OSError as error:  # ENOSPC, EBADF, EPIPE, EAGAIN (a non-blocking fd)...
                self._stats.note(error)
                return
            if written <= 0:
                return  # no progress, no error: do not spin
            view = view[written:]


def _check_sizes(head: int, tail: int) -> None:
    if head < 0 or tail < 0:
        raise ValueError(f"head and tail must not be negative (got {head}, {tail})")


def _close_quietly(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def _marker(cut: int) -> bytes:
    """The line that stands for the `cut` bytes dropped between head and tail."""
    return b"[referee: %d bytes of stderr cut here]\n" % cut


class _Lines:
    """Line framing of what goes out: a prefix in front of every line, if one is set."""

    def __init__(self, prefix: bytes) -> None:
        self._prefix = prefix
        self._pending = b""  # prefix mode: a partial line, held back
        self._mid_line = False  # no prefix: the last byte out was not a newline

    def feed(self, data: bytes) -> bytes:
        """What to write for `data`: itself, or (prefix mode) its complete lines, prefixed."""
        if not self._prefix:
            if data:
                self._mid_line = not data.endswith(b"\n")
            return data
        # Holding back a partial line keeps bots that share one fd from splicing their
        # text into each other's lines.
        buffer = self._pending + data
        end = buffer.rfind(b"\n") + 1
        lines, self._pending = buffer[:end], buffer[end:]
        if len(self._pending) > _MAX_LINE:  # a huge line is broken, not held without bound
            lines, self._pending = lines + self._pending + b"\n", b""
        return self._prefixed(lines)

    def end_line(self) -> bytes:
        """What ends the current line, if one is open (so the marker gets its own)."""
        if self._prefix:
            return self.flush()
        out = b"\n" if self._mid_line else b""
        self._mid_line = False
        return out

    def flush(self) -> bytes:
        """At the end: the held-back partial line, with a newline (prefix mode only)."""
        lines, self._pending = self._pending, b""
        return self._prefixed(lines + b"\n") if lines else b""

    def _prefixed(self, lines: bytes) -> bytes:
        """`lines` (each ending with a newline) with the prefix in front of each."""
        if not lines:
            return b""
        lines = _TOKEN_LIKE.sub(b"<token>", _terminal_safe(lines))
        return self._prefix + lines[:-1].replace(b"\n", b"\n" + self._prefix) + b"\n"


def _terminal_safe(lines: bytes) -> bytes:
    """Lines as a terminal may show them: what it would act on (escape sequences, C1
    codes raw or in UTF-8, bidirectional overrides that reorder what follows, bytes that
    are no UTF-8) as escapes, e.g. b'\x1b' as the four bytes \\x1b."""
    if not _UNSAFE.search(lines):
        return lines  # plain ASCII: most of what bots write
    text = lines.decode("utf-8", "surrogateescape")
    return "\n".join(printable(line) for line in text.split("\n")).encode("utf-8")


class _Collector:
    """The one thread that reads every sink's pipe in this process."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()  # sinks register and unregister from any thread
        # Woken after every change, so that a select() that started before it uses the
        # new set (epoll would not need it; select and poll would).
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self._thread.start()

    def register(self, fd: int, sink: StderrSink) -> None:
        """Read `fd` for `sink` from now on."""
        with self._lock:
            self._selector.register(fd, selectors.EVENT_READ, sink)
        self._wake()

    def unregister(self, fd: int) -> None:
        """Stop reading `fd` (before it is closed). Idempotent."""
        with self._lock:
            try:
                self._selector.unregister(fd)
            except (KeyError, ValueError):
                pass
        self._wake()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"\0")
        except OSError:
            pass  # full: a wake-up is pending anyway

    def _run(self) -> None:
        """Serve ready sinks forever (a daemon: it dies with the process)."""
        while True:
            try:
                events = self._selector.select()
            except OSError:
                time.sleep(_SELECT_RETRY)
                continue
            for key, _ in events:
                if isinstance(key.data, StderrSink):
                    self._serve(key.fd, key.data)
                else:
                    self._drain_wake()

    def _serve(self, fd: int, sink: StderrSink) -> None:
        """Let `sink` read; a bug in one sink costs that bot's stderr, not every bot's."""
        try:
            sink._on_readable()
        except Exception:  # noqa: BLE001 - the thread must live on for the other sinks
            self.unregister(fd)

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except OSError:
            pass  # BlockingIOError: drained


_instance: _Collector | None = None
_instance_lock = threading.Lock()


def _collector() -> _Collector:
    """This process's reader thread, started on first use."""
    global _instance
    with _instance_lock:
        if _instance is None:
            _instance = _Collector()
        return _instance


def _reset_in_child() -> None:
    """In a forked child: the reader thread did not survive fork; the next sink starts one.

    Nothing is closed here. subprocess runs these hooks in a child it forks with a
    preexec_fn (as BotProcess.spawn does) before it dup2s the sink's write end onto the
    child's fd 2: closing inherited fds here would break that spawn.
    """
    global _instance, _instance_lock
    _instance = None
    _instance_lock = threading.Lock()  # it may have been held at the fork


os.register_at_fork(after_in_child=_reset_in_child)
