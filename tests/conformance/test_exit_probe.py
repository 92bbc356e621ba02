"""The exit probe run directly: the bot's output passes through, and the report is the last
line of the probe's stderr whatever the bot or a child it leaves writes there."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys

from referee.conformance import exit_probe

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
