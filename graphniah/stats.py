"""Statistics for GraphNIAH reports: Wilson intervals, exact random baselines, hypothesis tests.

Every function here reproduces a quantity the method paper prints (appendices D and E), and the
tests in ``tests/test_stats.py`` check it against those printed numbers and against
statsmodels/scipy. Choices the paper leaves implicit were settled from its printed numbers:

* **Wilson intervals** use the normal quantile ``z``. All 630 intervals printed in Tables 5-28
  (footnoted cells included) are transcribed with their (k, n) in
  ``tests/data/paper_wilson_intervals.csv``, and the tests check every one. With the exact 97.5%
  quantile (1.959964...), ten of them come out 0.01 percentage points off; with the rounded
  ``z = 1.96`` all 630 match. The paper therefore used 1.96: pass ``z=PAPER_Z`` to reproduce its
  tables digit for digit. The default is the exact quantile for ``confidence``, which is what
  statsmodels and scipy compute.
* **χ² across groups** is Pearson's statistic (not the likelihood-ratio G statistic: the G test
  gives p = 0.02 instead of the printed 0.03 for Gemini-3.8-Flash in Table 20). The paper applies it
  only to 2×5 tables, where Yates' continuity correction does not apply; ``chi2_test`` therefore
  defaults to no correction, and a caller can ask for it on 1-degree-of-freedom tables.
* **Pairwise comparisons** of independent groups use Fisher's exact test (two-sided: the sum of
  the probabilities of all tables no more likely than the observed one), and Holm's step-down
  correction is applied within one model's family of pairs (ten pairs of five distractor types),
  not across models.
* **Paired comparisons** use the exact McNemar test: the two-sided binomial test of the
  discordant pairs ``b`` (became correct) against ``c`` (became wrong) with success
  probability 1/2.
* **Wilcoxon signed-rank** drops zero differences (Wilcoxon's own treatment, also scipy's and R's
  default), uses the exact null distribution when at most 50 non-zero differences remain and
  their absolute values have no ties, and otherwise the normal approximation with tie correction
  and without continuity correction. The paper's Table 18 prints only summaries, so its p-values
  cannot be recomputed from the paper; the choice is tested against scipy instead.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational
from typing import Any, Literal, SupportsIndex

import numpy as np
import numpy.typing as npt

from graphniah.errors import GraphNIAHError

__all__ = [
    "PAPER_TASKS",
    "PAPER_Z",
    "AnswerSpace",
    "CountingAnswers",
    "CountingOutcomes",
    "HypothesisTest",
    "Interval",
    "ListAnswers",
    "Mean",
    "MultipleChoiceAnswers",
    "PairwiseComparison",
    "Proportion",
    "SampleSize",
    "YesNoAnswers",
    "binomial_sum_tail",
    "binomial_sum_tails",
    "bootstrap_mean",
    "chi2_test",
    "counting_outcomes",
    "fisher_detectable_difference",
    "fisher_exact",
    "fisher_normal_n",
    "fisher_power",
    "fisher_sample_size",
    "format_pvalue",
    "holm",
    "mcnemar_detectable_difference",
    "mcnemar_exact",
    "mcnemar_normal_n",
    "mcnemar_power",
    "mcnemar_sample_size",
    "mixture_baseline",
    "pairwise_fisher_holm",
    "proportion",
    "random_baseline",
    "uniform_mixture_baseline",
    "wilcoxon_signed_rank",
    "wilson_interval",
]

#: The normal quantile the paper used for its 95% Wilson intervals (see the module docstring).
PAPER_Z = 1.96

# Largest number of non-zero differences for which the Wilcoxon test uses the exact null
# distribution (same cut-off as scipy's and R's automatic choice).
_WILCOXON_EXACT_MAX_N = 50


def _scipy_stats() -> Any:  # scipy has no type stubs
    """scipy.stats, imported on first use: it costs most of a second of CPU, which every command that
    merely imports this module (``verify`` through the dataset card, ``run`` through scoring) would
    pay at start-up otherwise."""
    from scipy import stats

    return stats


def _scipy_special() -> Any:
    """scipy.special, imported on first use (as :func:`_scipy_stats`)."""
    from scipy import special

    return special


def _count(name: str, value: object) -> int:
    """Return ``value`` as a non-negative int, or raise a GraphNIAHError naming the argument."""
    if isinstance(value, bool):
        raise GraphNIAHError(f"{name} must be a count (non-negative integer), got the boolean {value!r}")
    try:
        if not isinstance(value, SupportsIndex):  # what operator.index accepts; also narrows the type
            raise TypeError
        count = operator.index(value)
    except TypeError:
        raise GraphNIAHError(
            f"{name} must be a count (non-negative integer), got {value!r} of type {type(value).__name__}"
        ) from None
    if count < 0:
        raise GraphNIAHError(f"{name} must be a count (non-negative integer), got {count}")
    return count


# --------------------------------------------------------------------------------------------
# Proportions and Wilson intervals
# --------------------------------------------------------------------------------------------


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
    return float(_scipy_stats().norm.ppf(0.5 + confidence / 2))


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
    k = _count("k (successes)", k)
    n = _count("n (trials)", n)
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


# --------------------------------------------------------------------------------------------
# Exact random-guessing baselines (appendix D)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class YesNoAnswers:
    """Answer set of YES/NO reachability: {YES, NO}."""

    @property
    def size(self) -> int:
        return 2


@dataclass(frozen=True, slots=True)
class MultipleChoiceAnswers:
    """Answer set of multiple-choice reachability: the option letters.

    With ``none_option`` a further option ("none of these targets is reachable") is listed. It is
    never the correct answer, but a guesser that ignores the context cannot know that, so it picks
    uniformly among all listed options and the baseline drops from 1/4 to 1/5.
    """

    options: int = 4
    none_option: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.options, bool) or not isinstance(self.options, int) or self.options < 2:
            raise GraphNIAHError(f"a multiple-choice question needs at least 2 options, got {self.options!r}")

    @property
    def size(self) -> int:
        return self.options + (1 if self.none_option else 0)


@dataclass(frozen=True, slots=True)
class CountingAnswers:
    """Answer set of reachability counting.

    The answer is the component size minus one, and component sizes are drawn from the integers
    in ``[min_component_size, max_component_size]``, so the possible answers are the integers
    ``min - 1 .. max - 1`` (99..249, i.e. 151 values, with the paper's defaults). The paper uses
    this full set in every experiment, including the component-size experiment whose cells fix
    one size: the baseline describes a guesser that knows the benchmark, not the cell.
    """

    min_component_size: int = 100
    max_component_size: int = 250

    def __post_init__(self) -> None:
        lo, hi = self.min_component_size, self.max_component_size
        if not (isinstance(lo, int) and isinstance(hi, int)) or isinstance(lo, bool) or isinstance(hi, bool):
            raise GraphNIAHError(f"component sizes must be integers, got {lo!r} and {hi!r}")
        if lo < 1 or hi < lo:
            raise GraphNIAHError(
                f"component size range must satisfy 1 <= min <= max, got min={lo}, max={hi}"
            )

    @property
    def answers(self) -> range:
        return range(self.min_component_size - 1, self.max_component_size)

    @property
    def size(self) -> int:
        return len(self.answers)


@dataclass(frozen=True, slots=True)
class ListAnswers:
    """Answer set of the list task as a guesser who ignores the context sees it: every subset of the
    ``titles`` papers other than the source (at least the smallest component's 99 with the paper's
    sizes). An exact answer is one subset, so a uniform guess is right with probability 2^-titles:
    zero at any printed precision. The list task is scored by F1, whose trivial baseline (list
    every paper of the context) the report prints beside the models."""

    titles: int = 99

    @property
    def size(self) -> int:
        return 1 << self.titles


AnswerSpace = YesNoAnswers | MultipleChoiceAnswers | CountingAnswers | ListAnswers

#: The three tasks with the paper's default parameters (appendix D).
PAPER_TASKS: tuple[AnswerSpace, ...] = (YesNoAnswers(), MultipleChoiceAnswers(), CountingAnswers())


def random_baseline(task: AnswerSpace) -> Fraction:
    """Expected accuracy of a uniform random guess on one task, exactly: 1 / |answer set|.

    It does not depend on how the ground-truth answers are distributed: whatever the truth y is,
    a uniform guess hits it with probability 1/|A|, so the expectation over any distribution of y
    is 1/|A| as well.
    """
    if not isinstance(task, YesNoAnswers | MultipleChoiceAnswers | CountingAnswers | ListAnswers):
        raise GraphNIAHError(f"unknown task answer space {task!r}")
    return Fraction(1, task.size)


def mixture_baseline(
    weights: Mapping[AnswerSpace, int | Fraction] | Iterable[tuple[AnswerSpace, int | Fraction]],
) -> Fraction:
    """Expected random-guessing accuracy when the task is drawn with the given weights.

    By the law of total probability it is ``sum_t P(t) / |A_t|``. Weights are normalised, so they
    may be probabilities or example counts (a pooled column over tasks with unequal counts).
    They must be exact (int or Fraction) so the result is exact; pass ``Fraction(1, 3)`` rather
    than ``0.333``.
    """
    items = list(weights.items()) if isinstance(weights, Mapping) else list(weights)
    if not items:
        raise GraphNIAHError("a task mixture needs at least one task")
    total = Fraction(0)
    acc = Fraction(0)
    for task, weight in items:
        if isinstance(weight, bool) or not isinstance(weight, Rational):
            raise GraphNIAHError(
                f"task weight for {task!r} must be an int or Fraction (exact), got {weight!r}"
            )
        w = Fraction(weight)
        if w < 0:
            raise GraphNIAHError(f"task weight for {task!r} must be non-negative, got {w}")
        total += w
        acc += w * random_baseline(task)
    if total == 0:
        raise GraphNIAHError("task weights sum to zero")
    return acc / total


def uniform_mixture_baseline(tasks: Sequence[AnswerSpace] = PAPER_TASKS) -> Fraction:
    """Baseline when each example's task is drawn uniformly from ``tasks``.

    With the paper's tasks this is (1/2 + 1/4 + 1/151) / 3 = 457/1812 ≈ 25.22% (equation 8).
    """
    return mixture_baseline([(task, 1) for task in tasks])


# --------------------------------------------------------------------------------------------
# Hypothesis tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HypothesisTest:
    """Outcome of one hypothesis test.

    ``n`` is the number of observations the test used (all cells for Fisher and χ², discordant
    pairs for McNemar, non-zero differences for Wilcoxon); ``dof`` is set for χ² only.
    """

    test: str
    statistic: float
    pvalue: float
    n: int
    dof: int | None = None


def fisher_exact(a: int, b: int, c: int, d: int) -> HypothesisTest:
    """Two-sided Fisher's exact test of the 2×2 table ``[[a, b], [c, d]]``.

    For two groups' accuracies pass ``(correct_1, wrong_1, correct_2, wrong_2)``. The p-value sums
    the hypergeometric probabilities of all tables with the same margins that are no more likely
    than the observed one. The statistic is the sample odds ratio ``a·d / (b·c)`` (inf or nan when
    a denominator count is zero).
    """
    cells = [_count(name, v) for name, v in (("a", a), ("b", b), ("c", c), ("d", d))]
    n = sum(cells)
    if n == 0:
        raise GraphNIAHError("Fisher's exact test needs a table with at least one observation, got all zeros")
    res = _scipy_stats().fisher_exact([[cells[0], cells[1]], [cells[2], cells[3]]], alternative="two-sided")
    return HypothesisTest("fisher_exact", float(res.statistic), float(min(1.0, res.pvalue)), n)


def chi2_test(table: Sequence[Sequence[int]] | npt.NDArray[np.integer], *, correction: bool = False) -> HypothesisTest:
    """Pearson's χ² test of independence (homogeneity) for an r×c table of counts.

    For "is accuracy the same across groups" pass one row per group: ``[correct, wrong]``.
    ``correction`` applies Yates' continuity correction, which scipy only applies to tables with
    one degree of freedom; the paper's χ² tests are all 2×5, where it makes no difference.

    A row or column that sums to zero has expected counts of zero, for which the statistic is
    undefined (e.g. a model that never answers a counting example correctly in any group); that is
    an error rather than a silent p-value.
    """
    try:
        obs = np.asarray(table)
    except (TypeError, ValueError) as exc:
        raise GraphNIAHError(f"χ² table must be a rectangular table of counts: {exc}") from None
    if obs.ndim != 2 or obs.shape[0] < 2 or obs.shape[1] < 2:
        raise GraphNIAHError(f"χ² table must be 2-dimensional with at least 2 rows and 2 columns, got shape {obs.shape}")
    if obs.dtype.kind not in "iu" or (obs < 0).any():
        raise GraphNIAHError(f"χ² table must hold non-negative integer counts, got {obs.tolist()}")
    empty_rows = np.flatnonzero(obs.sum(axis=1) == 0)
    empty_cols = np.flatnonzero(obs.sum(axis=0) == 0)
    if empty_rows.size or empty_cols.size:
        raise GraphNIAHError(
            "χ² test is undefined when a row or column of the table sums to zero "
            f"(empty rows {empty_rows.tolist()}, empty columns {empty_cols.tolist()}) in {obs.tolist()}"
        )
    res = _scipy_stats().chi2_contingency(obs, correction=correction)
    return HypothesisTest("chi2", float(res.statistic), float(res.pvalue), int(obs.sum()), int(res.dof))


def mcnemar_exact(b: int, c: int) -> HypothesisTest:
    """Exact McNemar test for paired binary outcomes, from the discordant counts.

    ``b`` = pairs that became correct, ``c`` = pairs that became wrong (the concordant pairs carry
    no information about the change). Under the null hypothesis each discordant pair goes either
    way with probability 1/2, so the p-value is the two-sided binomial test of b out of b + c.
    With no discordant pairs there is nothing to test and the p-value is 1 (the only possible
    outcome is the observed one). The statistic is min(b, c), as in statsmodels.
    """
    b = _count("b (became correct)", b)
    c = _count("c (became wrong)", c)
    n = b + c
    pvalue = 1.0 if n == 0 else float(_scipy_stats().binomtest(b, n, 0.5, alternative="two-sided").pvalue)
    return HypothesisTest("mcnemar_exact", float(min(b, c)), min(1.0, pvalue), n)


def wilcoxon_signed_rank(x: Sequence[float] | npt.NDArray[np.number], y: Sequence[float] | npt.NDArray[np.number],
                         alternative: Literal["two-sided", "greater"] = "two-sided") -> HypothesisTest:
    """Wilcoxon signed-rank test of the paired differences ``y - x`` (two-sided, or one-sided ``y > x``).

    ``x`` is "before" and ``y`` "after" (the paper's median change is the median of y - x).
    Zero differences are dropped; the exact null distribution is used for at most 50 remaining
    differences without ties in their absolute values, the normal approximation (tie-corrected,
    no continuity correction) otherwise. These choices are fixed here rather than left to scipy's
    version-dependent ``method="auto"``. The statistic is min(W+, W-), the smaller rank sum.
    """
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.ndim != 1 or ya.ndim != 1 or xa.shape != ya.shape:
        raise GraphNIAHError(
            f"Wilcoxon signed-rank test needs two 1-D samples of equal length, got shapes {xa.shape} and {ya.shape}"
        )
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise GraphNIAHError("Wilcoxon signed-rank test got a missing (NaN) or infinite value")
    d = ya - xa
    d = d[d != 0]
    n = int(d.size)
    if n == 0:
        raise GraphNIAHError(
            f"Wilcoxon signed-rank test is undefined: all {xa.size} paired differences are zero"
        )
    abs_d = np.abs(d)
    has_ties = np.unique(abs_d).size < n
    method = "exact" if n <= _WILCOXON_EXACT_MAX_N and not has_ties else "asymptotic"
    res = _scipy_stats().wilcoxon(d, zero_method="wilcox", correction=False, alternative=alternative, method=method)
    return HypothesisTest("wilcoxon_signed_rank", float(res.statistic), float(min(1.0, res.pvalue)), n)


def binomial_sum_tails(groups: Sequence[tuple[int, Fraction]]) -> npt.NDArray[np.float64]:
    """Exact upper tails of a sum of independent binomial counts.

    Parameters
    ----------
    groups : (n, p) pairs
        Each group contributes Binomial(n, p) successes: examples of one answer space guessed at
        random, each right with probability p.

    Returns
    -------
    ndarray
        Entry k is P(S >= k) for k = 0 .. N (N the total count), S the sum over the groups: the
        one-sided p-value of k successes against random guessing.

    Notes
    -----
    The distribution of S is the convolution of the groups' binomial pmfs; tails are summed from
    the top so that small p-values keep their relative precision.
    """
    pmf = np.ones(1)
    for n, p in groups:
        pmf = np.convolve(pmf, _scipy_stats().binom.pmf(np.arange(n + 1), n, float(p)))
    return np.clip(np.cumsum(pmf[::-1])[::-1], 0.0, 1.0)


def binomial_sum_tail(groups: Sequence[tuple[int, Fraction]], k: int) -> float:
    """P(S >= k) for S a sum of independent binomial counts (see :func:`binomial_sum_tails`)."""
    tails = binomial_sum_tails(groups)
    return 1.0 if k <= 0 else float(tails[k]) if k < tails.size else 0.0


def holm(pvalues: Sequence[float] | npt.NDArray[np.floating]) -> tuple[float, ...]:
    """Holm's step-down adjusted p-values, in the order given.

    Sort the m p-values ascending, p(1) <= ... <= p(m); the adjusted value of p(i) is
    ``max_{j <= i} min(1, (m - j + 1) p(j))``. The running maximum keeps the adjusted values in
    the same order as the raw ones, so rejecting all adjusted p <= α is exactly Holm's procedure,
    which controls the family-wise error rate at α for any dependence between the tests. Ties
    get the same adjusted value whatever order the stable sort puts them in, because the
    multiplier of the later one is smaller and the running maximum carries the earlier value.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise GraphNIAHError(f"Holm correction needs a flat list of p-values, got shape {p.shape}")
    if p.size == 0:
        return ()
    if not (np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()):
        raise GraphNIAHError(f"p-values must lie in [0, 1], got {p.tolist()}")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return tuple(float(v) for v in adjusted)


@dataclass(frozen=True, slots=True)
class PairwiseComparison:
    """One pair of groups: accuracy difference (second minus first) and Fisher p-values."""

    first: str
    second: str
    difference: float
    pvalue: float
    pvalue_holm: float


def pairwise_fisher_holm(groups: Sequence[tuple[str, int, int]]) -> tuple[PairwiseComparison, ...]:
    """Compare every pair of independent groups ``(label, correct, total)`` as in Table 20.

    Pairs are (i, j) with i < j in the given order; each gets the two-sided Fisher p-value of
    ``[[correct_i, wrong_i], [correct_j, wrong_j]]``, and Holm's correction is applied over all the
    pairs passed in one call (the paper's family: one model's ten pairs of distractor types).
    """
    checked: list[tuple[str, int, int]] = []
    for label, k, n in groups:
        k = _count(f"correct count of group {label!r}", k)
        n = _count(f"total of group {label!r}", n)
        if n == 0 or k > n:
            raise GraphNIAHError(f"group {label!r} needs 0 <= correct <= total and total > 0, got {k} of {n}")
        checked.append((label, k, n))
    labels = [g[0] for g in checked]
    if len(set(labels)) != len(labels):
        raise GraphNIAHError(f"group labels must be distinct, got {labels}")
    pairs = [(i, j) for i in range(len(checked)) for j in range(i + 1, len(checked))]
    raw = []
    for i, j in pairs:
        _, ki, ni = checked[i]
        _, kj, nj = checked[j]
        raw.append(fisher_exact(ki, ni - ki, kj, nj - kj).pvalue)
    adjusted = holm(raw)
    return tuple(
        PairwiseComparison(
            first=checked[i][0],
            second=checked[j][0],
            difference=checked[j][1] / checked[j][2] - checked[i][1] / checked[i][2],
            pvalue=p,
            pvalue_holm=q,
        )
        for (i, j), p, q in zip(pairs, raw, adjusted, strict=True)
    )


def format_pvalue(p: float, digits: int = 2) -> str:
    """Print a p-value the way the paper does: two decimals, and ``<0.01`` below 0.01."""
    if not (0 <= p <= 1):
        raise GraphNIAHError(f"p-value must lie in [0, 1], got {p!r}")
    floor = 10.0**-digits
    if p < floor:
        return f"<{floor:.{digits}f}"
    return f"{p:.{digits}f}"


# --------------------------------------------------------------------------------------------
# Counting outcomes (Table 15)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountingOutcomes:
    """How a model's counting answers relate to the ground truth (Table 15).

    ``exact + too_low + too_high + no_number == n``. ``within_tolerance`` counts numeric answers
    with ``|predicted - truth| <= tolerance · truth`` (exact answers included). ``median_ratio`` is
    the median of predicted / truth over the numeric answers, or None when there are none.
    """

    n: int
    exact: int
    too_low: int
    too_high: int
    no_number: int
    within_tolerance: int
    tolerance: Fraction
    median_ratio: float | None


def counting_outcomes(
    predicted: Sequence[float | int | None] | npt.NDArray[np.number],
    truth: Sequence[int] | npt.NDArray[np.integer],
    *,
    tolerance: Fraction = Fraction(1, 10),
) -> CountingOutcomes:
    """Classify counting answers as exact, too low, too high or without a number.

    ``predicted[i]`` is the number parsed from the final answer block of example i, or None (or
    NaN) when the response has no number there or no answer block at all. ``truth[i]`` is the
    ground-truth count (component size minus one), which must be positive for the ratio.
    The tolerance test is done in exact rational arithmetic (``|p - t| · den <= num · t``), so a
    count exactly 10% off is within 10% whatever floating-point rounding 0.1·t would give.
    """
    tol = Fraction(tolerance)
    if tol < 0:
        raise GraphNIAHError(f"tolerance must be non-negative, got {tolerance!r}")
    pred = np.array([np.nan if v is None else v for v in predicted], dtype=float)
    true = np.asarray(truth)
    if pred.ndim != 1 or true.ndim != 1 or pred.shape != true.shape:
        raise GraphNIAHError(
            f"counting outcomes need one prediction per ground-truth count, got {pred.shape} and {true.shape}"
        )
    if pred.size == 0:
        raise GraphNIAHError("counting outcomes need at least one example, got none")
    if true.dtype.kind not in "iu" or (true <= 0).any():
        raise GraphNIAHError(f"ground-truth counts must be positive integers, got {true.tolist()}")
    if np.isinf(pred).any():
        raise GraphNIAHError("a predicted count is infinite; pass None for answers without a number")
    numeric = ~np.isnan(pred)
    p = pred[numeric]
    t = true[numeric].astype(float)
    exact = int((p == t).sum())
    too_low = int((p < t).sum())
    too_high = int((p > t).sum())
    within = int((np.abs(p - t) * tol.denominator <= tol.numerator * t).sum())
    median_ratio = float(np.median(p / t)) if p.size else None
    return CountingOutcomes(
        n=int(pred.size),
        exact=exact,
        too_low=too_low,
        too_high=too_high,
        no_number=int((~numeric).sum()),
        within_tolerance=within,
        tolerance=tol,
        median_ratio=median_ratio,
    )


# --------------------------------------------------------------------------------------------
# Statistical power: exact, by enumerating every outcome
# --------------------------------------------------------------------------------------------
#
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
    lf = _scipy_special().gammaln(np.arange(total + 2, dtype=float))  # lf[k] = log k!
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
    tail = _scipy_stats().binom.cdf(np.minimum(b, k - b), k, 0.5)  # symmetric null: two-sided p = 2 · smaller tail
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
    a, b = _count("n1", n1), _count("n2", n1 if n2 is None else n2)
    if a == 0 or b == 0:
        raise GraphNIAHError("each group needs at least one example")
    region = _fisher_region(a, b, _level(alpha))
    b1 = _scipy_stats().binom.pmf(np.arange(a + 1), a, _rate("p1", p1))
    b2 = _scipy_stats().binom.pmf(np.arange(b + 1), b, _rate("p2", p2))
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
    n = _count("n (pairs)", n)
    up, _ = _discordant_split(p1, p2, discordant)
    d = _rate("discordant", discordant)
    if n == 0 or d == 0:
        return 0.0
    k = np.arange(n + 1)
    inner = _scipy_stats().binom.pmf(k[None, :], k[:, None], up / d) * _mcnemar_region(n, _level(alpha))
    return float(_scipy_stats().binom.pmf(k, n, d) @ inner.sum(axis=1))


def _quantiles(alpha: float, power: float) -> tuple[float, float]:
    if not (isinstance(power, int | float) and 0 < power < 1):
        raise GraphNIAHError(f"power must lie strictly between 0 and 1, got {power!r}")
    return float(_scipy_stats().norm.ppf(1 - _level(alpha) / 2)), float(_scipy_stats().norm.ppf(power))


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
