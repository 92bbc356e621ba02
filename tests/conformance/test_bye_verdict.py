"""The BYE check's verdict on how long a bot took to exit (referee/conformance/bye.py):
within the grace it passes; a clean exit a little past it warns, since a loaded machine
can delay a bot that exits at once (arena submit refused such bots); a later exit, a
non-zero code or no exit at all fails. The real bots behind it: test_check_cli.py."""

from __future__ import annotations

import pytest

from referee.conformance.bye import EXIT_SLACK, ProbeReport, exit_verdict
from referee.conformance.verdict import Status
from referee.players.remote_player import BYE_GRACE

SENT = 100.0  # when BYE went, on the monotonic clock


@pytest.mark.parametrize("took, code, status", [
    (0.05, 0, Status.PASS),
    (BYE_GRACE - 0.001, 0, Status.PASS),
    (BYE_GRACE + 0.01, 0, Status.WARN),
    (BYE_GRACE + EXIT_SLACK, 0, Status.WARN),
    (BYE_GRACE + EXIT_SLACK + 0.01, 0, Status.FAIL),
    (0.8, 0, Status.FAIL),
    (0.05, 1, Status.FAIL),
    (0.3, -9, Status.FAIL),
])
def test_the_exit_is_judged_by_its_code_and_how_long_it_took(
        took: float, code: int, status: Status) -> None:
    verdict = exit_verdict(ProbeReport(code, SENT + took, ()), SENT)
    assert verdict.status is status
    assert verdict.figures["seconds"] == pytest.approx(took, abs=1e-4)
    if status is Status.WARN:
        assert f"{took:.3f} s after BYE (grace {BYE_GRACE:g} s)" in verdict.evidence
        assert "at no cost to it" in verdict.evidence


def test_a_bot_still_running_after_the_margin_fails() -> None:
    verdict = exit_verdict(None, SENT)
    assert verdict.status is Status.FAIL and "still running" in verdict.evidence
