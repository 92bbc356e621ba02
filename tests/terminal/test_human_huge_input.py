"""A human seat's input without end: `yes`-like or /dev/zero-like streams piped into
`referee play ... human`. A line is read up to MAX_TYPED (1000) characters and the rest of it is
skipped unread into memory; it is refused without being echoed back. Before, a 300 MB
line of NULs held 5 GB in the referee and wrote 1.2 GB of 'Not a move' to its output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RANDOM = f"python {ROOT / 'bots' / 'rage_random.py'}"
HUGE = 8 * 1024 * 1024  # bytes of one line
CHUNK = 1 << 20


def test_a_line_without_end_is_refused_unread_and_unechoed(tmp_path: Path) -> None:
    typed = tmp_path / "typed"
    with typed.open("wb") as file:  # one line of NULs, then a bid, then the end
        for _ in range(HUGE // CHUNK):
            file.write(b"\0" * CHUNK)
        file.write(b"\n0\n")
    with typed.open("rb") as stdin:
        game = subprocess.run(
            [sys.executable, "-m", "referee", "play", "rage", "human", RANDOM, RANDOM,
             "--seed", "3", "--sandbox", "off"], cwd=tmp_path, stdin=stdin,
            capture_output=True, timeout=60)
    out, err = game.stdout, game.stderr
    assert game.returncode == 130, err  # the input ended mid-game (docs/human.md)
    text = out.decode("utf-8", "replace")
    assert len(out) < 100_000, len(out)  # nothing of the line repeated
    assert "Not a move: a line longer than 1000 characters." in text, text[-2000:]
    assert "Your card" in text  # the bid after it was taken: the game went on
