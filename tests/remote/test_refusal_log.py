"""The organiser's lines about refused connections are bounded (RefusalLog): a flood of
2,911 strangers' handshakes printed 1,067 lines in the issue-30 user trial. The first
ten of each ten seconds are told one by one, the rest counted in one line."""

from __future__ import annotations

from referee.transport.remote_hall import RefusalLog


def test_a_flood_is_a_few_lines_and_a_count_and_nothing_is_lost() -> None:
    now = [0.0]
    lines: list[str] = []
    refusals = RefusalLog(lines.append, clock=lambda: now[0])
    for number in range(1000):
        now[0] = number * 0.01  # 100 a second for 10 s
        refusals(f"refused {number}")
    assert lines == [f"refused {number}" for number in range(10)]
    now[0] = 10.5
    refusals("refused late")
    assert lines[10:] == ["refused 990 more connection(s) in the last 10 s, not told one "
                          "by one", "refused late"]
    refusals.flush()
    assert len(lines) == 12  # nothing untold: no empty summary


def test_the_count_is_told_when_the_hall_closes() -> None:
    lines: list[str] = []
    refusals = RefusalLog(lines.append, clock=lambda: 0.0)
    for number in range(13):
        refusals(f"refused {number}")
    refusals.flush()
    assert lines[-1].startswith("refused 3 more connection(s)") and len(lines) == 11
