"""Accuracy cells with their intervals: Wilson intervals for counts of right answers, a percentile
bootstrap for per-example scores (the list task's F1).

**Wilson intervals** use the normal quantile ``z``. All 630 intervals printed in Tables 5-28 of the
method paper (footnoted cells included) are transcribed with their (k, n) in
``tests/data/paper_wilson_intervals.csv``, and the tests check every one. With the exact 97.5%
quantile (1.959964...), ten of them come out 0.01 percentage points off; with the rounded
``z = 1.96`` all 630 match. The paper therefore used 1.96: pass ``z=PAPER_Z`` to reproduce its
tables digit for digit. The default is the exact quantile for ``confidence``, which is what
statsmodels and scipy compute.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.errors import GraphNIAHError
from graphniah.stats.checks import as_count, scipy_stats

__all__ = ["BOOTSTRAP_RESAMPLES", "PAPER_Z", "Interval", "Mean", "Proportion", "bootstrap_mean", "proportion", "wilson_interval"]

#: The normal quantile the paper used for its 95% Wilson intervals (see the module docstring).
PAPER_Z = 1.96


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed interval ``[low, high]``; unpacks as ``low, high = interval``."""

    low: float
    high: float

    def __iter__(self) -> Iterator[float]:
        yield self.low
        yield self.high

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True, slots=True)
class Proportion:
    """``k`` successes out of ``n`` trials with its Wilson interval (a table cell of the paper)."""

    k: int
    n: int
    interval: Interval
    confidence: float

    @property
    def estimate(self) -> float:
        return self.k / self.n


def _z_for(confidence: float, z: float | None) -> float:
    if z is not None:
        if not (math.isfinite(z) and z > 0):
            raise GraphNIAHError(f"the normal quantile z must be a positive finite number, got {z!r}")
        return float(z)
    if not (isinstance(confidence, int | float) and 0 < confidence < 1):
        raise GraphNIAHError(f"confidence must be a number strictly between 0 and 1, got {confidence!r}")
    return float(scipy_stats().norm.ppf(0.5 + confidence / 2))


def wilson_interval(k: int, n: int, confidence: float = 0.95, *, z: float | None = None) -> Interval:
    """Wilson score interval for ``k`` successes in ``n`` trials.

    The interval is the set of p whose score test does not reject at level 1 - confidence,
    i.e. the solutions of ``(k/n - p)^2 <= z^2 p (1 - p) / n``:

        centre = (k + z²/2) / (n + z²),   half = z / (n + z²) · sqrt(k (n - k) / n + z²/4).

    Unlike the Wald interval it stays inside [0, 1] and is not degenerate at k = 0 or k = n, which
    matters here because several models score 0% or 100% in a cell. ``z`` overrides the quantile
    derived from ``confidence``; ``z=PAPER_Z`` reproduces the paper's printed intervals.

    At k = 0 the lower end is exactly 0 (the numerator is z²/2 - z·sqrt(z²/4) = 0) and at k = n
    the upper end is exactly 1 by the mirror argument; those ends are set exactly so that
    floating-point rounding cannot produce -1e-17 or 1 + 1e-16.
    """
    k = as_count("k (successes)", k)
    n = as_count("n (trials)", n)
    if n == 0:
        raise GraphNIAHError("a Wilson interval needs at least one trial, got n=0 (no examples in this cell)")
    if k > n:
        raise GraphNIAHError(f"successes k={k} exceed trials n={n}")
    zz = _z_for(confidence, z)
    z2 = zz * zz
    centre = (k + z2 / 2) / (n + z2)
    half = zz / (n + z2) * math.sqrt(k * (n - k) / n + z2 / 4)
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Interval(low, high)


def proportion(k: int, n: int, confidence: float = 0.95, *, z: float | None = None) -> Proportion:
    """``k`` of ``n`` with its Wilson interval, as printed in every accuracy cell of the paper."""
    interval = wilson_interval(k, n, confidence, z=z)
    return Proportion(k=int(k), n=int(n), interval=interval, confidence=confidence)


@dataclass(frozen=True, slots=True)
class Mean:
    """The mean of ``n`` per-example scores in [0, 1] (the list task's F1) with a bootstrap interval."""

    n: int
    estimate: float
    interval: Interval
    confidence: float


BOOTSTRAP_RESAMPLES = 2000


def bootstrap_mean(values: Sequence[float] | npt.NDArray[np.floating], rng: np.random.Generator, confidence: float = 0.95,
                   *, resamples: int = BOOTSTRAP_RESAMPLES) -> Mean:
    """The mean of ``values`` with its percentile bootstrap interval: the mean of ``resamples`` draws
    of ``n`` values with replacement, cut at the (1 ± confidence)/2 quantiles. A per-example score
    such as F1 is not a count of successes, so the Wilson interval of accuracies does not apply."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        raise GraphNIAHError("a mean needs at least one value, got none (no examples in this cell)")
    if not (0 < confidence < 1) or resamples < 1:
        raise GraphNIAHError(f"confidence must lie in (0, 1) and resamples be positive, got {confidence}, {resamples}")
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Mean(int(x.size), float(x.mean()), Interval(float(low), float(high)), confidence)

