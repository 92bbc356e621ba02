"""Issue 26, operator mistakes: a bot's bad HELLO line, one-time token and all, was
copied into the fault tables and their HTML. No token may appear in any output: the
play's and the tournament's standard output and error, the game logs, the results db,
its tables (HTML too) and the stderr files. Real bots (fault_bots/bad_hello.py) over
stdio and ZeroMQ, each writing the token it was given to a file the test reads."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from referee.players.token_redaction import redacted

ROOT = Path(__file__).resolve().parents[2]
BAD_HELLO = Path(__file__).parent / "fault_bots" / "bad_hello.py"
GOOD = f"python {ROOT / 'bots' / 'rage_random.py'}"


def referee(*args: str) -> str:
    """`referee ARGS` in its own process: its standard output and error."""
    run = subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert "Traceback" not in run.stderr, run.stderr
    return run.stdout + run.stderr


def every_file(folder: Path) -> str:
    """Every file under `folder` as text, gzip-compressed ones inflated, bytes as
    latin-1 (the db's pages too)."""
    texts = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            texts.append((gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
                         .decode("latin-1"))
    return "\n".join(texts)


@pytest.mark.parametrize("hello, stdio", [
    ("HELLO two {token} bad 1.0", True),  # the protocol no number
    ("HELLO 2 {token}", True),  # no name, no version
    ("HELLO 0 {token} old 1.0", True),  # a protocol the referee does not speak
    ("HELLO 2 {token}x bad 1.0", True),  # a wrong token, holding the right one
    ("HELLO {token} 2 name 1.0", True),  # the token where the protocol goes: quoted
    ("HELLO 2 {token} " + "x" * 5000, True),  # too long to be a line: an excerpt
    ("HELLO 0 {token} old 1.0", False),  # over ZeroMQ: bound by its token, then refused
])
def test_no_token_of_a_bad_hello_is_in_any_output(tmp_path: Path, hello: str,
                                                  stdio: bool) -> None:
    tokens = tmp_path / "tokens"
    bot = f"{'stdio:' if stdio else ''}python {BAD_HELLO} '{hello}' {tokens}"
    out = tmp_path / "out"
    out.mkdir()
    db = out / "r.sqlite"
    shown = referee("play", "rage", "--sandbox", "off", "--seed", "1", "--log",
                    str(out / "play.jsonl"), bot, GOOD, GOOD)
    shown += referee("tournament", "rage", "--sandbox", "off", "--db", str(db),
                     "--format", "html", bot, GOOD, GOOD)
    shown += referee("results", str(db), "--faults")
    shown += referee("results", str(db), "--format", "html", "--faults")
    shown += referee("show", str(out / "play.jsonl"))
    assert "<token>" in shown or "&lt;token&gt;" in shown  # the fault was recorded
    written = every_file(out)
    for token in tokens.read_text().split():
        assert token not in shown
        assert token not in written


def test_a_token_and_anything_shaped_like_one_is_redacted() -> None:
    token = "0123456789abcdef" * 2
    other = "fedcba9876543210" * 2
    assert redacted(f"HELLO 2 {token}x {other} 1.0", token) == \
        "HELLO 2 <token>x <token> 1.0"
    assert redacted("HELLO 2 short name 1.0", "") == "HELLO 2 short name 1.0"
