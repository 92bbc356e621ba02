#!/usr/bin/env python3
"""A ZeroMQ bot that plays legally, then misbehaves while it is not being asked anything:
`idle_hostile.py MODE WHEN [MARKER]`.

It answers each request `X? opt1 opt2 ...` with `opt1`. WHEN says when it misbehaves:
`hello` right after its HELLO, `end` at the first `END` line (between two games of a
reused process), `nohello` at once, never sending HELLO. MODE is what it does then:

  polite   nothing                        exit     exits with code 0
  close    closes its connection, stays   deaf     stops reading, stays
  flood    endless one-frame lines        ping     endless ZMTP PING commands
  daemon   starts a double-forked, setsid daemon with MARKER in its argv, plays on
  chatter  sends a LOG line and two other lines, plays on

With $HOSTILE_COUNT set (unsandboxed runs), a flood keeps the number of bytes it has got
into the socket in that file; with $HOSTILE_SECONDS, it stops after that many seconds
(then sleeps), so that a test of a referee that would wait for its end still ends. Speaks ZMTP 3 over a plain socket, written out here: it is
what an outside bot sends on the wire, independent of the project's code.
"""

from __future__ import annotations

import os
import socket
import sys
import time

GREETING = bytes([0xFF, *bytes(8), 0x7F, 3, 0]) + b"NULL".ljust(20, b"\0") + bytes(32)
READY_BODY = b"\x05READY\x0bSocket-Type" + (6).to_bytes(4, "big") + b"DEALER"
FOREVER = 3600.0


def frame(data: bytes, flags: int = 0) -> bytes:
    """A short frame (under 256 bytes): all this bot ever sends."""
    return bytes((flags, len(data))) + data


def connect(endpoint: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(endpoint.removeprefix("ipc://"))
    sock.sendall(GREETING)
    got = b""
    while len(got) < len(GREETING):
        got += sock.recv(4096)
    sock.sendall(frame(READY_BODY, flags=4))
    return sock


class Messages:
    """The referee's lines, in order, from its frames (it sends only short or LONG ones)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buf = b""
        self._lines: list[str] = []

    def next_line(self) -> str | None:
        while not self._lines:
            message = self._message()
            if message is None:
                return None
            self._lines = message.decode().split("\n")
        return self._lines.pop(0)

    def _message(self) -> bytes | None:
        while True:
            frame_end = self._frame_end()
            if frame_end is not None:
                flags, start, end = frame_end
                body, self._buf = self._buf[start:end], self._buf[end:]
                if not flags & 4:  # commands (READY) are skipped
                    return body
                continue
            data = self._sock.recv(1 << 16)
            if not data:
                return None
            self._buf += data

    def _frame_end(self) -> tuple[int, int, int] | None:
        buf = self._buf
        if len(buf) < 2:
            return None
        if buf[0] & 2:
            if len(buf) < 9:
                return None
            start, size = 9, int.from_bytes(buf[1:9], "big")
        else:
            start, size = 2, buf[1]
        return None if len(buf) < start + size else (buf[0], start, start + size)


def flood(sock: socket.socket, unit: bytes) -> None:
    """Send `unit` forever, noting the bytes sent so far where asked to."""
    count_path = os.environ.get("HOSTILE_COUNT")
    fd = os.open(count_path, os.O_WRONLY | os.O_CREAT) if count_path else None
    sent, chunk = 0, unit * (4096 // len(unit))
    end = time.monotonic() + float(os.environ.get("HOSTILE_SECONDS", FOREVER))
    while time.monotonic() < end:
        sock.sendall(chunk)
        sent += len(chunk)
        if fd is not None:
            os.pwrite(fd, str(sent).encode().ljust(20), 0)


def daemon(marker: str) -> None:
    """A grandchild in a session of its own, with `marker` in its argv, sleeping."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c",
                                      f"import time; time.sleep({FOREVER})", marker])
        os._exit(0)
    os.wait()


def misbehave(mode: str, sock: socket.socket, marker: str) -> None:
    """Do MODE; return only where the bot plays on."""
    if mode == "exit":
        os._exit(0)
    if mode == "close":
        sock.close()
    elif mode == "flood":
        flood(sock, frame(b"chatter"))
    elif mode == "ping":
        flood(sock, frame(b"\x04PING\x00\x0a", flags=4))
    elif mode == "daemon":
        daemon(marker)
        return
    elif mode == "chatter":
        sock.sendall(frame(b"LOG between games") + frame(b"stray") + frame(b"\xff"))
        return
    elif mode == "polite":
        return
    time.sleep(FOREVER)


def main() -> int:
    mode, when = sys.argv[1], sys.argv[2]
    marker = sys.argv[3] if len(sys.argv) > 3 else "idle-hostile"
    sock = connect(os.environ["REFEREE_ENDPOINT"])
    if when != "nohello":
        sock.sendall(frame(f"HELLO 2 {os.environ['REFEREE_TOKEN']} idle-{mode} 1".encode()))
    if when in ("hello", "nohello"):
        misbehave(mode, sock, marker)
    lines, done = Messages(sock), False
    while (line := lines.next_line()) is not None:
        words = line.split()
        if not words or words[0] == "BYE":
            return 0
        if words[0].endswith("?"):
            sock.sendall(frame((words[1] if len(words) > 1 else "ok").encode()))
        elif words[0] == "END" and when == "end" and not done:
            done = True
            misbehave(mode, sock, marker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
