"""Hostile log files stay one error line: `referee show` and `referee replay` read a log as
a stream within bounds (referee.logs.lines), so a decompression bomb, an endless
line, an empty file or a file with no header is refused in one line, exit 2, quickly and
in bounded memory (docs/game-log.md, Reading).

The commands run as real processes under an address-space limit, so a reader that held
the inflated file whole would fail here (it took 5.9 GB and ended in a MemoryError).
"""

from __future__ import annotations

import copy
import gzip
import json
import resource
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee.logs import lines as log_lines
from referee.logs.lines import read_records
from referee.registry.game_logs import read_log
from tests.cli_support import assert_bad_input, run_main

ROOT = Path(__file__).resolve().parents[2]
MEMORY = 512 << 20  # bytes of address space: the interpreter and the referee need ~150 MB
HEADER = b'{"type":"game","format":5,"game":"rage","seed":1}\n'


def gzip_bomb(unit: bytes, repeat: int, before: bytes = b"") -> bytes:
    """A valid gzip file of `before` and then `unit` `repeat` times, of about
    len(deflated unit) * repeat bytes: one deflate block, made with no history and ended
    by a full flush, stands for every copy of the unit, so making it costs nothing."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = deflate.compress(before) + deflate.flush(zlib.Z_FULL_FLUSH)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = deflate.compress(unit) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(before)
    for _ in range(repeat):
        crc = zlib.crc32(unit, crc)
    size = len(before) + len(unit) * repeat
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + first + block * repeat
            + b"\x03\x00" + struct.pack("<II", crc, size & 0xFFFFFFFF))


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_referee(*args: str) -> subprocess.CompletedProcess[str]:
    """The real `referee` command, in its own process with at most MEMORY."""
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, preexec_fn=_limit_memory,
                          stdin=subprocess.DEVNULL)


def assert_one_error_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stdout == ""
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A gigabyte of newlines and a gigabyte-long line, each about 1 MB gzipped."""
    folder = tmp_path_factory.mktemp("bombs")
    made = {"newlines": gzip_bomb(b"\n" * (1 << 20), 1024, HEADER),
            "one line": gzip_bomb(b"x" * (1 << 20), 1024, b'{"type":"game","x":"')}
    paths = {}
    for name, data in made.items():
        assert len(data) < 1100 << 10
        paths[name] = folder / f"{name.replace(' ', '-')}.jsonl.gz"
        paths[name].write_bytes(data)
    return paths


def test_the_bombs_are_valid_gzip_files(bombs: dict[str, Path]) -> None:
    """What the tests below refuse is a file gzip reads (only its start read here)."""
    with gzip.open(bombs["newlines"]) as file:
        assert file.read(len(HEADER) + 10) == HEADER + b"\n" * 10
    assert zlib.decompressobj(31).decompress(bombs["one line"].read_bytes(), 1 << 16)


@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize("bomb, words", [("newlines", "more than 256 MiB (inflated)"),
                                         ("one line", "a line longer than 16 MiB")])
def test_a_decompression_bomb_is_one_error_line(bombs: dict[str, Path], command: str,
                                                bomb: str, words: str) -> None:
    assert_one_error_line(run_referee(command, str(bombs[bomb])), words)


@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize("data, words", [(b"", "it is empty"),
                                         (b'{"type":"result","totals":[1,2,3]}\n',
                                          "no game header")], ids=["empty", "headless"])
def test_an_empty_or_headless_log_is_one_error_line(tmp_path: Path, command: str,
                                                    data: bytes, words: str) -> None:
    path = tmp_path / "game.jsonl"
    path.write_bytes(data)
    assert_one_error_line(run_referee(command, str(path)), words)


@pytest.mark.parametrize("name, data, words", [
    ("game.jsonl", b"\n \n\t\r\n", "it is empty"),
    ("game.jsonl.gz", gzip.compress(b""), "it is empty"),
    ("game.jsonl", b'["a",1]\n' + HEADER, "no game header"),
    ("game.jsonl.gz", gzip.compress(HEADER) + b"junk", "after the end of its gzip stream"),
    ("game.jsonl.gz", gzip.compress(HEADER * 100)[:-20], "cut short"),
    ("game.jsonl.gz", b"\x1f\x8b" + gzip.compress(HEADER)[2:10] + b"?" * 20, "invalid"),
    ("game.jsonl", HEADER + b'"\xff"\n', "can't decode"),
    ("game.jsonl", b"\n \n" + HEADER + b"\n{oops}\n" + HEADER,
     "line 5 is not JSON (Expecting property name enclosed in double quotes at column 2)"),
    ("game.jsonl.gz", gzip.compress(HEADER + b'\n{"type": "mo'),
     "line 3 is cut short: the file ends inside it (Unterminated string starting at"),
], ids=["blank", "empty gzip", "array first", "gzip and more", "gzip cut short",
        "not deflate", "not UTF-8", "a line not JSON", "its last line cut short"])
def test_a_file_that_is_no_log_is_one_value_error(tmp_path: Path, name: str, data: bytes,
                                                  words: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError, match="not a game log: ") as error:
        read_log(path)
    assert words in str(error.value)


def test_a_log_of_too_many_values_is_refused(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Each value inside an array or object counts (a stretch of the stream is one
    line), so a file of small values cannot hold millions of objects in memory."""
    monkeypatch.setattr(log_lines, "MAX_VALUES", 100)
    path = tmp_path / "game.jsonl"
    path.write_bytes(HEADER + json.dumps([None] * 80).encode() + b"\n")
    assert len(read_records(path)) == 2
    path.write_bytes(HEADER + json.dumps([[None, {"a": [1]}]] * 20).encode() + b"\n")
    with pytest.raises(ValueError, match="more than 100 JSON values"):
        read_records(path)


def test_a_plain_file_past_the_bounds_is_refused_as_it_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_lines, "MAX_BYTES", 1 << 20)
    monkeypatch.setattr(log_lines, "MAX_LINE_BYTES", 1 << 16)
    path = tmp_path / "game.jsonl"
    path.write_bytes(HEADER + b"\n" * (1 << 20))
    with pytest.raises(ValueError, match="more than 1 MiB"):
        read_records(path)
    path.write_bytes(HEADER + b'"' + b"x" * (1 << 16) + b'"\n')
    with pytest.raises(ValueError, match="a line longer than"):
        read_records(path)
    path.write_bytes(HEADER + b'"' + b"x" * ((1 << 16) - 10) + b'"')  # no newline at its end
    assert read_records(path)[1] == "x" * ((1 << 16) - 10)


def test_lines_are_split_across_chunks_and_blank_lines_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_lines, "_CHUNK", 7)
    values = [{"type": "game", "a": "b" * 20}, [1, "x y"], {}, "z"]
    text = "\n\n".join(f"  {json.dumps(value)}\r" for value in values) + "\n \n"
    for name, data in [("a.jsonl", text.encode()), ("a.jsonl.gz", gzip.compress(text.encode()))]:
        (tmp_path / name).write_bytes(data)
        assert read_records(tmp_path / name) == values


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """The JSON values of a real game's log, per game."""
    folder = tmp_path_factory.mktemp("genuine")
    logs = {}
    for game, bots in [("rage", ["python bots/rage_random.py"] * 4),
                       ("thegame", ["python bots/thegame_random.py"] * 2)]:
        path = folder / f"{game}.jsonl"
        code, _, err = run_main(["play", game, "--seed", "5", "--no-log-times",
                                 "--log", str(path), *bots])
        assert code == 0, err
        logs[game] = read_records(path)
    return logs


def _edited(values: list[Any], edit: str) -> list[Any]:
    values = copy.deepcopy(values)
    header, result = values[0], values[-1]
    if edit == "a variant added":
        header["settings"]["variants"].append("hidden-bid")
    elif edit == "other command cards":
        header["settings"]["commands"]["stop"][0] += 1
    elif edit == "no command cards":
        header["settings"]["commands"] = None
    elif edit == "a seat less":
        header["players"].pop()
    elif edit == "no digest":
        del result["sent_sha256"]
    return values


@pytest.mark.parametrize("game, edit, words", [
    ("rage", "a variant added", "settings are not those played"),
    ("thegame", "other command cards", ""),
    ("thegame", "no command cards", ""),
    ("rage", "a seat less", "the header names 3 seats, its settings 4"),
])
def test_a_header_that_is_not_the_game_played_does_not_replay(
        genuine: dict[str, list[Any]], tmp_path: Path, game: str, edit: str,
        words: str) -> None:
    """The lines out are not in the log but derived from its header: the digest of the
    lines sent, in the result, shows whether the header's game sends them. A header
    with a variant that changes nothing the bots did (hidden bids) replayed as
    "result reproduced", and `show` showed lines no bot was sent."""
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(value) + "\n" for value in genuine[game]))
    code, out, err = run_main(["replay", str(path)])
    assert code == 0 and "result reproduced" in out, err
    path.write_text("".join(json.dumps(value) + "\n"
                            for value in _edited(genuine[game], edit)))
    for command in ("replay", "show"):
        assert_bad_input([command, str(path)], "does not derive", words)


def test_a_log_without_the_digest_reads_as_an_earlier_version_wrote_it(
        genuine: dict[str, list[Any]], tmp_path: Path) -> None:
    """Format 5 logs written before sent_sha256 hold none: they read and replay as they
    did, unchecked against their header (losing no one's logs)."""
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(value) + "\n"
                            for value in _edited(genuine["rage"], "no digest")))
    code, out, err = run_main(["replay", str(path)])
    assert code == 0 and "result reproduced" in out, err


# Fuzz: whatever a file holds, every reader gives records or one ValueError, never
# another exception (tests/referee/test_game_log.py fuzzes short files and the older
# formats' arrays; here the bounds, gzip of any bytes, and the stream after the headers
# of real games, which are played again).
small_bounds: dict[str, Any] = {"MAX_LINE_BYTES": 200, "MAX_BYTES": 2000, "MAX_VALUES": 60, "_CHUNK": 16}


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=3000), gzipped=st.booleans(), cut=st.integers(0, 40))
def test_any_bytes_within_small_bounds_read_or_are_a_value_error(
        tmp_path_factory: pytest.TempPathFactory, data: bytes, gzipped: bool,
        cut: int) -> None:
    if gzipped:
        data = gzip.compress(data)
        data = data[:len(data) - cut] if cut < 20 else data
    path = tmp_path_factory.mktemp("fuzz") / "game.jsonl.gz"
    path.write_bytes(data)
    with mock.patch.multiple(log_lines, **small_bounds):
        try:
            values = read_records(path)
        except ValueError:
            return
    assert len(values) <= small_bounds["MAX_VALUES"]


stream_items = st.none() | st.integers(-3, 10**7) | st.sampled_from(
    ["0", "1", "2", "10", "NT", "g7", "r13", "LOG x", "LOG", "PLAY? a", "TURN 1 2", "99 1",
     "hint 1", "", "\udcff", "é"]) | st.lists(st.integers(0, 4) | st.text(max_size=3)
                                            | st.none(), max_size=3)
records = st.fixed_dictionaries(
    {"type": st.sampled_from(["fault", "move", "result", "sent", "game", "line"])},
    optional={"seat": st.integers(-1, 5) | st.text(max_size=2),
              "kind": st.sampled_from(["timeout", "crash", "protocol", "illegal", "flood",
                                       "bid", "play", "x"]),
              "detail": st.text(max_size=5), "line": st.text(max_size=5) | st.none(),
              "move": st.text(max_size=3), "by": st.sampled_from(["bot", "fallback", "?"]),
              "lines": st.lists(st.text(max_size=3), max_size=2) | st.integers(),
              "us": st.integers(-1, 10**20) | st.floats(), "sent_sha256": st.text(max_size=4),
              "totals": st.lists(st.integers(), max_size=5)})


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.sampled_from(["rage", "thegame"]), keep=st.integers(0, 3),
       lines=st.lists(st.lists(stream_items, max_size=12) | records, max_size=5),
       derived=st.booleans(), gzipped=st.booleans())
def test_any_stream_after_a_real_games_header_reads_or_is_a_value_error(
        genuine: dict[str, list[Any]], tmp_path_factory: pytest.TempPathFactory, game: str,
        keep: int, lines: list[Any], derived: bool, gzipped: bool) -> None:
    """The header of a real game (its game is played again over the stream), then some
    of its own stream and records, then whatever JSON a damaged file holds."""
    header, *rest = genuine[game]
    header = dict(header, derived=derived) if not derived else header
    text = "".join(json.dumps(value) + "\n" for value in [header, *rest[:keep], *lines])
    path = tmp_path_factory.mktemp("fuzz") / "game.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode()) if gzipped else text.encode())
    try:
        records = read_log(path)
    except ValueError:
        return
    assert all(isinstance(record, dict) for record in records)
