"""The exit probe run directly: the bot's output passes through, and the report is the last
line of the probe's stderr whatever the bot or a child it leaves writes there."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.conformance import exit_probe
from referee.conformance.bye import ProbeReport, read_report

FORGED = exit_probe.REPORT + '{"code": 0, "ended": 0, "left": []}'


def test_report_is_last_and_the_bots_words_pass_through() -> None:
    script = (f"echo before >&2; echo '{FORGED}' >&2; "
              f"(sleep 0.5; echo '{FORGED}' >&2; sleep 30) & exit 3")
    # As the referee starts it without a sandbox: its own process group, a tag.
    tagged = {**os.environ, exit_probe.TAG_VARIABLE: f"probe-test-{os.getpid()}"}
    probe = subprocess.Popen([sys.executable, "-m", exit_probe.__name__, "sh", "-c", script],
                             stderr=subprocess.PIPE, env=tagged, start_new_session=True)
    try:
        # The leftover child keeps its copy of the bot's stderr: only the probe's must end.
        _, err = probe.communicate(timeout=20)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(probe.pid, signal.SIGKILL)  # the child the bot left
    lines = err.decode().splitlines()
    assert probe.returncode == 3
    assert lines[:2] == ["before", FORGED], "what the bot wrote before it exited passes"
    assert lines[-1].startswith(exit_probe.REPORT) and len(lines) == 3
    report = json.loads(lines[-1][len(exit_probe.REPORT):])
    assert report["code"] == 3 and any("sleep 0.5" in p for p in report["left"])


@settings(max_examples=300, deadline=None)
@given(bot=st.binary(max_size=400), code=st.integers(-64, 255),
       left=st.lists(st.text(max_size=20), max_size=3))
def test_reading_the_report_never_fails_on_what_a_bot_wrote(bot: bytes, code: int,
                                                            left: list[str]) -> None:
    """The bot's bytes come before the probe's line: any of them alone give a report or
    None, never an error; with the probe's line after them, that line is the report."""
    with tempfile.TemporaryDirectory() as folder:
        stderr = Path(folder) / "bot.stderr"
        stderr.write_bytes(bot)
        read_report(stderr)  # raises nothing, whatever the bot wrote last
        line = exit_probe.REPORT + json.dumps({"code": code, "ended": 1.5, "left": left})
        stderr.write_bytes(bot + b"\n" + line.encode() + b"\n")
        assert read_report(stderr) == ProbeReport(code, 1.5, tuple(left))


@pytest.mark.parametrize("forged", [b'{"code": 1e999, "ended": 0, "left": []}',
                                    b'{"code": 0, "ended": "x", "left": []}',
                                    b'[1, 2]', b'{"code": 0}', b'\xff\xfe'])
def test_a_malformed_report_line_is_no_report(tmp_path: Path, forged: bytes) -> None:
    stderr = tmp_path / "bot.stderr"
    stderr.write_bytes(exit_probe.REPORT.encode() + forged + b"\n")
    assert read_report(stderr) is None
