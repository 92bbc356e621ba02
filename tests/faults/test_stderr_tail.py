"""A fault's quote of a bot's stderr is bounded, escaped and holds no token, whatever the
bot wrote (referee/players/stderr_tail.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hypothesis import given, strategies as st

from referee.errors import ProtocolError
from referee.processes.stderr_sink import RECENT, StderrSink
from referee.players.stderr_tail import (
    MAX_CHARS, MAX_LINES, STDIO_HINT, tail_lines, with_stdio_hint,
)

TOKEN = "0123456789abcdef" * 2


@given(st.binary(max_size=6000), st.booleans())
def test_any_bytes_give_few_short_printable_lines_without_a_token(data: bytes,
                                                                 cut: bool) -> None:
    lines = tail_lines(data + TOKEN.encode(), TOKEN, cut)
    assert len(lines) <= MAX_LINES and sum(map(len, lines)) <= MAX_CHARS
    assert all(line.isprintable() and line.strip() for line in lines)
    assert not any(re.search("[0-9a-fA-F]{32}", line) for line in lines)


def test_the_last_lines_are_kept_and_control_characters_escaped() -> None:
    data = b"".join(b"line %d\n" % n for n in range(50)) + b"\x1b[2Jboom\r\n"
    lines = tail_lines(data)
    assert len(lines) == MAX_LINES and lines[-1] == "\\x1b[2Jboom" and lines[0] == "line 31"


def test_a_cut_start_drops_its_partial_first_line() -> None:
    assert tail_lines(b"ial line\nTraceback\nKeyError: 'x'\n", cut=True) == (
        "Traceback", "KeyError: 'x'")


def test_a_hello_on_stdout_gives_the_hint_and_is_never_quoted() -> None:
    data = f"HELLO 2 {TOKEN} mybot 1.0\n".encode()
    error = with_stdio_hint(ProtocolError("no HELLO within 5 s"), data)
    assert error.detail.endswith(STDIO_HINT) and str(error) == error.detail
    assert tail_lines(data, TOKEN) == ()
    assert with_stdio_hint(ProtocolError("x"), b"hello world\n").detail == "x"


def test_the_sink_keeps_the_last_bytes_of_each_game_in_memory(tmp_path: Path) -> None:
    with StderrSink(tmp_path / "bot.stderr") as sink:
        write = sink.child_fd()
        os.write(write, b"between games\n")
        sink.redirect(tmp_path / "game.stderr")  # a game starts: its own bytes only
        os.write(write, b"x" * (2 * RECENT) + b"\nKeyError: 'oops'\n")
        sink.started()
        assert sink.wait(5.0)
        recent = sink.recent()
    assert len(recent) == RECENT and recent.endswith(b"\nKeyError: 'oops'\n")
    assert tail_lines(recent, cut=True) == ("KeyError: 'oops'",)
