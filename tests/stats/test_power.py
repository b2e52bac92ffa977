"""Tests for the power part of graphniah.stats: exact power and sample sizes of Fisher's and McNemar's tests.

The rejection regions are checked table by table against the tests themselves (scipy's Fisher,
the project's McNemar), the power against brute-force simulation with a seeded Generator, and the
sample sizes against statsmodels' normal approximation (close, never the same: the exact tests
are discrete and conservative).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from graphniah.errors import GraphNIAHError
from graphniah.stats import (
    fisher_detectable_difference,
    fisher_normal_n,
    fisher_power,
    fisher_sample_size,
    mcnemar_detectable_difference,
    mcnemar_exact,
    mcnemar_normal_n,
    mcnemar_power,
    mcnemar_sample_size,
)
from graphniah.stats.power import _fisher_region, _mcnemar_region


@pytest.mark.parametrize(("n1", "n2"), [(7, 9), (12, 12), (3, 20), (1, 1)])
def test_fisher_region_is_where_fisher_rejects(n1: int, n2: int) -> None:
    region = _fisher_region(n1, n2, 0.05)
    for x1 in range(n1 + 1):
        for x2 in range(n2 + 1):
            p = sp.fisher_exact([[x1, n1 - x1], [x2, n2 - x2]]).pvalue
            assert bool(region[x1, x2]) == (p <= 0.05), (x1, x2, p)


def test_mcnemar_region_is_where_mcnemar_rejects() -> None:
    region = _mcnemar_region(30, 0.05)
    for k in range(31):
        for b in range(31):
            expected = b <= k and mcnemar_exact(b, k - b).pvalue <= 0.05
            assert bool(region[k, b]) == expected, (k, b)


def test_fisher_power_matches_simulation() -> None:
    rng = np.random.default_rng(20261202)
    n1, n2, p1, p2, trials = 40, 35, 0.3, 0.6, 4000
    x1 = rng.binomial(n1, p1, trials)
    x2 = rng.binomial(n2, p2, trials)
    pvalue = {t: sp.fisher_exact([[t[0], n1 - t[0]], [t[1], n2 - t[1]]]).pvalue for t in set(zip(x1.tolist(), x2.tolist(), strict=True))}
    simulated = np.mean([pvalue[t] <= 0.05 for t in zip(x1.tolist(), x2.tolist(), strict=True)])
    exact = fisher_power(p1, p2, n1, n2)
    se = math.sqrt(exact * (1 - exact) / trials)
    assert abs(simulated - exact) < 4 * se
    assert 0.5 < exact < 0.95  # a case where the check has teeth


def test_mcnemar_power_matches_simulation() -> None:
    rng = np.random.default_rng(7)
    n, p1, p2, d, trials = 60, 0.5, 0.7, 0.3, 4000
    up, down = (d + p2 - p1) / 2, (d - p2 + p1) / 2
    counts = rng.multinomial(n, [up, down, 1 - up - down], size=trials)
    simulated = np.mean([mcnemar_exact(int(b), int(c)).pvalue <= 0.05 for b, c, _ in counts])
    exact = mcnemar_power(p1, p2, d, n)
    se = math.sqrt(exact * (1 - exact) / trials)
    assert abs(simulated - exact) < 4 * se
    assert 0.5 < exact < 0.95


@pytest.mark.parametrize(("p1", "p2"), [(0.5, 0.7), (0.25, 0.5), (0.8, 0.6)])
def test_fisher_sample_size_is_close_to_the_normal_approximation_but_exact(p1: float, p2: float) -> None:
    size = fisher_sample_size(p1, p2)
    normal = NormalIndPower().solve_power(proportion_effectsize(p2, p1), alpha=0.05, power=0.8, ratio=1.0)
    assert 0.9 * normal < size.n_per_group < 1.35 * normal  # close ...
    assert size.n_per_group != math.ceil(normal)  # ... not equal: the exact test is discrete and conservative
    assert size.power == pytest.approx(fisher_power(p1, p2, size.n_per_group)) and size.power >= 0.8
    assert fisher_power(p1, p2, size.n_per_group - 1) < 0.8


def test_fisher_sample_size_is_the_smallest_n() -> None:
    size = fisher_sample_size(0.2, 0.7)
    assert all(fisher_power(0.2, 0.7, n) < 0.8 for n in range(1, size.n_per_group))
    assert fisher_power(0.2, 0.7, size.n_per_group) >= 0.8


def test_mcnemar_sample_size_is_the_smallest_n() -> None:
    size = mcnemar_sample_size(0.5, 0.7, 0.3)
    assert size.test == "mcnemar_exact" and size.power >= 0.8
    assert all(mcnemar_power(0.5, 0.7, 0.3, n) < 0.8 for n in range(1, size.n_per_group))
    # Connor's approximation (the usual normal formula) is close but not the same.
    assert abs(size.n_per_group - size.normal_approximation) / size.normal_approximation < 0.25
    assert size.n_per_group != math.ceil(size.normal_approximation)


def test_detectable_differences() -> None:
    d100 = fisher_detectable_difference(100, 100, 0.5)
    d400 = fisher_detectable_difference(400, 400, 0.5)
    assert d100 is not None and d400 is not None and d400 < d100
    assert fisher_power(0.5 - d100 / 2, 0.5 + d100 / 2, 100, 100) >= 0.8
    assert fisher_power(0.5 - (d100 - 0.01) / 2, 0.5 + (d100 - 0.01) / 2, 100, 100) < 0.8
    assert fisher_detectable_difference(2, 2, 0.5) is None  # 2 against 2 never reaches p <= 0.05
    assert fisher_detectable_difference(50, 50, 0.98) is not None  # near 100%: the pair is shifted inside [0, 1]
    m = mcnemar_detectable_difference(100, 0.3)
    assert m is not None and m <= 0.3 and mcnemar_power(0.5 - m / 2, 0.5 + m / 2, 0.3, 100) >= 0.8
    assert mcnemar_detectable_difference(100, 0.0) is None


def test_bad_arguments_are_errors() -> None:
    with pytest.raises(GraphNIAHError, match="equal"):
        fisher_sample_size(0.5, 0.5)
    with pytest.raises(GraphNIAHError, match="alpha"):
        fisher_power(0.5, 0.6, 10, alpha=1.5)
    with pytest.raises(GraphNIAHError, match="probability"):
        fisher_sample_size(-0.1, 0.5)
    with pytest.raises(GraphNIAHError, match="discordant share"):
        mcnemar_sample_size(0.5, 0.7, 0.1)  # fewer discordant pairs than the difference needs
    with pytest.raises(GraphNIAHError, match="power"):
        fisher_sample_size(0.5, 0.7, power=1.0)
    with pytest.raises(GraphNIAHError, match="too small"):  # about 39,000 per group: refused before any region is built
        fisher_sample_size(0.5, 0.51)


def _fleiss_n(p1: float, p2: float, za: float, zb: float) -> float:
    """Fleiss, Levin & Paik's sample size per group for two proportions (pooled variance under H0, no
    continuity correction), written out with the quantiles read from a normal table."""
    bar = (p1 + p2) / 2
    return (za * math.sqrt(2 * bar * (1 - bar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (p2 - p1) ** 2


@pytest.mark.parametrize(("p1", "p2", "alpha", "power", "za", "zb", "textbook"), [
    (0.5, 0.7, 0.05, 0.8, 1.959964, 0.841621, 93),  # the tables' 93 per group (uncorrected)
    (0.2, 0.3, 0.05, 0.8, 1.959964, 0.841621, 294),  # and 294
    (0.5, 0.7, 0.01, 0.9, 2.575829, 1.281552, 177),
])
def test_the_normal_approximation_is_the_textbook_sample_size(p1, p2, alpha, power, za, zb, textbook) -> None:
    got = fisher_normal_n(p1, p2, alpha=alpha, power=power)
    assert got == pytest.approx(_fleiss_n(p1, p2, za, zb), rel=1e-5)
    assert math.ceil(got) == textbook
    assert fisher_sample_size(p1, p2, alpha=alpha, power=power).normal_approximation == pytest.approx(got)


def test_connors_approximation_for_mcnemar_is_the_textbook_formula() -> None:
    """Connor (1987): n = (z_a sqrt(d) + z_b sqrt(d - delta^2))^2 / delta^2 pairs, d the discordant share."""
    za, zb = 1.959964, 0.841621
    for p1, p2, d, pairs in ((0.5, 0.7, 0.3, 57), (0.5, 0.6, 0.2, 155)):
        delta = p2 - p1
        want = (za * math.sqrt(d) + zb * math.sqrt(d - delta**2)) ** 2 / delta**2
        assert mcnemar_normal_n(p1, p2, d) == pytest.approx(want, rel=1e-5)
        assert math.ceil(mcnemar_normal_n(p1, p2, d)) == pairs
