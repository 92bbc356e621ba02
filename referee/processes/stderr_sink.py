"""A capped sink for a bot's stderr: the head as it comes, then only the tail.

A bot's stderr (and a ZeroMQ bot's stdout) goes into a pipe that a StderrSink owns. The
first `head` bytes pass to the destination as they arrive, so a crash still leaves them
there; after that only the last `tail` bytes are kept, in a bounded buffer, and written
behind a marker line when the pipe reaches end of file or the sink is closed:

    [referee: 123456789 bytes of stderr cut here]

So whatever a bot writes, its destination gets at most head + tail of its bytes and one
marker line (plus, in prefix mode, the prefixes and line ends that framing adds). One
daemon thread per process reads every sink's pipe with `selectors`; a forked child starts
its own when it makes its first sink. Writing to the destination never raises: an error
is counted, and the bytes are dropped.

Use:
    sink = StderrSink(path)                      # or StderrSink(2, prefix="[alice] ")
    popen = subprocess.Popen(argv, stderr=sink.child_fd(), ...)
    sink.started()                               # the child has its copy now
    ...                                          # kill the bot's processes
    sink.close()                                 # marker and tail; never blocks for long
"""

from __future__ import annotations

import os
import selectors
import threading
import time
from types import TracebackType

DEFAULT_HEAD = 64 * 1024  # bytes passed through as they arrive
DEFAULT_TAIL = 64 * 1024  # bytes kept from the end, written at EOF or close()
THREAD_NAME = "referee-stderr"  # the reader thread's name (one per process)

_READ_SIZE = 64 * 1024  # a Linux pipe's default capacity: one read usually empties it
_READS_PER_WAKE = 4  # per sink and wake-up, so that a flooding bot cannot hog the thread
_DRAIN_READS = 16  # close() reads at most this much: a live writer could refill forever
_MAX_LINE = 4096  # prefix mode holds back a partial line up to this long, then breaks it
_SELECT_RETRY = 0.05  # after an unexpected select() error: no busy loop
_FILE_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC


class StderrSink:
    """One bot's stderr: a pipe whose output goes, capped, to a file or to an fd."""

    def __init__(self, destination: str | os.PathLike[str] | int, *, prefix: str = "",
                 head: int = DEFAULT_HEAD, tail: int = DEFAULT_TAIL) -> None:
        """Destination: a path (opened to append; ours to close) or an fd (not ours)."""
        if head < 0 or tail < 0:
            raise ValueError(f"head and tail must not be negative (got {head}, {tail})")
        self._head = head
        self._tail = tail
        self._lines = _Lines(prefix.encode())
        self._ring = bytearray()  # the last `tail` bytes after the head
        self._total = 0  # bytes read from the pipe
        self._passed = 0  # of those, passed through as the head
        self._cut = 0  # of those, dropped
        self._errors = 0
        self._last_error: OSError | None = None
        self._pid = os.getpid()  # a forked child's copy of the sink must not act
        self._lock = threading.Lock()  # the reader thread and close(): one at a time
        self._done = threading.Event()  # the tail is written: EOF or close()
        read_fd, write_fd = os.pipe2(os.O_CLOEXEC)  # the child gets its copy by dup2
        os.set_blocking(read_fd, False)  # the child's end stays blocking, as bots expect
        self._read_fd: int | None = read_fd
        self._write_fd: int | None = write_fd
        self._dest_fd, self._owns_dest = self._open(destination)
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
        return self._total

    @property
    def cut_bytes(self) -> int:
        """Bytes dropped between the head and the tail so far."""
        return self._cut

    @property
    def write_errors(self) -> int:
        """Failed opens and writes of the destination (swallowed, not raised)."""
        return self._errors

    @property
    def last_error(self) -> OSError | None:
        """The latest of those errors, if any."""
        return self._last_error

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

    def close(self) -> None:
        """Read what the pipe holds without blocking, write marker and tail, close. Idempotent."""
        if os.getpid() != self._pid:
            # A forked child's copy: the parent reads and writes; its lock may be held
            # by a thread that does not exist here.
            self._close_fds()
            return
        with self._lock:
            if self._read_fd is not None:
                # Unregister first: the reader thread must not see the fd once closed.
                self._collector.unregister(self._read_fd)
                self._read(_DRAIN_READS)
                self._finish()
            self._close_write_end()

    def _on_readable(self) -> None:
        """The reader thread: take a bounded amount; at EOF, finish."""
        with self._lock:
            if self._read_fd is None:
                return  # closed meanwhile
            if self._read(_READS_PER_WAKE):
                self._collector.unregister(self._read_fd)
                self._finish()

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
            self._take(data)
        return False

    def _take(self, data: bytes) -> None:
        """Pass `data` through while the head lasts; keep the rest in the ring."""
        self._total += len(data)
        room = self._head - self._passed
        if room > 0:
            self._passed += min(room, len(data))
            self._write(self._lines.feed(data[:room]))
            data = data[room:]
        if data:
            self._keep(data)

    def _keep(self, data: bytes) -> None:
        """Append to the ring, dropping (and counting) what falls off its front."""
        self._ring += data
        excess = len(self._ring) - self._tail
        if excess > 0:
            del self._ring[:excess]  # cheap: a bytearray moves its start, not its bytes
            self._cut += excess

    def _finish(self) -> None:
        """Write the marker (if anything was cut) and the tail; close the read side."""
        out = b""
        if self._cut:
            out = self._lines.end_line() + self._lines.feed(_marker(self._cut))
        out += self._lines.feed(bytes(self._ring)) + self._lines.flush()
        self._ring = bytearray()
        self._write(out)
        self._close_fd("_read_fd")
        if self._owns_dest:
            self._close_fd("_dest_fd")
        self._done.set()

    def _open(self, destination: str | os.PathLike[str] | int) -> tuple[int | None, bool]:
        """The destination fd (None if it cannot be opened) and whether we own it."""
        if isinstance(destination, int):
            return destination, False
        try:
            return os.open(destination, _FILE_FLAGS, 0o666), True
        except OSError as error:
            self._note(error)  # the bot still runs; its stderr is drained and dropped
            return None, False

    def _write(self, data: bytes) -> None:
        """Write all of `data` to the destination; an error drops it, counted, never raised."""
        if self._dest_fd is None:
            return
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._dest_fd, view)
            except OSError as error:  # ENOSPC, EBADF, EPIPE, EAGAIN (a non-blocking fd)...
                self._note(error)
                return
            if written <= 0:
                return  # no progress, no error: do not spin
            view = view[written:]

    def _note(self, error: OSError) -> None:
        self._errors += 1
        self._last_error = error

    def _close_write_end(self) -> None:
        self._close_fd("_write_fd")

    def _close_fds(self) -> None:
        """Close every fd we own, without reading or writing (a failed start, a forked copy)."""
        self._close_fd("_read_fd")
        self._close_fd("_write_fd")
        if self._owns_dest:
            self._close_fd("_dest_fd")

    def _close_fd(self, name: str) -> None:
        """Close the fd in attribute `name` (if open) and forget it."""
        fd: int | None = getattr(self, name)
        setattr(self, name, None)
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
        return self._prefix + lines[:-1].replace(b"\n", b"\n" + self._prefix) + b"\n"


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
