"""Paired comparisons of several conditions on the same examples (the wording of a prompt, issue 38).

The same examples asked under K conditions (template sets) give an ``n × K`` table of right (1) and
wrong (0) answers, one row per example. On such a table:

- :func:`cochran_q`  Cochran's Q test that the K conditions have one accuracy (χ² with K − 1 degrees
                     of freedom; statsmodels' ``cochrans_q`` computes the same);
- :func:`pairwise_mcnemar_holm`  the exact McNemar test of every pair of conditions, Holm-adjusted
                     over the K(K − 1)/2 pairs;
- :func:`accuracy_spread`  the best minus the worst condition's accuracy, with a percentile bootstrap
                     interval over examples (rows resampled whole, so the pairing is kept);
- :func:`kendall_tau`  Kendall's τ-b between two rankings (of models under two conditions; scipy's
                     ``kendalltau`` computes the same), and :func:`ranking_agreement`, how many
                     conditions keep one model above another.

Notes
-----
The spread is the largest difference between conditions, chosen after looking at the data, so it is
biased upward: with conditions that do not differ at all it is still positive, and its bootstrap
interval (which re-chooses the best and worst in every resample) is the interval of that statistic,
not a test. Whether the conditions differ at all is Cochran's Q's question; which pairs differ is the
Holm-adjusted McNemar tests'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from graphniah.errors import GraphNIAHError
from graphniah.stats.checks import scipy_stats
from graphniah.stats.intervals import BOOTSTRAP_RESAMPLES, Interval
from graphniah.stats.significance import HypothesisTest, holm, mcnemar_exact

__all__ = ["PairedComparison", "Spread", "accuracy_spread", "cochran_q", "kendall_tau", "pairwise_mcnemar_holm",
           "ranking_agreement"]


def _table(correct: npt.ArrayLike, least_columns: int = 2) -> npt.NDArray[np.int64]:
    x = np.asarray(correct)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < least_columns:
        raise GraphNIAHError(f"a paired table needs one row per example and at least {least_columns} conditions, got shape {x.shape}")
    if not np.isin(x, (0, 1)).all():
        raise GraphNIAHError("a paired table holds right (1) and wrong (0) answers only")
    return x.astype(np.int64)


def cochran_q(correct: npt.ArrayLike) -> HypothesisTest:
    """Cochran's Q test of equal accuracy across the columns of an ``n × K`` table of 0/1 outcomes.

    Parameters
    ----------
    correct : array_like
        One row per example, one column per condition; 1 for a right answer.

    Returns
    -------
    HypothesisTest
        ``statistic`` Q, ``dof`` K − 1, ``pvalue`` from the χ² distribution, ``n`` the examples.

    Notes
    -----
    ``Q = (K − 1) (K Σ_j C_j² − N²) / (K N − Σ_i R_i²)`` with column totals C_j, row totals R_i and
    N = Σ C_j. Rows right or wrong under every condition carry no information and add nothing to
    either sum's difference. When every row is such a row (the denominator is 0) there is nothing
    to test: Q = 0 and p = 1.
    """
    x = _table(correct)
    k = x.shape[1]
    cols, rows = x.sum(axis=0), x.sum(axis=1)
    total = int(cols.sum())
    denominator = k * total - int((rows**2).sum())
    if denominator == 0:
        return HypothesisTest("cochran_q", 0.0, 1.0, int(x.shape[0]), k - 1)
    q = (k - 1) * (k * int((cols**2).sum()) - total**2) / denominator
    return HypothesisTest("cochran_q", float(q), float(scipy_stats().chi2.sf(q, k - 1)), int(x.shape[0]), k - 1)


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Two conditions on the same examples: accuracy difference (second − first), the exact McNemar
    p-value and its Holm-adjusted value over all pairs compared together."""

    first: str
    second: str
    difference: float
    only_first: int  # examples right under the first condition only
    only_second: int
    pvalue: float
    pvalue_holm: float


def pairwise_mcnemar_holm(correct: npt.ArrayLike, names: Sequence[str]) -> tuple[PairedComparison, ...]:
    """Every pair of columns compared by the exact McNemar test, p-values Holm-adjusted over the pairs.

    Parameters
    ----------
    correct : array_like
        ``n × K`` table of 0/1 outcomes (rows: examples, columns: conditions).
    names : sequence of str
        The K conditions' names, in column order.

    Returns
    -------
    tuple of PairedComparison
        The K(K − 1)/2 pairs in column order (first, second).
    """
    x = _table(correct)
    if len(names) != x.shape[1]:
        raise GraphNIAHError(f"{len(names)} names for {x.shape[1]} conditions")
    pairs = list(combinations(range(x.shape[1]), 2))
    raw = []
    for i, j in pairs:
        only_i = int(((x[:, i] == 1) & (x[:, j] == 0)).sum())
        only_j = int(((x[:, i] == 0) & (x[:, j] == 1)).sum())
        raw.append((i, j, only_i, only_j, mcnemar_exact(only_j, only_i).pvalue))
    adjusted = holm([r[4] for r in raw])
    n = x.shape[0]
    return tuple(PairedComparison(names[i], names[j], (only_j - only_i) / n, only_i, only_j, p, a)
                 for (i, j, only_i, only_j, p), a in zip(raw, adjusted, strict=True))


@dataclass(frozen=True, slots=True)
class Spread:
    """The best minus the worst condition's accuracy, which conditions those are, and its bootstrap interval."""

    best: str
    worst: str
    value: float
    interval: Interval
    confidence: float
    n: int


def accuracy_spread(correct: npt.ArrayLike, names: Sequence[str], rng: np.random.Generator, confidence: float = 0.95,
                    *, resamples: int = BOOTSTRAP_RESAMPLES) -> Spread:
    """Best minus worst column accuracy of an ``n × K`` 0/1 table, with a percentile bootstrap interval.

    Parameters
    ----------
    correct : array_like
        One row per example, one column per condition.
    names : sequence of str
        The conditions' names, in column order.
    rng : numpy.random.Generator
        Draws the resamples (``graphniah.seeds.Stream.WORDING_BOOTSTRAP``).
    confidence : float
        Of the interval.
    resamples : int
        Bootstrap resamples: each draws n rows with replacement and takes its own max − min.

    Returns
    -------
    Spread
        The observed best and worst conditions (the first in column order on a tie), the spread and
        its interval (see the module's Notes on what it is not).
    """
    x = _table(correct)
    if len(names) != x.shape[1]:
        raise GraphNIAHError(f"{len(names)} names for {x.shape[1]} conditions")
    if not (0 < confidence < 1) or resamples < 1:
        raise GraphNIAHError(f"confidence must lie in (0, 1) and resamples be positive, got {confidence}, {resamples}")
    acc = x.mean(axis=0)
    n = x.shape[0]
    # Resampled in chunks: a (resamples × n × K) index array would be large for big suites.
    spreads = np.empty(resamples)
    chunk = max(1, 2_000_000 // max(1, n * x.shape[1]))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        means = x[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
        spreads[start:stop] = means.max(axis=1) - means.min(axis=1)
    low, high = np.quantile(spreads, [(1 - confidence) / 2, (1 + confidence) / 2])
    best, worst = int(np.argmax(acc)), int(np.argmin(acc))
    return Spread(names[best], names[worst], float(acc[best] - acc[worst]), Interval(float(low), float(high)), confidence, n)


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Kendall's τ-b of two rankings of the same items (ties corrected; NaN when either is constant).

    ``τ_b = (C − D) / sqrt((P − T_x)(P − T_y))`` over the P = n(n − 1)/2 pairs of items, with C
    concordant and D discordant pairs and T_x, T_y the pairs tied in x, in y.
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise GraphNIAHError(f"Kendall's tau needs two rankings of the same two or more items, got {a.shape} and {b.shape}")
    i, j = np.triu_indices(a.size, 1)
    da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    pairs = i.size
    tied_a, tied_b = int((da == 0).sum()), int((db == 0).sum())
    if tied_a == pairs or tied_b == pairs:
        return float("nan")
    s = float((da * db).sum())
    return s / float(np.sqrt((pairs - tied_a) * (pairs - tied_b)))


def ranking_agreement(accuracy_a: npt.ArrayLike, accuracy_b: npt.ArrayLike) -> int:
    """In how many conditions model A's accuracy is above model B's (ties count for neither)."""
    a, b = np.asarray(accuracy_a, dtype=float), np.asarray(accuracy_b, dtype=float)
    if a.shape != b.shape:
        raise GraphNIAHError("both models need one accuracy per condition")
    return int((a > b).sum())
