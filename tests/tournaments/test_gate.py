"""The gate's deals and runner (tournaments/gate/schedule.py, gate.py) with fake games:
NEW and BASELINE meet the same deals, seats and opponents; faults end the gate."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from referee.errors import ConfigError, Fault
from protocols.faults import FaultKind
from referee.matches.game import Contest, Options
from referee.players.lineup import LaunchSettings
from referee.processes.sandbox import SandboxMode, SandboxSettings
from referee.games.rage.definition import RAGE
from referee.games.thegame.definition import THEGAME
from tournaments.gate.runner import (
    GateBots, GatePlan, GateState, GateVerdict, gate_context, gate_table, run_gate,
)
from tournaments.gate.report import gate_json, running_line
from tournaments.gate.schedule import (
    BASELINE, NEW, GateTable, deal_fixtures, paired_difference,
)
from tournaments.run.fixture_play import PlayContext
from tournaments.store.records import GameRecord
from tournaments.schedule.fixtures import Fixture, FixtureKind
from tournaments.stats.sprt import MIN_SAMPLES, PairedSprt, SprtSettings

RANDOM = "python bots/rage_random.py"


def what_it_meets(fixtures: list[Fixture], candidate: int) -> list[tuple[object, ...]]:
    return [(f.game, f.deal, f.seed, f.rotation, f.kind,
             tuple("C" if bot == candidate else bot for bot in f.seats)) for f in fixtures]


@pytest.mark.parametrize("size, opponents", [(3, 1), (4, 3), (5, 2), (8, 7)])
def test_rage_new_and_baseline_play_every_rotation_of_the_same_table(
        size: int, opponents: int) -> None:
    table = GateTable("rage", Contest.COMPETITIVE, size, opponents)
    new = deal_fixtures(table, 7, 1234, NEW)
    baseline = deal_fixtures(table, 7, 1234, BASELINE)
    assert what_it_meets(new, NEW) == what_it_meets(baseline, BASELINE)
    assert sorted(f.seats.index(NEW) for f in new) == list(range(size))  # every seat
    assert len(new) + len(baseline) == table.games_per_deal()
    others = Counter(bot for bot in new[0].seats if bot != NEW)
    # the opponents cycle: each sits size-1 // opponents times, or one more
    assert set(others) == set(range(2, 2 + opponents))
    assert max(others.values()) - min(others.values()) <= 1
    assert len({f.fixture_id for f in new + baseline}) == 2 * size


def test_the_game_new_and_baseline_play_solo_and_with_the_same_teammates() -> None:
    table = GateTable("thegame", Contest.COOPERATIVE, 3, 2)
    new, baseline = (deal_fixtures(table, 2, 99, bot) for bot in (NEW, BASELINE))
    assert [f.kind for f in new] == [FixtureKind.SOLO, FixtureKind.TEAM]
    assert new[0].seats == (NEW,) and new[1].seats == (NEW, 2, 3)
    assert what_it_meets(new, NEW) == what_it_meets(baseline, BASELINE)
    solo = GateTable("thegame", Contest.COOPERATIVE, 1, 0)
    assert [f.seats for f in deal_fixtures(solo, 1, 5, BASELINE)] == [(BASELINE,)]
    assert solo.games_per_deal() == 2


def test_the_difference_is_positive_when_new_does_better() -> None:
    assert paired_difference(Contest.COMPETITIVE, [10, 20], [5, 5]) == 10.0
    assert paired_difference(Contest.COOPERATIVE, [3, 5], [10, 20]) == 11.0  # fewer left
    with pytest.raises(ValueError):
        paired_difference(Contest.COMPETITIVE, [1, 2], [1])


@pytest.mark.parametrize("table, games", [
    (GateTable("rage", Contest.COMPETITIVE, 5, 2), 5),
    (GateTable("thegame", Contest.COOPERATIVE, 3, 2), 2),
    (GateTable("thegame", Contest.COOPERATIVE, 1, 0), 1)])
def test_the_step_is_the_least_difference_one_score_point_makes(table: GateTable,
                                                                games: int) -> None:
    new, baseline = [7] * games, [7] * games
    baseline[-1] += 1
    least = abs(paired_difference(table.contest, new, baseline))
    assert table.step() == pytest.approx(least)


@pytest.mark.parametrize("opponents, size, words", [
    (0, None, "needs at least one --opponent"), (3, 3, "3 opponents need a table of "
                                                       "at least 4"),
    (1, 9, "3 to 8 seats")])
def test_impossible_tables_are_refused(opponents: int, size: int | None, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        gate_table(RAGE, opponents, size)


def test_table_sizes_default_to_one_seat_a_bot() -> None:
    assert gate_table(RAGE, 1, None).size == 3  # Rage's least
    assert gate_table(RAGE, 4, None).size == 5
    assert gate_table(THEGAME, 0, None).size == 1  # solo only
    assert gate_table(THEGAME, 2, None).size == 3
    with pytest.raises(ConfigError, match="--opponent"):
        gate_table(THEGAME, 0, 2)


class FakeGames:
    """Plays no bot: NEW scores `new`, BASELINE `baseline` plus noise, and the fixture
    `fault_in` gets a fault at the seat of `fault_bot` (a gate bot index)."""

    def __init__(self, new: float, baseline: float, fault_in: str | None = None,
                 fault_bot: int = NEW) -> None:
        self.new, self.baseline = new, baseline
        self.fault_in, self.fault_bot = fault_in, fault_bot
        self.played: list[str] = []

    def __call__(self, fixture: Fixture, context: PlayContext) -> GameRecord:
        self.played.append(fixture.fixture_id)
        scores = tuple(int(self.new if bot == NEW else self.baseline if bot == BASELINE
                           else 0) + len(self.played) % 3 for bot in fixture.seats)
        faults: tuple[Fault, ...] = ()
        if fixture.fixture_id == self.fault_in:
            seat = fixture.seats.index(self.fault_bot)
            faults = (Fault(seat, context.spec.bot_names[self.fault_bot], FaultKind.CRASH,
                            "exited with code 3", "BID 99\x1b[2J"),)
        return GameRecord(fixture.fixture_id, fixture.game, fixture.seed,
                          tuple(context.spec.bot_names[bot] for bot in fixture.seats),
                          scores, tuple(1 for _ in scores), faults,
                          log_path=f"{context.logs.name}/x.jsonl")


def context(tmp_path: Path) -> PlayContext:
    bots = GateBots(RANDOM, RANDOM, (RANDOM,))
    return gate_context(RAGE, bots, 3, Options.of(RAGE, {}),
                        LaunchSettings(sandbox=SandboxSettings(SandboxMode.OFF)),
                        tmp_path / "logs")


def plan(max_games: int = 600) -> GatePlan:
    return GatePlan(GateTable("rage", Contest.COMPETITIVE, 3, 1), bytes(32), 0,
                    SprtSettings(2.0, 0.05, 0.05), max_games)


def test_a_much_better_new_passes_and_a_much_worse_one_fails(tmp_path: Path) -> None:
    seen: list[int] = []

    def progress(state: GateState) -> None:
        seen.append(state.test.n)

    result = run_gate(plan(), context(tmp_path), progress, FakeGames(new=40, baseline=10))
    assert result.verdict is GateVerdict.NOT_WEAKER and result.exit_code == 0
    assert seen == list(range(1, MIN_SAMPLES + 1)) and result.state.games == 60
    result = run_gate(plan(), context(tmp_path), progress, FakeGames(new=10, baseline=40))
    assert result.verdict is GateVerdict.WEAKER and result.exit_code == 1


def test_the_cap_stops_it_undecided_before_a_deal_would_pass_it(tmp_path: Path) -> None:
    games = FakeGames(new=10, baseline=40)
    result = run_gate(plan(max_games=53), context(tmp_path), lambda state: None, games)
    assert result.verdict is GateVerdict.UNDECIDED and result.exit_code == 3
    assert result.state.games == 48 and len(games.played) == 48  # 8 whole deals of 6


def test_a_fault_by_new_fails_the_gate_at_once(tmp_path: Path) -> None:
    games = FakeGames(new=40, baseline=10, fault_in="gate/d00002/new/r1")
    result = run_gate(plan(), context(tmp_path), lambda state: None, games)
    assert result.verdict is GateVerdict.WEAKER and result.reason == "NEW faulted"
    assert games.played[-1] == "gate/d00002/new/r1" and result.fault is not None
    assert result.fault.fault.bot == "new" and result.fault.log.name == "x.jsonl"


@pytest.mark.parametrize("bot, words", [(BASELINE, "BASELINE faulted"),
                                        (2, "opponent rage_random faulted")])
def test_a_fault_by_another_bot_leaves_it_undecided(tmp_path: Path, bot: int,
                                                    words: str) -> None:
    where = "gate/d00003/baseline/r2" if bot == BASELINE else "gate/d00003/new/r0"
    games = FakeGames(new=40, baseline=10, fault_in=where, fault_bot=bot)
    result = run_gate(plan(), context(tmp_path), lambda state: None, games)
    assert result.verdict is GateVerdict.UNDECIDED and words in result.reason
    assert result.state.test.n == 2  # the faulted deal counts for nothing


def test_identical_bots_get_the_ratio_their_scores_justify(tmp_path: Path) -> None:
    """Every difference 0: the variance is the rounding's, step^2/12 with a step of 1/3
    at tables of 3, so the LLR is about 1680, not the 10^12 of a vanishing floor."""
    result = run_gate(plan(), context(tmp_path), lambda state: None,
                      FakeGames(new=20, baseline=20))
    test, n = result.state.test, MIN_SAMPLES
    assert result.state.differences == [0.0] * n
    assert result.verdict is GateVerdict.NOT_WEAKER
    floor = (1 / 3) ** 2 / 12
    assert test.llr == pytest.approx((n - 3) / (n - 1) * n * 2.0 * 1.0 / floor)
    line = running_line(result.state)
    assert f"LLR {test.llr:+.3f} in" in line and "no spread yet" in line
    report = gate_json(result, plan(), GateBots(RANDOM, RANDOM, (RANDOM,)), None, "logs")
    assert report["variance"] == 0.0 and report["variance_floor"] == pytest.approx(floor)


def test_the_running_line_says_nothing_of_the_floor_when_deals_spread() -> None:
    state = GateState(PairedSprt(SprtSettings(2.0, 0.05, 0.05), 1 / 3))
    for difference in (1.0, -2 / 3, 3.0, 0.0):
        state.test.add(difference)
    assert not state.test.floored and "no spread" not in running_line(state)
