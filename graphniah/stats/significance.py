"""Hypothesis tests of the report: Fisher, χ², exact McNemar, Wilcoxon, sums of binomials, Holm.

Choices the method paper leaves implicit were settled from its printed numbers:

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

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt

from graphniah.errors import GraphNIAHError
from graphniah.stats.checks import as_count, scipy_stats

__all__ = ["HypothesisTest", "PairwiseComparison", "binomial_sum_tail", "binomial_sum_tails", "chi2_test", "fisher_exact", "format_pvalue",
           "holm", "mcnemar_exact", "pairwise_fisher_holm", "wilcoxon_signed_rank"]

# Largest number of non-zero differences for which the Wilcoxon test uses the exact null
# distribution (same cut-off as scipy's and R's automatic choice).
_WILCOXON_EXACT_MAX_N = 50


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
    cells = [as_count(name, v) for name, v in (("a", a), ("b", b), ("c", c), ("d", d))]
    n = sum(cells)
    if n == 0:
        raise GraphNIAHError("Fisher's exact test needs a table with at least one observation, got all zeros")
    res = scipy_stats().fisher_exact([[cells[0], cells[1]], [cells[2], cells[3]]], alternative="two-sided")
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
    res = scipy_stats().chi2_contingency(obs, correction=correction)
    return HypothesisTest("chi2", float(res.statistic), float(res.pvalue), int(obs.sum()), int(res.dof))


def mcnemar_exact(b: int, c: int) -> HypothesisTest:
    """Exact McNemar test for paired binary outcomes, from the discordant counts.

    ``b`` = pairs that became correct, ``c`` = pairs that became wrong (the concordant pairs carry
    no information about the change). Under the null hypothesis each discordant pair goes either
    way with probability 1/2, so the p-value is the two-sided binomial test of b out of b + c.
    With no discordant pairs there is nothing to test and the p-value is 1 (the only possible
    outcome is the observed one). The statistic is min(b, c), as in statsmodels.
    """
    b = as_count("b (became correct)", b)
    c = as_count("c (became wrong)", c)
    n = b + c
    pvalue = 1.0 if n == 0 else float(scipy_stats().binomtest(b, n, 0.5, alternative="two-sided").pvalue)
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
    res = scipy_stats().wilcoxon(d, zero_method="wilcox", correction=False, alternative=alternative, method=method)
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
        pmf = np.convolve(pmf, scipy_stats().binom.pmf(np.arange(n + 1), n, float(p)))
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
        k = as_count(f"correct count of group {label!r}", k)
        n = as_count(f"total of group {label!r}", n)
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

