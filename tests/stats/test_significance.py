"""graphniah.stats.significance: Fisher, χ², Holm, exact McNemar, Wilcoxon and sums of binomials, against the
paper's printed p-values (Tables 17, 20-22, 27) and statsmodels/scipy. Table 18's Wilcoxon p-values cannot be
recomputed (the paper prints only means and medians), so Wilcoxon is checked against scipy only.
"""

from __future__ import annotations

import gc
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sp
from statsmodels.stats.contingency_tables import Table, mcnemar
from statsmodels.stats.multitest import multipletests

from graphniah.errors import GraphNIAHError
from graphniah.stats import (
    chi2_test,
    fisher_exact,
    format_pvalue,
    holm,
    mcnemar_exact,
    pairwise_fisher_holm,
    wilcoxon_signed_rank,
)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# Fisher's exact test
# --------------------------------------------------------------------------------------------

# Table 22: (correct, n) at two target context lengths and the printed two-sided p-value.
TABLE_22 = [
    ((38, 100), (22, 50), "0.49"),
    ((38, 100), (20, 50), "0.86"),
    ((22, 50), (20, 50), "0.84"),
    ((71, 100), (32, 50), "0.46"),
    ((71, 100), (30, 50), "0.20"),
    ((32, 50), (30, 50), "0.84"),
]


@pytest.mark.parametrize(("first", "second", "printed"), TABLE_22)
def test_fisher_reproduces_table_22(first: tuple[int, int], second: tuple[int, int], printed: str) -> None:
    (k1, n1), (k2, n2) = first, second
    res = fisher_exact(k1, n1 - k1, k2, n2 - k2)
    assert format_pvalue(res.pvalue) == printed
    assert res.n == n1 + n2


def _fisher_by_enumeration(a: int, b: int, c: int, d: int) -> float:
    """Independent two-sided Fisher p-value: sum the hypergeometric tables no likelier than observed."""
    row1, col1, total = a + b, a + c, a + b + c + d
    dist = sp.hypergeom(total, col1, row1)
    support = np.arange(max(0, row1 + col1 - total), min(row1, col1) + 1)
    pmf = dist.pmf(support)
    observed = dist.pmf(a)
    return float(min(1.0, pmf[pmf <= observed * (1 + 1e-7)].sum()))


@FAST
@given(cells=st.lists(st.integers(0, 40), min_size=4, max_size=4).filter(lambda c: sum(c) > 0))
def test_fisher_matches_enumeration(cells: list[int]) -> None:
    a, b, c, d = cells
    res = fisher_exact(a, b, c, d)
    assert res.pvalue == pytest.approx(_fisher_by_enumeration(a, b, c, d), rel=1e-9, abs=1e-12)
    assert 0.0 <= res.pvalue <= 1.0
    # Swapping the two groups is the same test.
    assert fisher_exact(c, d, a, b).pvalue == pytest.approx(res.pvalue, rel=1e-12)


def test_fisher_errors() -> None:
    with pytest.raises(GraphNIAHError, match="all zeros"):
        fisher_exact(0, 0, 0, 0)
    with pytest.raises(GraphNIAHError, match="non-negative"):
        fisher_exact(1, -1, 2, 3)


# --------------------------------------------------------------------------------------------
# χ², Holm and the pairwise comparison of Table 20
# --------------------------------------------------------------------------------------------

# Table 27: correct answers out of 100 for books, code, disjoint-component, essays, wikipedia.
DISTRACTORS = ["books", "code", "disjoint-component", "essays", "wikipedia"]
TABLE_27 = {
    "GPT-5.6-Luna": [41, 41, 41, 46, 50],
    "Gemini-3.8-Flash": [83, 72, 77, 88, 73],
    "Qwen3.5-35B-A3B": [38, 42, 40, 42, 46],
}
# Table 20: (difference in pp, Holm-adjusted Fisher p) for the ten pairs, then the χ² p-value.
TABLE_20 = {
    "GPT-5.6-Luna": (
        [("+0.00", "1.00"), ("+0.00", "1.00"), ("+5.00", "1.00"), ("+9.00", "1.00"), ("+0.00", "1.00"),
         ("+5.00", "1.00"), ("+9.00", "1.00"), ("+5.00", "1.00"), ("+9.00", "1.00"), ("+4.00", "1.00")],
        "0.61",
    ),
    "Gemini-3.8-Flash": (
        [("-11.00", "0.63"), ("-6.00", "1.00"), ("+5.00", "1.00"), ("-10.00", "0.74"), ("+5.00", "1.00"),
         ("+16.00", "0.07"), ("+1.00", "1.00"), ("+11.00", "0.49"), ("-4.00", "1.00"), ("-15.00", "0.11")],
        "0.03",
    ),
    "Qwen3.5-35B-A3B": (
        [("+4.00", "1.00"), ("+2.00", "1.00"), ("+4.00", "1.00"), ("+8.00", "1.00"), ("-2.00", "1.00"),
         ("+0.00", "1.00"), ("+4.00", "1.00"), ("+2.00", "1.00"), ("+6.00", "1.00"), ("+4.00", "1.00")],
        "0.84",
    ),
}


@pytest.mark.parametrize("model", sorted(TABLE_27))
def test_pairwise_fisher_holm_reproduces_table_20(model: str) -> None:
    groups = [(name, k, 100) for name, k in zip(DISTRACTORS, TABLE_27[model], strict=True)]
    comparisons = pairwise_fisher_holm(groups)
    printed_pairs, _ = TABLE_20[model]
    got = [(f"{100 * c.difference:+.2f}", format_pvalue(c.pvalue_holm)) for c in comparisons]
    assert got == printed_pairs
    assert [(c.first, c.second) for c in comparisons][:4] == [("books", other) for other in DISTRACTORS[1:]]
    assert all(c.pvalue_holm >= c.pvalue for c in comparisons)


@pytest.mark.parametrize("model", sorted(TABLE_27))
def test_chi2_reproduces_table_20(model: str) -> None:
    table = [[k, 100 - k] for k in TABLE_27[model]]
    res = chi2_test(table)
    assert format_pvalue(res.pvalue) == TABLE_20[model][1]
    assert (res.dof, res.n) == (4, 500)
    # Orientation does not matter.
    assert chi2_test(np.array(table).T).pvalue == pytest.approx(res.pvalue)


def test_paper_chi2_is_pearson_not_likelihood_ratio() -> None:
    table = [[k, 100 - k] for k in TABLE_27["Gemini-3.8-Flash"]]
    g_test = sp.chi2_contingency(table, lambda_="log-likelihood").pvalue
    assert format_pvalue(g_test) != "0.03" == format_pvalue(chi2_test(table).pvalue)


def test_paper_pairwise_tests_are_fisher_not_chi2() -> None:
    """Table 22's p-values are Fisher's: a 2×2 χ² (with or without Yates) prints other values."""
    (k1, n1), (k2, n2), printed = TABLE_22[0]
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    assert format_pvalue(chi2_test(table).pvalue) != printed
    assert format_pvalue(chi2_test(table, correction=True).pvalue) != printed


@FAST
@given(
    shape=st.tuples(st.integers(2, 5), st.integers(2, 4)),
    data=st.data(),
)
def test_chi2_matches_statsmodels(shape: tuple[int, int], data: st.DataObject) -> None:
    rows, cols = shape
    table = np.array(
        data.draw(st.lists(st.lists(st.integers(1, 200), min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    )
    res = chi2_test(table)
    ref = Table(table).test_nominal_association()
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-12)
    assert res.dof == ref.df == (rows - 1) * (cols - 1)


def test_chi2_correction_only_on_one_dof() -> None:
    two_by_two = [[30, 20], [18, 32]]
    plain, yates = chi2_test(two_by_two), chi2_test(two_by_two, correction=True)
    assert yates.pvalue > plain.pvalue
    two_by_three = [[30, 20, 5], [18, 32, 9]]
    assert chi2_test(two_by_three, correction=True).pvalue == chi2_test(two_by_three).pvalue


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ([[0, 100], [0, 100], [0, 100]], "sums to zero"),
        ([[1, 2, 3]], "at least 2 rows"),
        ([[1.5, 2], [3, 4]], "integer"),
        ([[-1, 2], [3, 4]], "non-negative"),
        ([[1, 2], [3]], "rectangular"),
    ],
)
def test_chi2_errors(table: object, message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        chi2_test(table)  # type: ignore[arg-type]


def _multipletests_holm(p: list[float]) -> np.ndarray:
    """statsmodels' Holm-adjusted p-values. Its ``multipletests`` runs ``gc.collect()`` on every
    call, which costs tens of ms alone and seconds in a test worker's large heap; the collection
    changes no value, so it is skipped here."""
    with mock.patch.object(gc, "collect", lambda *args: 0):
        return np.asarray(multipletests(p, method="holm")[1])


@settings(max_examples=40, deadline=None)
@given(p=st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_matches_statsmodels(p: list[float]) -> None:
    got = holm(p)
    ref = _multipletests_holm(p)
    assert got == pytest.approx(tuple(ref), abs=1e-12)
    # Adjusted values keep the order of the raw ones and never fall below them.
    order = np.argsort(p, kind="stable")
    assert all(np.diff(np.asarray(got)[order]) >= 0)
    assert all(a >= r for a, r in zip(got, p, strict=True))


def test_holm_small_cases() -> None:
    assert holm([]) == ()
    assert holm([0.01, 0.04, 0.03]) == pytest.approx((0.03, 0.06, 0.06))
    assert holm([0.5, 0.5]) == (1.0, 1.0)
    with pytest.raises(GraphNIAHError, match=r"\[0, 1\]"):
        holm([0.2, 1.2])
    with pytest.raises(GraphNIAHError, match="flat"):
        holm([[0.1, 0.2]])


def test_pairwise_errors() -> None:
    with pytest.raises(GraphNIAHError, match="distinct"):
        pairwise_fisher_holm([("a", 1, 2), ("a", 1, 3)])
    with pytest.raises(GraphNIAHError, match="total > 0"):
        pairwise_fisher_holm([("a", 1, 2), ("b", 0, 0)])
    assert pairwise_fisher_holm([("a", 1, 2)]) == ()


# --------------------------------------------------------------------------------------------
# Exact McNemar
# --------------------------------------------------------------------------------------------

# Tables 21 and 17: examples that became correct (+) and wrong (-), and the printed p-value.
PAPER_MCNEMAR = [
    (3, 2, "1.00"), (10, 0, "<0.01"), (10, 1, "0.01"),  # GPT-5.6-Luna, Table 21
    (12, 8, "0.50"), (7, 12, "0.36"), (2, 11, "0.02"),  # Gemini-3.8-Flash, Table 21
    (3, 4, "1.00"), (4, 4, "1.00"), (5, 4, "1.00"),  # Qwen3.5-35B-A3B, Table 21
    (0, 54, "<0.01"), (3, 3, "1.00"), (0, 57, "<0.01"),  # Table 17, none-of-these option
]


@pytest.mark.parametrize(("gained", "lost", "printed"), PAPER_MCNEMAR)
def test_mcnemar_reproduces_paper(gained: int, lost: int, printed: str) -> None:
    res = mcnemar_exact(gained, lost)
    assert format_pvalue(res.pvalue) == printed
    assert res.n == gained + lost


@FAST
@given(b=st.integers(0, 300), c=st.integers(0, 300), a=st.integers(0, 50), d=st.integers(0, 50))
def test_mcnemar_matches_statsmodels(b: int, c: int, a: int, d: int) -> None:
    res = mcnemar_exact(b, c)
    ref = mcnemar([[a, b], [c, d]], exact=True)
    assert res.pvalue == pytest.approx(min(1.0, ref.pvalue), rel=1e-9, abs=1e-300)
    assert res.statistic == ref.statistic
    assert mcnemar_exact(c, b).pvalue == pytest.approx(res.pvalue, rel=1e-12)


def test_mcnemar_edges() -> None:
    assert mcnemar_exact(0, 0).pvalue == 1.0
    assert mcnemar_exact(5, 0).pvalue == pytest.approx(2 / 2**5)
    with pytest.raises(GraphNIAHError, match="became wrong"):
        mcnemar_exact(1, -2)


# --------------------------------------------------------------------------------------------
# Wilcoxon signed-rank
# --------------------------------------------------------------------------------------------


def test_wilcoxon_exact_small_case() -> None:
    # All five differences positive: W- = 0, and P(W- = 0) = 1/32 under the null, two-sided 2/32.
    res = wilcoxon_signed_rank([10, 20, 30, 40, 50], [11, 22, 33, 44, 55])
    assert (res.statistic, res.pvalue, res.n) == (0.0, 2 / 32, 5)


@FAST
@given(
    d=st.lists(st.integers(-10**6, 10**6).filter(lambda v: v != 0), min_size=1, max_size=80, unique_by=abs),
    base=st.integers(0, 10_000),
)
def test_wilcoxon_matches_scipy_default_without_ties(d: list[int], base: int) -> None:
    x = np.full(len(d), base, dtype=float)
    y = x + np.asarray(d, dtype=float)
    res = wilcoxon_signed_rank(x, y)
    ref = sp.wilcoxon(y - x)  # scipy's automatic choice: exact up to 50 pairs, normal above
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


@FAST
@given(x=st.lists(st.integers(0, 20), min_size=2, max_size=120), data=st.data())
def test_wilcoxon_with_zeros_and_ties_is_normal_approximation(x: list[int], data: st.DataObject) -> None:
    y = data.draw(st.lists(st.integers(0, 20), min_size=len(x), max_size=len(x)))
    d = np.asarray(y) - np.asarray(x)
    nonzero = d[d != 0]
    if nonzero.size == 0:
        with pytest.raises(GraphNIAHError, match=r"all .* paired differences are zero"):
            wilcoxon_signed_rank(x, y)
        return
    res = wilcoxon_signed_rank(x, y)
    exact = nonzero.size <= 50 and np.unique(np.abs(nonzero)).size == nonzero.size
    ref = sp.wilcoxon(nonzero, method="exact" if exact else "asymptotic", correction=False)
    assert res.n == nonzero.size
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(min(1.0, ref.pvalue), rel=1e-9)
    # Zero differences are dropped, so adding more of them changes nothing.
    padded = wilcoxon_signed_rank(list(x) + [7, 7, 7], list(y) + [7, 7, 7])
    assert padded == res


def test_wilcoxon_large_shift_is_significant_and_symmetric() -> None:
    rng = np.random.default_rng(7)
    before = rng.normal(600, 300, size=100).round()
    after = before - 300 + rng.normal(0, 50, size=100).round()
    res = wilcoxon_signed_rank(before, after)
    assert format_pvalue(res.pvalue) == "<0.01"
    assert wilcoxon_signed_rank(after, before).pvalue == pytest.approx(res.pvalue)


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        ([1, 2, 3], [1, 2], "equal length"),
        ([1, 2, np.nan], [1, 2, 3], "NaN"),
        ([1, 2, 3], [1, 2, 3], "all 3 paired differences are zero"),
    ],
)
def test_wilcoxon_errors(x: list[float], y: list[float], message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        wilcoxon_signed_rank(x, y)


# --------------------------------------------------------------------------------------------
# p-value formatting and counting outcomes
# --------------------------------------------------------------------------------------------


def test_format_pvalue() -> None:
    assert [format_pvalue(p) for p in (0.0, 0.00999, 0.01, 0.0117, 0.4858, 0.996, 1.0)] == [
        "<0.01", "<0.01", "0.01", "0.01", "0.49", "1.00", "1.00",
    ]  # fmt: skip
    assert format_pvalue(0.0004, digits=3) == "<0.001"
    with pytest.raises(GraphNIAHError):
        format_pvalue(1.5)


def test_binomial_sum_tails_against_enumeration() -> None:
    """Every outcome of five guesses (three at 1/2, two at 1/4) enumerated with exact fractions."""
    import itertools

    from graphniah.stats import binomial_sum_tail, binomial_sum_tails

    rates = [Fraction(1, 2)] * 3 + [Fraction(1, 4)] * 2
    exact = [Fraction(0)] * 6
    for hits in itertools.product((0, 1), repeat=5):
        prob = Fraction(1)
        for h, r in zip(hits, rates, strict=True):
            prob *= r if h else 1 - r
        for k in range(sum(hits) + 1):
            exact[k] += prob
    tails = binomial_sum_tails([(3, Fraction(1, 2)), (2, Fraction(1, 4))])
    assert tails.tolist() == pytest.approx([float(x) for x in exact], rel=1e-12)
    assert binomial_sum_tail([(3, Fraction(1, 2)), (2, Fraction(1, 4))], 5) == pytest.approx(float(exact[5]))
    assert binomial_sum_tail([(3, Fraction(1, 2))], 0) == 1.0 and binomial_sum_tail([(3, Fraction(1, 2))], 4) == 0.0
    assert exact[5] == Fraction(1, 8) * Fraction(1, 16)


def test_wilcoxon_one_sided_is_half_the_two_sided_in_the_observed_direction() -> None:
    x = [0.0] * 8
    y = [0.5, 1.5, 2.5, -0.25, 3.5, 4.5, 5.5, 6.5]  # distinct absolute values: the exact distribution
    two = wilcoxon_signed_rank(x, y).pvalue
    one = wilcoxon_signed_rank(x, y, alternative="greater").pvalue
    # W+ = 35 of 36: the one-sided tail counts the sign patterns with W+ >= 35, i.e. W- in {0, 1}: 2 of 256
    assert one == pytest.approx(2 / 256) and two == pytest.approx(2 * one)
