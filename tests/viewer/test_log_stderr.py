"""A crash in a game log says why (docs/game-log.md, "A fault's stderr"): `referee play
--log` writes the crashed bot's last stderr lines into its fault record, so `referee view`,
`referee show` and a finished game in `referee serve` show them at the crash, as the
tournament tables do. A seat's page holds its own stderr alone, a spectator's none; a log
without them (older) reads and views as before; the log still derives."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from protocols.faults import FaultKind
from referee.errors import Fault
from referee.logs.writer import GameLog
from referee.matches.transcript import transcript
from referee.registry.game_logs import read_log
from referee.viewer.page import SPECTATOR, build, html
from tests.cli_support import run_main
from tests.viewer.crash_bot import CRASH_STDERR
from tests.viewer.test_hostile_page import HOSTILE_TEXT, JSON, assert_page_or_one_line
from tests.viewer.logs import HEURISTIC, RANDOM, ROOT, crash_step, page_data, play, view
from tests.viewer.test_playback import open_page

CRASH = f"crash=stdio:{shlex.quote(sys.executable)} " \
        f"{shlex.quote(str(Path(__file__).with_name('crash_bot.py')))}"
CRASHED = 2  # the crash bot's seat


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rage for 3 with `referee play --log`: the crash bot dies at its third request,
    after writing CRASH_STDERR (markup) to its stderr."""
    folder = tmp_path_factory.mktemp("log-stderr")
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        return play(folder / "crash.jsonl", "rage", RANDOM, HEURISTIC, CRASH, "--seed", "2")
    finally:
        os.chdir(here)


def fault_records(path: Path) -> list[dict[str, Any]]:
    """The file's own fault records, as written."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in records if isinstance(r, dict) and r.get("type") == "fault"]


def test_the_logged_crash_carries_its_stderr_and_the_log_still_replays(log: Path) -> None:
    [fault] = fault_records(log)
    assert (fault["seat"], fault["kind"], fault["stderr"]) == (CRASHED, "crash", [CRASH_STDERR])
    code, out, err = run_main(["replay", str(log)])
    assert code == 0 and "result reproduced" in out, err
    code, out, err = run_main(["show", str(log), "--seat", str(CRASHED)])
    assert code == 0, err
    shown = out.splitlines()
    at = next(i for i, line in enumerate(shown) if "FAULT crash" in line)
    assert shown[at + 1].strip() == "its stderr ended with:"
    assert shown[at + 2].strip() == CRASH_STDERR


def test_the_viewer_shows_the_crash_with_its_stderr_as_text(browser: Any, log: Path,
                                                            tmp_path: Path) -> None:
    page = view(log, tmp_path / "crash.html")
    index, fault = crash_step(page)
    assert fault["stderr"] == [CRASH_STDERR]
    tab = open_page(browser, page, step=index)
    shown = tab.text_content(".fault")
    assert "FAULT: crash" in shown and f"its stderr, last lines:{CRASH_STDERR}" in shown
    assert tab.evaluate("document.querySelectorAll('.fault b').length") == 0  # as text
    assert not tab.errors


def test_a_stderr_is_shown_to_its_own_seat_alone_and_never_to_a_spectator(
        log: Path, tmp_path: Path) -> None:
    own = page_data(view(log, tmp_path / "own.html", "--seat", str(CRASHED)))
    assert [f["stderr"] for s in own["steps"] for f in s.get("f", [])] == [[CRASH_STDERR]]
    other = view(log, tmp_path / "other.html", "--seat", "0")
    spectator = build(read_log(log), SPECTATOR)
    for source, data in ((other.read_text(), page_data(other)),
                         (html(spectator), spectator.data)):
        assert "boom" not in source and "stderr" not in json.dumps(data)
    for seat, shown in ((None, True), (CRASHED, True), (0, False)):  # `show --board` too
        args = [] if seat is None else ["--seat", str(seat)]
        code, out, err = run_main(["show", "--board", str(log), *args])
        assert code == 0, err
        assert (f"stderr: {CRASH_STDERR}" in out) is shown


def test_a_log_without_stderr_reads_and_views_as_before(log: Path, tmp_path: Path) -> None:
    """A log written before the field (the same game, the field taken out) reads to the
    same records but that field, and its page shows the crash without stderr lines."""
    lines = []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if isinstance(record, dict) and record.get("type") == "fault":
            del record["stderr"]
            line = json.dumps(record, separators=(",", ":"))
        lines.append(line)
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(lines) + "\n")
    new_records, old_records = read_log(log), read_log(old)
    for record in new_records:
        record.pop("stderr", None)
    assert new_records == old_records
    _, fault = crash_step(view(old, tmp_path / "old.html"))
    assert fault["kind"] == "crash" and "stderr" not in fault


def test_a_stderr_comes_too_late_for_a_fault_record_already_written() -> None:
    """The stderr is known after the fault record; once the log has written the record
    (a LOG flood writes the log so far), the lines are left out, never written elsewhere."""
    sink = io.BytesIO()
    game_log = GameLog(sink, timestamps=False, derive=False)
    game_log.header("rage", 1, {}, [])
    fault = Fault(0, "bot", FaultKind.CRASH, "bot exited with code 1")
    game_log.fault(fault)
    game_log.fault_stderr(0, ("Traceback", "KeyError: 'oops'"))
    game_log.fault(Fault(1, "other", FaultKind.CRASH, "bot exited with code 2"))
    game_log.close()  # writes what is held: seat 1's record is no longer held
    game_log.fault_stderr(1, ("too late",))
    records = [json.loads(line) for line in sink.getvalue().decode().splitlines()]
    assert records[1]["stderr"] == ["Traceback", "KeyError: 'oops'"]
    assert records[2]["seat"] == 1 and "stderr" not in records[2] and len(records) == 3


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON | st.lists(HOSTILE_TEXT, max_size=5), seat=st.sampled_from(
    [None, CRASHED, 0, SPECTATOR]))
def test_a_hostile_stderr_field_makes_a_page_or_one_error_line(
        log: Path, value: Any, seat: int | None) -> None:
    """A log may come from anyone: its fault's stderr replaced by any JSON value (text
    that tries to leave the data block among it) still makes a safe page, or one line,
    and `referee show` prints it escaped."""
    records = read_log(log)
    for record in records:
        if record.get("type") == "fault":
            record["stderr"] = value
    assert_page_or_one_line(records, seat)
    shown = list(transcript(records))  # `referee show`'s: escaped for a terminal
    assert not any(char in line for line in shown for char in "\x00\x1b\n\r")
