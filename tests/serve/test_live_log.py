"""The live file a watched game's log streams (referee/logs/live.py): the game's own log
is the same bytes as unwatched, the live file holds the game so far at each reply and is
gone once the log is closed, a fault's stderr follows its fault record there as soon as it
is known, and a marker left by a watcher that is gone is ignored."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from protocols.faults import FaultKind
from referee.errors import Fault
from referee.logs import live
from referee.logs.live import (
    LIVE_STDERR, LIVE_SUFFIX, WATCHING, LiveGameLog, live_folder, open_log, watched,
)
from referee.logs.writer import FAULT_STDERR, GameLog
from referee.serve.live_games import with_live_stderr


def _play(log: GameLog, live: Path | None = None) -> list[list[Any]]:
    """The same calls a game's players make; the live file's values after each reply."""
    seen: list[list[Any]] = []
    log.header("rage", 7, {"players": 2}, [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b"}])
    for turn in range(3):
        for seat in (0, 1):
            log.seat(seat).sent([f"PLAY? {turn}"], 1.0 + turn)
            log.heard(seat, f"LOG thinking {turn}")
            log.heard(seat, f"g{turn}")
            if live is not None:
                seen.append([json.loads(line) for line in live.read_text().splitlines()])
    log.fault(Fault(1, "b", FaultKind.PROTOCOL, "a bad line", "<b>"))
    log.sent(1, ["ERROR protocol"])
    log.result({"totals": [1, 2]})
    log.close()
    return seen


def test_a_watched_log_is_the_same_and_its_live_file_grows_then_goes(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    plain = tmp_path / "plain" / "game.jsonl.gz"
    _play(open_log(plain, False, tmp_path / "plain"))
    logs = tmp_path / "watched"
    live_folder(logs).mkdir(parents=True)
    (live_folder(logs) / WATCHING).write_text(f"{os.getpid()}\n")
    watched_log = open_log(logs / "game.jsonl.gz", False, logs)
    assert isinstance(watched_log, LiveGameLog)
    live = live_folder(logs) / f"game.jsonl.gz.{os.getpid()}{LIVE_SUFFIX}"
    seen = _play(watched_log, live)
    assert (logs / "game.jsonl.gz").read_bytes() == plain.read_bytes()
    assert not live.exists()
    items = [len([i for v in values[1:] for i in v]) for values in seen]
    assert items == sorted(items) and len(set(items)) == len(items)  # grows at each reply
    header = seen[-1][0]
    assert header["type"] == "game" and header["seed"] == 7
    stream = [item for value in seen[-1][1:] for item in value]
    assert stream[:4] == [None, "LOG thinking 0", "g0", None]
    assert stream[-2:] == ["g2", None]
    logged = [json.loads(line) for line in gzip.decompress(plain.read_bytes()).splitlines()]
    assert stream == logged[1][:len(stream)]


def test_only_a_running_watcher_is_watching(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "LOOK_EVERY", 0.0)  # every game looks
    assert not watched(tmp_path)
    live_folder(tmp_path).mkdir()
    marker = live_folder(tmp_path) / WATCHING
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout
    for text, expected in ((gone, False), ("not a pid", False), (f"{os.getpid()}", True)):
        marker.write_text(text)
        assert watched(tmp_path) is expected
        log = open_log(tmp_path / "g.jsonl", False, tmp_path)
        assert isinstance(log, LiveGameLog) is expected
        log.close()


def test_a_tournament_looks_for_a_watcher_once_a_second_at_most(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A look is a failed path lookup per game; games of 10 ms paid 0.1 ms a game for it.
    A watcher who comes is seen by the games that start LOOK_EVERY seconds later."""
    monkeypatch.setattr(live, "LOOK_EVERY", 0.5)
    opened = []

    def game(name: str) -> bool:
        log = open_log(tmp_path / name, False, tmp_path)
        opened.append(log)
        log.close()
        return isinstance(log, LiveGameLog)

    looked = time.monotonic()
    assert not game("g0.jsonl")
    live_folder(tmp_path).mkdir()
    (live_folder(tmp_path) / WATCHING).write_text(f"{os.getpid()}")
    while time.monotonic() - looked < 0.4:  # within the look's second: not looked again
        assert not game("g1.jsonl")
    time.sleep(max(0.0, looked + 0.5 - time.monotonic()))
    deadline = time.monotonic() + 5  # the look was a moment after `looked`, on a busy CPU
    while not game("g2.jsonl"):  # looked again, its half second over: streamed from now on
        assert time.monotonic() < deadline, "never looked again"
        time.sleep(0.02)
    assert len(opened) > 2


def test_a_faults_stderr_reaches_the_live_file_at_once_and_the_log_as_unwatched(
        tmp_path: Path) -> None:
    """The fault record is in the live file before the bot is stopped; its stderr, known
    after, follows in a LIVE_STDERR record that the reader adds to that fault."""
    def play(log: GameLog) -> None:
        log.header("rage", 7, {"players": 2}, [{"seat": 0, "name": "a"},
                                                {"seat": 1, "name": "b"}])
        log.seat(1).sent(["PLAY? 0"], 1.0)
        log.fault(Fault(1, "b", FaultKind.CRASH, "bot exited with code 1", None))
        log.fault_stderr(1, ("Traceback", "KeyError: 'oops'"))

    (tmp_path / "plain").mkdir()
    plain = GameLog.open(tmp_path / "plain" / "game.jsonl.gz", False)
    play(plain)
    logs = tmp_path / "watched"
    live_folder(logs).mkdir(parents=True)
    (live_folder(logs) / WATCHING).write_text(f"{os.getpid()}\n")
    watched_log = open_log(logs / "game.jsonl.gz", False, logs)
    play(watched_log)
    live = live_folder(logs) / f"game.jsonl.gz.{os.getpid()}{LIVE_SUFFIX}"
    values = [json.loads(line) for line in live.read_text().splitlines()]
    [fault] = [v for v in values if isinstance(v, dict) and v.get("type") == "fault"]
    assert FAULT_STDERR not in fault  # written before the bot was stopped
    assert values[-1] == {"type": LIVE_STDERR, "seat": 1,
                          FAULT_STDERR: ["Traceback", "KeyError: 'oops'"]}
    [folded] = [v for v in with_live_stderr(values)
                if isinstance(v, dict) and v.get("type") in ("fault", LIVE_STDERR)]
    assert folded == {**fault, FAULT_STDERR: ["Traceback", "KeyError: 'oops'"]}
    for log in (plain, watched_log):
        log.result({"totals": [1, 2]})
        log.close()
    assert (logs / "game.jsonl.gz").read_bytes() == \
        (tmp_path / "plain" / "game.jsonl.gz").read_bytes()
    assert not live.exists()
    assert gzip.decompress((logs / "game.jsonl.gz").read_bytes()).count(b"oops") == 1


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["type", "seat", FAULT_STDERR]),
                                       inner, max_size=3), max_leaves=8)
_RECORD = st.fixed_dictionaries({"type": st.sampled_from(["fault", LIVE_STDERR, "move"]),
                                 "seat": st.integers(-1, 2) | _JSON}) | _JSON


@given(st.lists(_RECORD, max_size=8))
def test_the_live_stderr_reader_takes_any_values(values: list[Any]) -> None:
    """Never an exception, never a LIVE_STDERR record left, the rest kept in order."""
    out = with_live_stderr(values)
    assert not any(isinstance(v, dict) and v.get("type") == LIVE_STDERR for v in out)
    rest = [v for v in values if not (isinstance(v, dict) and v.get("type") == LIVE_STDERR)]
    assert len(out) == len(rest)
    assert all(a == b or a.get("type") == "fault" for a, b in zip(out, rest))
