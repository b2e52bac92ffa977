"""Tests for graphniah.stats: the paper's printed numbers, statsmodels/scipy, and edge cases.

Every Wilson interval printed in appendix E of the method paper (Tables 5-28, 630 cells) is
transcribed in ``tests/data/paper_wilson_intervals.csv`` (table, row, column, k, n, where n came
from, printed %, low, high): n comes from the table's #Examples row, caption or footnote, and k is
the integer with k/n = printed %. Table 18's Wilcoxon p-values cannot be recomputed
(the paper prints only means and medians), so Wilcoxon is checked against scipy only.
"""

from __future__ import annotations

import csv
import gc
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sp
from statsmodels.stats.contingency_tables import Table, mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from graphniah.errors import GraphNIAHError
from graphniah.stats import (
    PAPER_TASKS,
    PAPER_Z,
    CountingAnswers,
    Interval,
    MultipleChoiceAnswers,
    YesNoAnswers,
    chi2_test,
    counting_outcomes,
    fisher_exact,
    format_pvalue,
    holm,
    mcnemar_exact,
    mixture_baseline,
    pairwise_fisher_holm,
    proportion,
    random_baseline,
    uniform_mixture_baseline,
    wilcoxon_signed_rank,
    wilson_interval,
)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pct(x: float) -> str:
    return f"{100 * x:.2f}"


# --------------------------------------------------------------------------------------------
# Wilson intervals against the paper
# --------------------------------------------------------------------------------------------

# Every 95% interval printed in Tables 5-28, one row per cell in the paper's order: the row label
# (model, and YES/NO label or task where the table splits rows), the column, k and n, where n came
# from (the table's #Examples row, its caption, or a † footnote), and the printed %, low and high.
# k is the only integer whose k/n prints as the printed %; tests/data/README.md says how it was made.
PAPER_CSV = Path(__file__).resolve().parent / "data" / "paper_wilson_intervals.csv"
PAPER = Path(__file__).resolve().parent.parent.parent / "shared" / "seeds" / "graphniah-paper.txt"
PAPER_TABLES = (*range(5, 18), 19, *range(23, 29))  # 18 and 20-22 print p-values, no intervals
N_PAPER_INTERVALS = 630


@dataclass(frozen=True)
class PrintedInterval:
    table: int
    row: str
    column: str
    k: int
    n: int
    n_source: str
    pct: str
    low: str
    high: str


def _load_paper_intervals() -> tuple[PrintedInterval, ...]:
    with PAPER_CSV.open(newline="", encoding="utf-8") as f:
        return tuple(
            PrintedInterval(int(r["table"]), r["row"], r["column"], int(r["k"]), int(r["n"]), r["n_source"],
                            r["printed_pct"], r["printed_low"], r["printed_high"])
            for r in csv.DictReader(f)
        )


PAPER_INTERVALS = _load_paper_intervals()

# The (k, n) of the cells where the exact 97.5% normal quantile rounds differently from the printed
# interval (ten cells: (50, 50) is printed twice, in Table 13), each by 0.01 percentage points; the
# rounded z = 1.96 reproduces them all, which is how PAPER_Z was determined.
Z_SENSITIVE = {(23, 40), (24, 31), (7, 32), (25, 32), (6, 30), (13, 17), (50, 50), (10, 35), (21, 45)}


def test_paper_interval_file_holds_every_printed_cell_once() -> None:
    assert len(PAPER_INTERVALS) == N_PAPER_INTERVALS
    assert len({(c.table, c.row, c.column) for c in PAPER_INTERVALS}) == N_PAPER_INTERVALS
    assert sorted({c.table for c in PAPER_INTERVALS}) == list(PAPER_TABLES)
    assert {c.n_source for c in PAPER_INTERVALS} == {"#Examples", "caption", "footnote"}
    assert len({(c.k, c.n) for c in PAPER_INTERVALS}) > 300


@pytest.mark.parametrize("table", PAPER_TABLES)
def test_wilson_reproduces_every_printed_interval(table: int) -> None:
    """Each cell: k/n prints as the printed % (so k and n are right), and the Wilson interval at
    z = 1.96 prints as the printed bounds."""
    cells = [c for c in PAPER_INTERVALS if c.table == table]
    assert cells
    wrong = []
    for c in cells:
        p = proportion(c.k, c.n, z=PAPER_Z)
        got = (pct(p.estimate), pct(p.interval.low), pct(p.interval.high))
        if got != (c.pct, c.low, c.high):
            wrong.append((c.row, c.column, c.k, c.n, got, (c.pct, c.low, c.high)))
    assert not wrong, f"Table {table}: {wrong}"


def test_paper_used_rounded_z() -> None:
    """With the exact quantile exactly the ten Z_SENSITIVE cells disagree with the print; with 1.96 none."""
    disagree = []
    for c in PAPER_INTERVALS:
        lo, hi = wilson_interval(c.k, c.n, 0.95)
        if (pct(lo), pct(hi)) != (c.low, c.high):
            disagree.append((c.k, c.n))
    assert len(disagree) == 10
    assert set(disagree) == Z_SENSITIVE


def test_paper_interval_file_is_a_complete_transcription() -> None:
    """Against the paper itself (beside the repository, never committed): the intervals of Tables
    5-28, in the order printed, are exactly the file's rows (printed %, low, high)."""
    if not PAPER.is_file():
        pytest.skip(f"paper text not found at {PAPER}")
    blocks = re.split(r"\n\s*\n", PAPER.read_text(encoding="utf-8"))
    cell = re.compile(r"(\d+\.\d\d)†?\[(\d+\.\d\d), (\d+\.\d\d)\]")
    printed = []
    for i, block in enumerate(blocks):
        caption = re.match(r"\s*Table (\d+):", block)
        if caption and 5 <= int(caption.group(1)) <= 28:
            printed += [(int(caption.group(1)), *m.groups()) for m in cell.finditer(blocks[i - 1])]
    assert len(printed) == N_PAPER_INTERVALS
    assert printed == [(c.table, c.pct, c.low, c.high) for c in PAPER_INTERVALS]


# --------------------------------------------------------------------------------------------
# Wilson intervals against statsmodels and as a formula
# --------------------------------------------------------------------------------------------


@st.composite
def k_and_n(draw: st.DrawFn, max_n: int = 5000) -> tuple[int, int]:
    n = draw(st.integers(1, max_n))
    return draw(st.integers(0, n)), n


@FAST
@given(kn=k_and_n(), confidence=st.floats(0.5, 0.999))
def test_wilson_matches_statsmodels(kn: tuple[int, int], confidence: float) -> None:
    k, n = kn
    low, high = wilson_interval(k, n, confidence)
    ref_low, ref_high = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert low == pytest.approx(ref_low, abs=1e-10)
    assert high == pytest.approx(ref_high, abs=1e-10)


@FAST
@given(kn=k_and_n())
def test_wilson_with_paper_z_matches_statsmodels_at_that_level(kn: tuple[int, int]) -> None:
    k, n = kn
    alpha = 2 * sp.norm.sf(PAPER_Z)
    ref = proportion_confint(k, n, alpha=alpha, method="wilson")
    got = wilson_interval(k, n, z=PAPER_Z)
    assert tuple(got) == pytest.approx(ref, abs=1e-10)


@FAST
@given(kn=k_and_n())
def test_wilson_properties(kn: tuple[int, int]) -> None:
    k, n = kn
    iv = wilson_interval(k, n)
    # The score interval always contains the point estimate and stays inside [0, 1].
    assert 0.0 <= iv.low <= k / n <= iv.high <= 1.0
    # Swapping successes and failures mirrors the interval.
    mirror = wilson_interval(n - k, n)
    assert iv.low == pytest.approx(1 - mirror.high, abs=1e-12)
    assert iv.high == pytest.approx(1 - mirror.low, abs=1e-12)
    # A higher confidence gives a wider interval.
    wide = wilson_interval(k, n, 0.99)
    assert wide.low <= iv.low and wide.high >= iv.high


def test_wilson_edges_are_exact() -> None:
    for n in (1, 2, 7, 34, 1000, 10**6):
        assert wilson_interval(0, n).low == 0.0
        assert wilson_interval(n, n).high == 1.0
        assert wilson_interval(0, n).high > 0.0
        assert wilson_interval(n, n).low < 1.0
    # n = 1: the closed form (1 + z²)^-1 for the upper end at k = 0.
    z = sp.norm.ppf(0.975)
    assert wilson_interval(0, 1).high == pytest.approx(z * z / (1 + z * z), rel=1e-12)


def test_wilson_interval_unpacks_and_is_immutable() -> None:
    iv = wilson_interval(32, 34, z=PAPER_Z)
    low, high = iv
    assert (low, high) == (iv.low, iv.high)
    assert iv.contains(32 / 34) and not iv.contains(0.5)
    with pytest.raises(AttributeError):
        iv.low = 0.0  # type: ignore[misc]
    assert isinstance(iv, Interval)


@pytest.mark.parametrize(
    ("k", "n", "kwargs", "message"),
    [
        (0, 0, {}, "n=0"),
        (5, 4, {}, "exceed"),
        (-1, 4, {}, "non-negative"),
        (1.5, 4, {}, "integer"),
        (True, 4, {}, "boolean"),
        (1, 4, {"confidence": 1.0}, "between 0 and 1"),
        (1, 4, {"confidence": 0.0}, "between 0 and 1"),
        (1, 4, {"z": -1.0}, "positive"),
        (1, 4, {"z": math.nan}, "positive"),
    ],
)
def test_wilson_rejects_bad_input(k: object, n: object, kwargs: dict, message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        wilson_interval(k, n, **kwargs)  # type: ignore[arg-type]


def test_wilson_accepts_numpy_integers() -> None:
    assert wilson_interval(np.int64(3), np.int32(10)) == wilson_interval(3, 10)


# --------------------------------------------------------------------------------------------
# Random-guessing baselines (appendix D)
# --------------------------------------------------------------------------------------------


def test_single_task_baselines_match_appendix_d() -> None:
    assert random_baseline(YesNoAnswers()) == Fraction(1, 2)
    assert random_baseline(MultipleChoiceAnswers()) == Fraction(1, 4)
    assert CountingAnswers().answers == range(99, 250)
    assert random_baseline(CountingAnswers()) == Fraction(1, 151)
    # The "Random guessing" row of Table 26: YES/NO, multiple choice, counting, overall.
    printed = ["50.00", "25.00", "0.66", "25.22"]
    got = [random_baseline(t) for t in PAPER_TASKS] + [uniform_mixture_baseline()]
    assert [pct(float(b)) for b in got] == printed


def test_mixture_is_equation_8_exactly() -> None:
    expected = Fraction(1, 3) * (Fraction(1, 2) + Fraction(1, 4) + Fraction(1, 151))
    assert uniform_mixture_baseline() == expected == Fraction(457, 1812)
    assert mixture_baseline({t: Fraction(1, 3) for t in PAPER_TASKS}) == expected
    # Pooled over the task experiment's equal counts (Table 26 Overall) it is the same 25.22%.
    assert mixture_baseline({t: 100 for t in PAPER_TASKS}) == expected


def test_none_option_gives_one_fifth() -> None:
    before = random_baseline(MultipleChoiceAnswers(options=4))
    after = random_baseline(MultipleChoiceAnswers(options=4, none_option=True))
    assert after == Fraction(1, 5)
    # Table 17's random-guessing row: 25.00, 20.00, change -5.00.
    assert (pct(float(before)), pct(float(after)), f"{100 * float(after - before):.2f}") == (
        "25.00",
        "20.00",
        "-5.00",
    )


def test_baselines_follow_parameters() -> None:
    assert random_baseline(CountingAnswers(10, 20)) == Fraction(1, 11)
    assert CountingAnswers(10, 20).answers == range(9, 20)
    assert random_baseline(CountingAnswers(5, 5)) == 1
    assert random_baseline(MultipleChoiceAnswers(options=6, none_option=True)) == Fraction(1, 7)
    # Unequal task counts weight the per-task baselines by their counts.
    weights = {YesNoAnswers(): 157, MultipleChoiceAnswers(): 166, CountingAnswers(): 177}
    assert mixture_baseline(weights) == Fraction(157, 500) / 2 + Fraction(166, 500) / 4 + Fraction(177, 500) / 151
    # A pairs list allows the same task twice (two parametrisations that compare equal).
    assert mixture_baseline([(YesNoAnswers(), 1), (YesNoAnswers(), 3)]) == Fraction(1, 2)
    # Counting with a different size range changes the mixture.
    assert uniform_mixture_baseline((YesNoAnswers(), CountingAnswers(1, 1))) == Fraction(3, 4)


@FAST
@given(
    w=st.lists(st.integers(0, 1000), min_size=3, max_size=3).filter(lambda w: sum(w) > 0),
    scale=st.integers(1, 50),
)
def test_mixture_is_a_weighted_mean(w: list[int], scale: int) -> None:
    pairs = list(zip(PAPER_TASKS, w, strict=True))
    mix = mixture_baseline(pairs)
    assert mix == mixture_baseline([(t, scale * x) for t, x in pairs])
    assert Fraction(1, 151) <= mix <= Fraction(1, 2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mixture_baseline({YesNoAnswers(): 0.5}), "exact"),
        (lambda: mixture_baseline({YesNoAnswers(): -1, CountingAnswers(): 2}), "non-negative"),
        (lambda: mixture_baseline({YesNoAnswers(): 0}), "zero"),
        (lambda: mixture_baseline({}), "at least one"),
        (lambda: MultipleChoiceAnswers(options=1), "at least 2"),
        (lambda: CountingAnswers(250, 100), "min <= max"),
        (lambda: CountingAnswers(0, 10), "min <= max"),
        (lambda: random_baseline("counting"), "unknown"),  # type: ignore[arg-type]
    ],
)
def test_baseline_errors(call, message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        call()


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


def test_counting_outcomes_classify_each_answer() -> None:
    truth = [150, 150, 150, 150, 150, 150, 200, 99]
    predicted = [150, None, 165, 135, 134.9, float("nan"), 40, 110]
    out = counting_outcomes(predicted, truth)
    assert (out.n, out.exact, out.too_low, out.too_high, out.no_number) == (8, 1, 3, 2, 2)
    assert out.exact + out.too_low + out.too_high + out.no_number == out.n
    # Within 10% (inclusive, exact included): 150, 165 (+10%), 135 (-10%); 134.9 and 110 are not.
    assert out.within_tolerance == 3
    ratios = [1.0, 165 / 150, 135 / 150, 134.9 / 150, 40 / 200, 110 / 99]
    assert out.median_ratio == pytest.approx(float(np.median(ratios)))
    # A wider tolerance admits 110 for 99 (11.1% off) too.
    assert counting_outcomes(predicted, truth, tolerance=Fraction(1, 8)).within_tolerance == 5


def test_counting_outcomes_boundary_is_inclusive() -> None:
    # Answers exactly 10% above or below the truth are within 10%; one more is not.
    truth = np.arange(100, 251, 10)
    for predicted in (truth + truth // 10, truth - truth // 10):
        assert counting_outcomes(predicted, truth).within_tolerance == truth.size
    for predicted in (truth + truth // 10 + 1, truth - truth // 10 - 1):
        assert counting_outcomes(predicted, truth).within_tolerance == 0


@FAST
@given(
    pairs=st.lists(
        st.tuples(st.one_of(st.none(), st.integers(0, 600)), st.integers(99, 249)), min_size=1, max_size=200
    )
)
def test_counting_outcomes_partition(pairs: list[tuple[int | None, int]]) -> None:
    predicted, truth = zip(*pairs, strict=True)
    out = counting_outcomes(list(predicted), list(truth))
    assert out.exact + out.too_low + out.too_high + out.no_number == out.n == len(pairs)
    assert out.exact <= out.within_tolerance <= out.n - out.no_number
    numeric = [(p, t) for p, t in pairs if p is not None]
    if numeric:
        assert out.median_ratio == pytest.approx(float(np.median([p / t for p, t in numeric])))
    else:
        assert out.median_ratio is None


@pytest.mark.parametrize(
    ("predicted", "truth", "message"),
    [
        ([1, 2], [1], "one prediction per"),
        ([], [], "at least one"),
        ([5], [0], "positive integers"),
        ([5], [1.5], "positive integers"),
        ([float("inf")], [10], "infinite"),
    ],
)
def test_counting_outcomes_errors(predicted: list, truth: list, message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        counting_outcomes(predicted, truth)


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
