"""The gate's sequential test (tournaments/stats/sprt.py) on hand-made samples."""

from __future__ import annotations

import math
import random

import pytest

from tournaments.stats.sprt import (
    MIN_SAMPLES, Decision, PairedSprt, SprtSettings, log_likelihood_ratio, variance_floor,
)
from tournaments.stats.estimates import mean_ci


STEP = 0.25  # Rage at tables of 4: a deal's difference is a multiple of 1/4


def run(settings: SprtSettings, samples: list[float],
        step: float = STEP) -> tuple[PairedSprt, list[Decision]]:
    test = PairedSprt(settings, step)
    return test, [test.add(sample) for sample in samples]


def test_wald_bounds() -> None:
    settings = SprtSettings(1.0, alpha=0.05, beta=0.10)
    assert settings.upper == pytest.approx(math.log(0.90 / 0.05))
    assert settings.lower == pytest.approx(math.log(0.10 / 0.95))


@pytest.mark.parametrize("delta, alpha, beta", [
    (0.0, 0.05, 0.05), (-1.0, 0.05, 0.05), (math.inf, 0.05, 0.05), (math.nan, 0.05, 0.05),
    (1.0, 0.0, 0.05), (1.0, 0.5, 0.05), (1.0, 0.05, 0.7), (1.0, math.nan, 0.05)])
def test_settings_refuse_impossible_values(delta: float, alpha: float, beta: float) -> None:
    with pytest.raises(ValueError):
        SprtSettings(delta, alpha, beta)


def test_a_clearly_better_new_passes_at_the_minimum_and_a_clearly_worse_fails() -> None:
    rng = random.Random(5)
    settings = SprtSettings(2.0, 0.05, 0.05)
    better = [40 + rng.gauss(0, 10) for _ in range(40)]
    test, decisions = run(settings, better)
    assert decisions[:MIN_SAMPLES - 1] == [Decision.CONTINUE] * (MIN_SAMPLES - 1)
    assert decisions[MIN_SAMPLES - 1] is Decision.NOT_WEAKER
    _, decisions = run(settings, [-sample for sample in better])
    assert decisions[MIN_SAMPLES - 1] is Decision.WEAKER


def test_the_ratio_is_the_normal_one_with_the_small_sample_correction() -> None:
    samples = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0]
    test, _ = run(SprtSettings(2.0, 0.05, 0.05), samples)
    n, mean = len(samples), sum(samples) / len(samples)
    variance = sum((x - mean) ** 2 for x in samples) / (n - 1)
    expected = (n - 3) / (n - 1) * n * 2.0 * (mean + 1.0) / variance
    assert test.llr == pytest.approx(expected)
    assert test.mean == pytest.approx(mean)


def test_the_ratio_is_positive_above_the_midpoint_and_negative_below() -> None:
    assert log_likelihood_ratio(20, -0.9, 4.0, 2.0) > 0 > log_likelihood_ratio(20, -1.1, 4.0, 2.0)
    assert log_likelihood_ratio(3, 5.0, 1.0, 2.0) == 0.0  # too few to correct


def test_identical_samples_take_the_variance_of_rounding_to_their_step() -> None:
    """A deterministic bot against itself: every difference 0. The spread is then the
    rounding's, step^2/12, not a vanishing floor that made the ratio about 10^12."""
    n, floor = MIN_SAMPLES, STEP ** 2 / 12
    test, decisions = run(SprtSettings(2.0, 0.05, 0.05), [0.0] * n)
    assert test.floored and test.variance_floor == pytest.approx(floor)
    assert test.llr == pytest.approx((n - 3) / (n - 1) * n * 2.0 * 1.0 / floor)
    assert decisions[-1] is Decision.NOT_WEAKER
    test, decisions = run(SprtSettings(2.0, 0.05, 0.05), [-2.0] * n)
    assert test.llr == pytest.approx(-(n - 3) / (n - 1) * n * 2.0 * 1.0 / floor)
    assert decisions[-1] is Decision.WEAKER


def test_a_coarser_step_gives_identical_samples_less_weight() -> None:
    fine, _ = run(SprtSettings(2.0, 0.05, 0.05), [0.0] * MIN_SAMPLES, step=0.25)
    coarse, _ = run(SprtSettings(2.0, 0.05, 0.05), [0.0] * MIN_SAMPLES, step=1.0)
    assert coarse.llr == pytest.approx(fine.llr / 16)


def test_a_spread_above_the_floor_is_used_as_it_is() -> None:
    test, _ = run(SprtSettings(2.0, 0.05, 0.05), [0.0, 0.25] * 5)
    assert not test.floored and test.spread > test.variance_floor


@pytest.mark.parametrize("step", [0.0, -1.0, math.inf, math.nan])
def test_an_impossible_step_is_refused(step: float) -> None:
    with pytest.raises(ValueError):
        variance_floor(step)


def test_the_interval_is_the_reports_student_t_interval() -> None:
    samples = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.5]
    test, _ = run(SprtSettings(1.0, 0.05, 0.05), samples)
    mean, half = mean_ci(samples)
    assert half is not None
    assert test.interval() == pytest.approx((mean - half, mean + half))
    assert PairedSprt(SprtSettings(1.0, 0.05, 0.05), STEP).interval() is None
