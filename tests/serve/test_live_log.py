"""The live file a watched game's log streams (referee/logs/live.py): the game's own log
is the same bytes as unwatched, the live file holds the game so far at each reply and is
gone once the log is closed, and a marker left by a watcher that is gone is ignored."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from protocols.faults import FaultKind
from referee.errors import Fault
from referee.logs.live import (
    LIVE_SUFFIX, WATCHING, LiveGameLog, live_folder, open_log, watched,
)
from referee.logs.writer import GameLog


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


def test_only_a_running_watcher_is_watching(tmp_path: Path) -> None:
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
