"""The gate's sequential test on a paired mean, with its variance estimated: pure, no I/O.

Each sample is one deal's paired difference, NEW minus BASELINE (positive: NEW better).
H0: the mean is -delta (NEW weaker by delta); H1: the mean is 0 (NEW as strong). After
each sample the log-likelihood ratio of two normal models with a common variance is
compared with Wald's bounds, log(beta / (1 - alpha)) and log((1 - beta) / alpha):

    LLR = (n - 3) / (n - 1) * n * delta * (m + delta / 2) / s^2

m is the mean and s^2 the unbiased variance of the n samples. Without the first factor
this is the plain normal approximation of a generalised SPRT with the variance plugged
in, the kind of test chess engine testers run with elo0/elo1. A variance estimated from few deals is often too small, which inflates the ratio: 1/s^2
overestimates 1/sigma^2 by (n - 1) / (n - 3), and the factor takes that back. No
decision is taken before MIN_SAMPLES deals either. Chosen over the generalised ratio
with a variance fitted under each hypothesis, n/2 log((v + (m + delta)^2) / (v + m^2)),
which keeps its error rates as well but grows only like n delta / m when NEW is far from
both hypotheses: heuristic against random Rage bots (m = 34, delta = 2) had reached 0.5
of the 2.94 needed after 10 deals. The error rates are measured by simulation
(tests/tournaments/test_sprt_error_rates.py); the figures are in docs/gate.md.

s^2 is at least step^2 / 12, where step is the samples' resolution (a deal's difference
is a mean of integer scores, so a multiple of 1 / games): that is the variance rounding
to the step adds (Sheppard's correction), the least spread a sample of this resolution
can tell. Identical deterministic bots, every difference 0, thus get a ratio of the size
their scores can justify instead of one divided by nearly nothing.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from tournaments.stats.estimates import t_975

MIN_SAMPLES = 10  # no decision before this many deals (docs/gate.md: why 10)


class Decision(enum.StrEnum):
    NOT_WEAKER = "not weaker"  # H1 accepted: the gate passes
    WEAKER = "weaker"  # H0 accepted: the gate fails
    CONTINUE = "continue"  # between the bounds: another deal


@dataclass(frozen=True)
class SprtSettings:
    """The indifference margin and the error rates: alpha is the chance of passing a NEW
    weaker by delta, beta of failing one exactly as strong."""

    delta: float
    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.delta) and self.delta > 0):
            raise ValueError(f"delta must be a finite number > 0, not {self.delta!r}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise ValueError(f"{name} must be > 0 and < 0.5, not {rate!r}")

    @property
    def lower(self) -> float:
        """At or below it: NEW is weaker."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above it: NEW is not weaker."""
        return math.log((1 - self.beta) / self.alpha)


def log_likelihood_ratio(n: int, mean: float, variance: float, delta: float) -> float:
    """H1 (mean 0) against H0 (mean -delta) for n samples of this mean and unbiased
    variance (> 0); 0 below 4 samples, too few for the correction."""
    if n < 4:
        return 0.0
    precision = (n - 3) / (n - 1) / variance
    return n * delta * (mean + delta / 2) * precision


def variance_floor(step: float) -> float:
    """The least variance samples rounded to multiples of `step` can show: the rounding's
    own, step^2 / 12 (a uniform error over one step)."""
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"the samples' step must be a finite number > 0, not {step!r}")
    return step * step / 12


class PairedSprt:
    """The running test: add a deal's difference, read the decision and the figures.

    Running sums (Welford's), so one update costs the same after a million deals.
    `step` is the samples' resolution: every difference is a multiple of it."""

    def __init__(self, settings: SprtSettings, step: float,
                 min_samples: int = MIN_SAMPLES) -> None:
        self.settings = settings
        self.variance_floor = variance_floor(step)
        self.min_samples = max(4, min_samples)
        self.n = 0
        self.mean = 0.0
        self._squares = 0.0  # sum of squared deviations from the running mean

    def add(self, difference: float) -> Decision:
        """Take one more sample; the decision after it."""
        self.n += 1
        change = difference - self.mean
        self.mean += change / self.n
        self._squares += change * (difference - self.mean)
        return self.decision()

    @property
    def spread(self) -> float:
        """The samples' unbiased variance, 0 before two samples."""
        return self._squares / (self.n - 1) if self.n >= 2 else 0.0

    @property
    def floored(self) -> bool:
        """Whether the ratio uses the floor: the samples spread less than their step."""
        return self.n >= 2 and self.spread < self.variance_floor

    @property
    def llr(self) -> float:
        if self.n < 2:
            return 0.0
        return log_likelihood_ratio(self.n, self.mean,
                                    max(self.spread, self.variance_floor),
                                    self.settings.delta)

    def decision(self) -> Decision:
        if self.n < self.min_samples:
            return Decision.CONTINUE
        llr = self.llr
        if llr >= self.settings.upper:
            return Decision.NOT_WEAKER
        if llr <= self.settings.lower:
            return Decision.WEAKER
        return Decision.CONTINUE

    def interval(self) -> tuple[float, float] | None:
        """The mean's 95% Student t interval; None before two samples."""
        if self.n < 2:
            return None
        half = t_975(self.n - 1) * math.sqrt(self.spread / self.n)
        return self.mean - half, self.mean + half
