"""graphniah.stats.counting: how counting answers miss the truth (the method paper's Table 15)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphniah.errors import GraphNIAHError
from graphniah.stats import counting_outcomes

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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


