"""StderrSink.redirect: a bot's output split among files at game boundaries, with a writer
racing the switches, and against a model of the caps (hypothesis)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import given, settings, strategies as st

from referee.processes.stderr_sink import StderrSink

MARKER = re.compile(rb"\[referee: (\d+) bytes of stderr cut here\]\n")
LINES = 300_000  # of 8 digits and a newline: 2.7 MB, written in bursts
WRITER = f"""
import sys, time
out = sys.stderr.buffer
for start in range(0, {LINES}, 1000):
    out.write(b"".join(b"%08d\\n" % i for i in range(start, start + 1000)))
    out.flush()
    time.sleep(0.001)
"""
HUGE = 1 << 30  # caps no test output reaches: every byte must be somewhere, once


def test_a_racing_writer_loses_no_byte_and_splits_in_order(tmp_path: Path) -> None:
    home = tmp_path / "bot.stderr"
    sink = StderrSink(home, head=HUGE, tail=HUGE)
    writer = subprocess.Popen([sys.executable, "-c", WRITER], stderr=sink.child_fd())
    sink.started()
    visits: list[Path] = []
    received = []
    while writer.poll() is None or not visits:
        visits.append(tmp_path / f"game{len(visits)}.stderr")
        received.append(sink.redirect(visits[-1], tail=HUGE))
        time.sleep(0.003)
    received.append(sink.redirect(None))
    writer.wait()
    assert sink.wait(10)  # EOF seen: the writer's every byte is read
    sink.close()

    assert received[0] == 0  # the first redirect ended no visit
    for visit, size in zip(visits, received[1:]):
        assert size == (visit.stat().st_size if visit.exists() else 0)
    # A switch falls between two bytes, not two lines (a read may take part of a write):
    # the visits, in order, hold one run of the stream, home what came before and after.
    stream = b"".join(b"%08d\n" % i for i in range(LINES))
    middle = b"".join(visit.read_bytes() for visit in visits if visit.exists())
    start = stream.find(middle)
    assert middle and start >= 0
    assert home.read_bytes() == stream[:start] + stream[start + len(middle):]
    assert sink.total_bytes == 9 * LINES and sink.write_errors == 0


def test_a_visit_the_bot_ended_is_still_reported(tmp_path: Path) -> None:
    """A bot that wrote and died during a game: EOF finished the game's file; redirecting
    back still says what it got, and a later visit of the dead sink makes no file."""
    sink = StderrSink(tmp_path / "bot.stderr")
    sink.redirect(tmp_path / "game.stderr")
    bot = subprocess.Popen([sys.executable, "-c", "import sys; sys.stderr.write('bye\\n')"],
                           stderr=sink.child_fd())
    sink.started()
    bot.wait()
    assert sink.wait(10)
    assert sink.redirect(None) == 4
    assert (tmp_path / "game.stderr").read_bytes() == b"bye\n"
    sink.redirect(tmp_path / "late.stderr")
    assert sink.redirect(None) == 0 and not (tmp_path / "late.stderr").exists()
    sink.close()


def model_file(data: bytes, head: int, tail: int) -> bytes:
    """What the sink writes for `data` with these caps (no prefix)."""
    if len(data) <= head + tail:
        return data
    passed, kept = data[:head], data[-tail:] if tail else b""
    cut = len(data) - head - tail
    newline = b"\n" if passed and not passed.endswith(b"\n") else b""
    return passed + newline + b"[referee: %d bytes of stderr cut here]\n" % cut + kept


chunk = st.binary(max_size=300)
# Each step: bytes the bot writes, then where its output goes next (a game, or home).
steps = st.lists(st.tuples(st.lists(chunk, max_size=4), st.sampled_from(["game", "home"])),
                 max_size=8)


@settings(max_examples=60, deadline=None)
@given(steps=steps, head=st.integers(0, 400), tail=st.integers(0, 400),
       game_tail=st.integers(0, 400))
def test_redirect_matches_the_model(steps: list[tuple[list[bytes], str]], head: int,
                                    tail: int, game_tail: int) -> None:
    """Bytes written before a redirect are in the destination it ends; a game's file is
    its last `game_tail` bytes behind the marker, made only if it got any; home's caps
    span every stretch at home."""
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "bot.stderr"
        sink = StderrSink(home, head=head, tail=tail)
        write_fd = sink.child_fd()  # the test is the bot: it writes the pipe itself
        at_home, games, current = b"", [], None
        for index, (chunks, where) in enumerate(steps):
            for data in chunks:
                os.write(write_fd, data)
                if current is None:
                    at_home += data
                else:
                    games[current][1].append(data)
            path = Path(folder) / f"game{index}.stderr" if where == "game" else None
            ended = sink.redirect(path, tail=game_tail)
            assert ended == (0 if current is None else len(b"".join(games[current][1])))
            current = None if path is None else len(games)
            if path is not None:
                games.append((path, []))
        sink.redirect(None, tail=game_tail)
        sink.close()
        for path, written in games:
            data = b"".join(written)
            assert path.exists() == bool(data)
            if data:
                assert path.read_bytes() == model_file(data, 0, game_tail)
        assert home.read_bytes() == model_file(at_home, head, tail)
