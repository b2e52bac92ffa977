"""Statistical power, exact, by enumerating every outcome: the power of Fisher's and McNemar's exact
tests, the examples they need (``graphniah power``) and the smallest difference a comparison
detects (the report's "detects ±x")."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.errors import GraphNIAHError
from graphniah.stats.checks import as_count, scipy_special, scipy_stats

__all__ = ["SampleSize", "fisher_detectable_difference", "fisher_normal_n", "fisher_power", "fisher_sample_size",
           "mcnemar_detectable_difference", "mcnemar_normal_n", "mcnemar_power", "mcnemar_sample_size"]

# A test's rejection region depends only on the group sizes and α, never on the true rates, so it
# is computed once per (n1, n2, α) (cached) and the power at any (p1, p2) is then one sum of
# binomial probabilities over it. That makes the sample-size search and the report's detectable
# differences (a bisection over many rates) cheap.

_FISHER_TIE = 1 + 1e-7  # tables this close in probability count as equally likely (scipy's rule)
# A region holds (n1 + 1)(n2 + 1) booleans: 16 MB at this n, and few are cached at a time.
_MAX_SEARCH_N = 4000
_POWER_SLACK = 0.05  # see _smallest_n: how far below the target the linear scan starts


@functools.lru_cache(maxsize=16)
def _fisher_region(n1: int, n2: int, alpha: float) -> npt.NDArray[np.bool_]:
    """True where Fisher's two-sided test rejects the table (x1 of n1, x2 of n2 successes) at ``alpha``.

    Given the total successes m, x1 is hypergeometric; the two-sided p-value of x1 sums the
    probabilities of every x no more likely than it (as :func:`fisher_exact` does).
    """
    total = n1 + n2
    lf = scipy_special().gammaln(np.arange(total + 2, dtype=float))  # lf[k] = log k!
    region = np.zeros((n1 + 1, n2 + 1), dtype=bool)
    for m in range(total + 1):
        x = np.arange(max(0, m - n2), min(n1, m) + 1)
        logp = (lf[n1 + 1] - lf[x + 1] - lf[n1 - x + 1] + lf[n2 + 1] - lf[m - x + 1] - lf[n2 - m + x + 1]
                - lf[total + 1] + lf[m + 1] + lf[total - m + 1])
        p = np.exp(logp)
        ordered = np.sort(p)
        pvalue = np.cumsum(ordered)[np.searchsorted(ordered, p * _FISHER_TIE, side="right") - 1]
        region[x, m - x] = pvalue <= alpha
    return region


@functools.lru_cache(maxsize=16)
def _mcnemar_region(n: int, alpha: float) -> npt.NDArray[np.bool_]:
    """True at (k discordant pairs, b of them one way) where the exact McNemar test rejects at ``alpha``."""
    k = np.arange(n + 1)[:, None]
    b = np.arange(n + 1)[None, :]
    tail = scipy_stats().binom.cdf(np.minimum(b, k - b), k, 0.5)  # symmetric null: two-sided p = 2 · smaller tail
    region: npt.NDArray[np.bool_] = (b <= k) & (np.minimum(1.0, 2 * tail) <= alpha)
    return region


def _rate(name: str, value: float) -> float:
    if not (isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1):
        raise GraphNIAHError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def _level(alpha: float) -> float:
    if not (isinstance(alpha, int | float) and 0 < alpha < 1):
        raise GraphNIAHError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    return float(alpha)


def fisher_power(p1: float, p2: float, n1: int, n2: int | None = None, alpha: float = 0.05) -> float:
    """Exact power of the two-sided Fisher test of two independent groups of ``n1`` and ``n2`` (default ``n1``).

    The sum, over every outcome (x1, x2) the test rejects at ``alpha``, of
    Bin(x1; n1, p1) · Bin(x2; n2, p2).
    """
    a, b = as_count("n1", n1), as_count("n2", n1 if n2 is None else n2)
    if a == 0 or b == 0:
        raise GraphNIAHError("each group needs at least one example")
    region = _fisher_region(a, b, _level(alpha))
    b1 = scipy_stats().binom.pmf(np.arange(a + 1), a, _rate("p1", p1))
    b2 = scipy_stats().binom.pmf(np.arange(b + 1), b, _rate("p2", p2))
    return float(b1 @ region @ b2)


def _discordant_split(p1: float, p2: float, discordant: float) -> tuple[float, float]:
    """(P(wrong → right), P(right → wrong)) of a pair, from the two accuracies and P(discordant)."""
    p1, p2, d = _rate("p1", p1), _rate("p2", p2), _rate("discordant", discordant)
    up, down = (d + (p2 - p1)) / 2, (d - (p2 - p1)) / 2
    if down < -1e-12 or up > min(1 - p1, p2) + 1e-12 or down > min(p1, 1 - p2) + 1e-12:
        raise GraphNIAHError(
            f"a discordant share of {d:g} does not fit accuracies {p1:g} and {p2:g}: it must be at least "
            f"|p2 - p1| = {abs(p2 - p1):g} and leave each pair's two outcomes possible"
        )
    return max(up, 0.0), max(down, 0.0)


def mcnemar_power(p1: float, p2: float, discordant: float, n: int, alpha: float = 0.05) -> float:
    """Exact power of the exact McNemar test on ``n`` pairs.

    ``discordant`` is the probability that a pair's two answers differ; with the accuracies it fixes
    P(wrong → right) = (D + p2 − p1)/2 and P(right → wrong) = (D − p2 + p1)/2. The number of
    discordant pairs is Bin(n, D), and given k of them the count that went one way is
    Bin(k, P(wrong → right)/D); the power sums both over the outcomes the test rejects.
    """
    n = as_count("n (pairs)", n)
    up, _ = _discordant_split(p1, p2, discordant)
    d = _rate("discordant", discordant)
    if n == 0 or d == 0:
        return 0.0
    k = np.arange(n + 1)
    inner = scipy_stats().binom.pmf(k[None, :], k[:, None], up / d) * _mcnemar_region(n, _level(alpha))
    return float(scipy_stats().binom.pmf(k, n, d) @ inner.sum(axis=1))


def _quantiles(alpha: float, power: float) -> tuple[float, float]:
    if not (isinstance(power, int | float) and 0 < power < 1):
        raise GraphNIAHError(f"power must lie strictly between 0 and 1, got {power!r}")
    return float(scipy_stats().norm.ppf(1 - _level(alpha) / 2)), float(scipy_stats().norm.ppf(power))


def fisher_normal_n(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Examples per group by the usual normal approximation (pooled variance under H0, no continuity correction)."""
    za, zb = _quantiles(alpha, power)
    bar = (p1 + p2) / 2
    return (za * math.sqrt(2 * bar * (1 - bar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (p2 - p1) ** 2


def mcnemar_normal_n(p1: float, p2: float, discordant: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Pairs by Connor's (1987) normal approximation for McNemar's test."""
    za, zb = _quantiles(alpha, power)
    delta = p2 - p1
    return (za * math.sqrt(discordant) + zb * math.sqrt(discordant - delta**2)) ** 2 / delta**2


@dataclass(frozen=True, slots=True)
class SampleSize:
    """Examples per group (pairs, for McNemar) an exact test needs, its exact power there, and the
    normal approximation's answer for comparison."""

    test: str
    n_per_group: int
    power: float
    normal_approximation: float


def _smallest_n(power_at: Callable[[int], float], target: float, guess: float) -> tuple[int, float]:
    """The smallest n with ``power_at(n) >= target``.

    Exact power is not monotone in n (the tests are discrete), so a bisection alone could stop at
    a later crossing: it finds some n that reaches the target, then the scan restarts from below,
    at an n whose power is at least ``_POWER_SLACK`` short, and returns the first n that reaches it.
    """
    too_many = GraphNIAHError(f"more than {_MAX_SEARCH_N:,} examples per group would be needed (the normal approximation "
                              f"says {guess:,.0f}); the difference is too small to plan for with an exact test here")
    if guess > _MAX_SEARCH_N:
        raise too_many
    hi = max(2, math.ceil(guess))
    while power_at(hi) < target:
        if hi >= _MAX_SEARCH_N:
            raise too_many
        hi = min(2 * hi, _MAX_SEARCH_N)
    lo = 1
    while hi - lo > 1:  # power_at(hi) reaches the target; bisect as if monotone
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
    start, step = hi, 1
    while start > 1 and power_at(start) >= target - _POWER_SLACK:
        start, step = max(1, start - step), step * 2
    for n in range(start, hi + 1):
        p = power_at(n)
        if p >= target:
            return n, p
    return hi, power_at(hi)  # unreachable: hi reaches the target


def fisher_sample_size(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8) -> SampleSize:
    """Examples per group for the two-sided Fisher test to detect accuracies ``p1`` vs ``p2`` with ``power``."""
    if _rate("p1", p1) == _rate("p2", p2):
        raise GraphNIAHError("p1 and p2 are equal: no number of examples detects a difference of zero")
    approx = fisher_normal_n(p1, p2, alpha, power)
    n, got = _smallest_n(lambda n: fisher_power(p1, p2, n, n, alpha), power, approx)
    return SampleSize("fisher_exact", n, got, approx)


def mcnemar_sample_size(p1: float, p2: float, discordant: float, alpha: float = 0.05, power: float = 0.8) -> SampleSize:
    """Pairs for the exact McNemar test to detect accuracies ``p1`` vs ``p2`` with ``power``."""
    _discordant_split(p1, p2, discordant)
    if p1 == p2:
        raise GraphNIAHError("p1 and p2 are equal: no number of pairs detects a difference of zero")
    approx = mcnemar_normal_n(p1, p2, discordant, alpha, power)
    n, got = _smallest_n(lambda n: mcnemar_power(p1, p2, discordant, n, alpha), power, approx)
    return SampleSize("mcnemar_exact", n, got, approx)


def _bisect_difference(power_at: Callable[[float], float], top: float, target: float) -> float | None:
    if top <= 0 or power_at(top) < target:
        return None
    lo, hi = 0.0, top
    for _ in range(30):  # far below the 0.01 percentage points a table prints
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
    return hi


def fisher_detectable_difference(n1: int, n2: int, base: float, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The smallest accuracy difference d that Fisher's test on groups of n1 and n2 detects with ``power``.

    The two rates are placed around ``base`` (the comparison's pooled accuracy): p1 = base − d/2
    and p2 = base + d/2, shifted to stay inside [0, 1]. None when even 0% against 100% is not
    detected that often.
    """
    base = _rate("base", base)

    def at(d: float) -> float:
        p1 = min(max(base - d / 2, 0.0), 1.0 - d)
        return fisher_power(p1, p1 + d, n1, n2, alpha)

    return _bisect_difference(at, 1.0, power)


def mcnemar_detectable_difference(n: int, discordant: float, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The smallest accuracy difference the exact McNemar test on ``n`` pairs detects with ``power``,
    at the share of discordant pairs ``discordant`` (it cannot exceed it). None when none is."""
    d = _rate("discordant", discordant)

    def at(delta: float) -> float:
        return mcnemar_power(0.5 - delta / 2, 0.5 + delta / 2, d, n, alpha)

    return _bisect_difference(at, min(d, 1.0), power)
