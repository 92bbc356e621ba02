"""The stdio channel: lines over a bot's own pipes, for bots without ZeroMQ."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Sequence

from protocols.wire import MAX_LINE_BYTES
from referee.errors import BotTimeout, ProtocolError
from referee.processes.bot_process import BotProcess
from referee.transport.channel import (
    DEFAULT_SEND_TIMEOUT, FALLBACK_SLICE, KEEP_ALIVE_SLICE, Channel, KeepAlive, crash_fault,
    encode_lines, excerpt, timeout_ms,
)
from referee.transport.inbox import Inbox

_READ_CHUNK = 1 << 16


class StdioChannel(Channel):
    """A bot's stdin/stdout pipes, non-blocking, with our own line buffer."""

    def __init__(self, process: BotProcess, busy_wait: float | None = None,
                 hub: KeepAlive | None = None) -> None:
        super().__init__(busy_wait, hub)
        if process.stdin is None or process.stdout is None:
            raise ValueError("a stdio channel needs a process started with stdio pipes")
        self._process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._wfd = process.stdin.fileno()
        self._rfd = process.stdout.fileno()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)
        self._inbox = Inbox()
        self._buf = bytearray()
        self._skipping = False  # inside an over-long line, already reported
        self._eof = False

    def send_lines(self, lines: Sequence[str], deadline: float | None = None) -> None:
        """The lines, each ended by a newline, in one write where the pipe has room."""
        data = memoryview(encode_lines(lines) + b"\n" if lines else b"")
        self._check_open()
        end = time.monotonic() + DEFAULT_SEND_TIMEOUT if deadline is None else deadline
        while data:
            try:
                data = data[os.write(self._wfd, data):]
            except BlockingIOError:
                if not self._wait_writable(end):
                    raise BotTimeout("bot stopped reading its standard input") from None
            except BrokenPipeError:
                raise crash_fault(self._process, "closed its standard input") from None

    def _wait_writable(self, deadline: float) -> bool:
        """Wait for room in the pipe, at most a KEEP_ALIVE_SLICE, then let the hub serve
        the other bots' connections if due; False once the deadline has passed."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        poller = select.poll()
        poller.register(self._wfd, select.POLLOUT)
        poller.poll(timeout_ms(min(remaining, KEEP_ALIVE_SLICE)))
        self.serve_others()
        return True

    def _check_open(self) -> None:
        # The fds are raw numbers: after a close they may already belong to another file.
        if self._stdin.closed or self._stdout.closed:
            raise RuntimeError("this stdio channel or its process is closed")

    def _wait_line(self, deadline: float) -> str:
        self._check_open()
        while True:
            self.serve_others()
            line = self._inbox.take()
            if line is not None:
                return line
            if self._eof:
                raise crash_fault(self._process, "closed its standard output")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fill()  # one last read: a line already in the pipe is in time
                if self._inbox.ready():
                    continue
                raise BotTimeout("no line from the bot before the deadline")
            exited = self._wait_readable(min(remaining, KEEP_ALIVE_SLICE))
            self._fill()
            if exited and not self._inbox.ready():
                raise crash_fault(self._process, "ended")

    def _wait_readable(self, timeout: float) -> bool:
        """Wait for output or the exit of the process; exited?"""
        poller = select.poll()
        poller.register(self._rfd, select.POLLIN)
        fd = self._process.exit_fd()
        if fd is None:
            timeout = min(timeout, FALLBACK_SLICE)
        else:
            poller.register(fd, select.POLLIN)
        poller.poll(timeout_ms(timeout))
        return self._process.exited()

    def _fill(self) -> None:
        """Read what is there, a chunk at a time, until a line is queued (pipe = backpressure)."""
        while not self._eof and not self._inbox.ready():
            try:
                chunk = os.read(self._rfd, _READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self._eof = True
                if self._buf and not self._skipping:
                    self._inbox.push_raw(bytes(self._buf))  # a last line without "\n"
                self._buf.clear()
                return
            self._buf += chunk
            self._split()

    def _split(self) -> None:
        while (end := self._buf.find(b"\n")) >= 0:
            raw = bytes(self._buf[:end])
            del self._buf[:end + 1]
            if self._skipping:
                self._skipping = False  # the end of the reported over-long line
            else:
                self._inbox.push_raw(raw)
        if self._skipping:
            self._buf.clear()
        elif len(self._buf) > MAX_LINE_BYTES:
            self._inbox.push_fault(ProtocolError(
                f"line longer than {MAX_LINE_BYTES} bytes", excerpt(bytes(self._buf))))
            self._buf.clear()
            self._skipping = True

    def wake_items(self) -> list[tuple[int, int]]:
        fd = self._process.exit_fd()
        items: list[tuple[int, int]] = [(self._rfd, select.POLLIN)]
        return items if fd is None else [*items, (fd, select.POLLIN)]

    @property
    def watches_exit(self) -> bool:
        return self._process.exit_fd() is not None

    def pending(self) -> bool:
        self._check_open()
        if not self._inbox.ready():
            self._fill()
        return self._inbox.ready()

    def close(self) -> None:
        """Close the bot's stdin (it reads end-of-file); stdout goes with the process."""
        try:
            self._stdin.close()
        except OSError:
            pass  # unflushed data for a bot that is gone
        self._inbox.clear()
