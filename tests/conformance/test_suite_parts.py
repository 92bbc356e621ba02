"""The suite's parts without processes: which games it plays, the statistics, the reports."""

from __future__ import annotations

import json
from pathlib import Path

from junitparser import Failure, JUnitXml

from referee.conformance.judging import reply_verdict, rule_verdicts
from referee.games.thegame.codec import NUMBERS_IN_HINT
from referee.registry import games
from referee.conformance.recording import Reply
from referee.conformance.reports import summary_line, to_json, write_junit
from referee.conformance.setups import full_setups, quick_setups
from referee.conformance.suite import Report
from referee.conformance.verdict import Status, Verdict, percentile
from referee.errors import Fault
from protocols.faults import FaultKind
from referee.registry.games import lookup
from referee.settings import TimeLimits


def test_rage_setups_cover_every_seat_count_and_allowed_variant_combination() -> None:
    setups = full_setups(lookup("rage"))
    assert [s.players for s in setups[:6]] == [3, 4, 5, 6, 7, 8]
    combos = {s.options["variants"] for s in setups[6:]}
    assert len(combos) == 7 and all(s.players == 4 for s in setups[6:])
    assert ("plus-minus-one", "secret-bid") not in combos  # ruling R10 refuses it
    assert len({s.seed for s in setups}) == len(setups)
    assert {s.seat for s in setups} == set(range(6)), "the bot sits in many seats"
    assert all(0 <= s.seat < s.players for s in setups)


def test_thegame_setups_play_with_and_without_commands() -> None:
    setups = full_setups(lookup("thegame"))
    assert [s.players for s in setups] == [1, 2, 3, 4, 5, 2]
    assert [s.options["no_commands"] for s in setups] == [False] * 5 + [True]
    assert len(quick_setups(lookup("thegame"))) == 1


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == \
        (50.0, 99.0, 100.0)
    assert percentile([7.0], 99) == 7.0


def test_reply_times_pass_warn_and_fail_against_the_move_time() -> None:
    times = TimeLimits(move=1.0)
    fast = [Reply("BID? 0 1", 0.01)] * 10
    assert reply_verdict(fast, times).status is Status.PASS
    assert reply_verdict([*fast, Reply("PLAY? r5", 0.6)], times).status is Status.WARN
    late = reply_verdict([*fast, Reply("PLAY? r5", 1.3)], times)
    assert late.status is Status.FAIL and late.line == "PLAY? r5"
    assert reply_verdict([], times).status is Status.SKIP


def test_each_fault_fails_exactly_one_rule() -> None:
    faults = [("game 3 seats", Fault(0, "b", FaultKind.PROTOCOL, "bad HELLO: x", "x")),
              ("game 4 seats", Fault(1, "b", FaultKind.ILLEGAL, "no", "r5"))]
    found = {v.name: v.status for v in rule_verdicts(games.lookup("rage"), faults, 2)}
    assert [n for n, s in found.items() if s is Status.FAIL] == \
        ["legal moves only", "well-formed lines"]
    assert "no numeric hint" not in found  # The Game's only


def test_a_games_own_protocol_check_takes_its_faults_before_well_formed_lines() -> None:
    hint = Fault(0, "b", FaultKind.PROTOCOL, f"{NUMBERS_IN_HINT}: 37", "HINT 37")
    found = {v.name: v.status for v in rule_verdicts(games.lookup("thegame"),
                                                     [("game 1", hint)], 1)}
    assert [n for n, s in found.items() if s is Status.FAIL] == ["no numeric hint"]


def test_bot_text_is_quoted_in_the_summary_and_the_xml(tmp_path: Path) -> None:
    hostile = "\x1b[2J\x00<failure>&\ud800"
    verdict = Verdict("game 3 seats", Status.FAIL, f"evidence {hostile}", 0.5, hostile)
    report = Report("rage", "bot", False, (verdict,), 1.0)
    line = summary_line(verdict)
    assert "\x1b" not in line and "\x00" not in line and "\\x1b" in line
    write_junit(report, tmp_path / "report.xml")
    (suite,) = JUnitXml.fromfile(str(tmp_path / "report.xml"))
    (case,) = suite
    failure = case.result[0]
    assert suite.failures == 1 and isinstance(failure, Failure)
    assert "<failure>&" in failure.message and "\\x1b" in failure.message
    assert json.loads(json.dumps(to_json(report)))["checks"][0]["line"] == hostile
