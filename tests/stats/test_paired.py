"""Paired comparisons across conditions (graphniah.stats.paired) against statsmodels and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau
from statsmodels.stats.contingency_tables import cochrans_q, mcnemar
from statsmodels.stats.multitest import multipletests

from graphniah.errors import GraphNIAHError
from graphniah.stats.paired import (
    accuracy_spread,
    cochran_q,
    kendall_tau,
    pairwise_mcnemar_holm,
    ranking_agreement,
)


def _table(seed: int, n: int, rates: list[float]) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((n, len(rates))) < np.asarray(rates)).astype(int)


@pytest.mark.parametrize(("seed", "rates"), [(1, [0.5, 0.5, 0.5]), (2, [0.3, 0.6, 0.8, 0.5]), (3, [0.9, 0.85, 0.7, 0.6, 0.95, 0.9])])
def test_cochran_q_is_statsmodels(seed: int, rates: list[float]) -> None:
    x = _table(seed, 80, rates)
    ours = cochran_q(x)
    ref = cochrans_q(x)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert ours.dof == ref.df == len(rates) - 1


def test_cochran_q_by_hand() -> None:
    # Columns right 3, 1, 0 times; rows (1,1,0), (1,0,0), (1,0,0), (0,0,0): N = 4, Σ R² = 4 + 1 + 1 = 6.
    x = [[1, 1, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0]]
    # Q = (3 − 1)(3 (9 + 1 + 0) − 16) / (3·4 − 6) = 2 · 14 / 6
    assert cochran_q(x).statistic == pytest.approx(28 / 6)
    same = cochran_q([[1, 1], [0, 0], [1, 1]])  # no row differs: nothing to test
    assert (same.statistic, same.pvalue) == (0.0, 1.0)


def test_pairwise_mcnemar_is_statsmodels_exact_with_holm() -> None:
    x = _table(4, 120, [0.4, 0.55, 0.7, 0.45])
    names = ["a", "b", "c", "d"]
    got = pairwise_mcnemar_holm(x, names)
    raw = []
    for i in range(4):
        for j in range(i + 1, 4):
            t = [[int(((x[:, i] == 1) & (x[:, j] == 1)).sum()), int(((x[:, i] == 1) & (x[:, j] == 0)).sum())],
                 [int(((x[:, i] == 0) & (x[:, j] == 1)).sum()), int(((x[:, i] == 0) & (x[:, j] == 0)).sum())]]
            raw.append(mcnemar(t, exact=True).pvalue)
    adjusted = multipletests(raw, method="holm")[1]
    assert [(c.first, c.second) for c in got] == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    assert [c.pvalue for c in got] == pytest.approx(raw, rel=1e-9)
    assert [c.pvalue_holm for c in got] == pytest.approx(list(adjusted), rel=1e-9)
    ac = got[1]
    assert ac.difference == pytest.approx(x[:, 2].mean() - x[:, 0].mean())


def test_spread_finds_the_extremes_and_covers_them() -> None:
    x = _table(5, 200, [0.9, 0.5, 0.7])
    s = accuracy_spread(x, ["good", "bad", "mid"], np.random.default_rng(0), resamples=2000)
    acc = x.mean(axis=0)
    assert (s.best, s.worst) == ("good", "bad")
    assert s.value == pytest.approx(acc.max() - acc.min())
    assert s.interval.low < s.value < s.interval.high
    assert s.interval.low > 0.2  # a 40-point gap on 200 examples is far from zero
    again = accuracy_spread(x, ["good", "bad", "mid"], np.random.default_rng(0), resamples=2000)
    assert again == s  # the generator alone decides the interval


def test_spread_of_identical_conditions_is_zero() -> None:
    col = _table(6, 50, [0.6])
    s = accuracy_spread(np.hstack([col, col]), ["x", "y"], np.random.default_rng(1), resamples=200)
    assert s.value == 0.0 and s.interval.low == s.interval.high == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_kendall_tau_is_scipy_tau_b(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, size=9).astype(float)  # ties on purpose
    b = rng.integers(0, 5, size=9).astype(float)
    assert kendall_tau(a, b) == pytest.approx(kendalltau(a, b, variant="b").statistic, rel=1e-12)
    assert kendall_tau([0.2, 0.5, 0.9], [0.1, 0.4, 0.8]) == 1.0
    assert kendall_tau([0.2, 0.5], [0.6, 0.4]) == -1.0
    assert np.isnan(kendall_tau([0.5, 0.5], [0.1, 0.2]))


def test_ranking_agreement_counts_strict_wins() -> None:
    assert ranking_agreement([0.8, 0.6, 0.5, 0.7], [0.7, 0.6, 0.6, 0.2]) == 2


def test_bad_tables_are_errors() -> None:
    with pytest.raises(GraphNIAHError, match="at least 2 conditions"):
        cochran_q([[1], [0]])
    with pytest.raises(GraphNIAHError, match="right \\(1\\) and wrong \\(0\\)"):
        cochran_q([[1, 2]])
    with pytest.raises(GraphNIAHError, match="2 names for 3"):
        pairwise_mcnemar_holm([[1, 0, 1]], ["a", "b"])
