"""graphniah.stats.chance: the exact random-guessing baselines of the method paper's appendix D."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphniah.errors import GraphNIAHError
from graphniah.stats import (
    PAPER_TASKS,
    CountingAnswers,
    MultipleChoiceAnswers,
    YesNoAnswers,
    mixture_baseline,
    random_baseline,
    uniform_mixture_baseline,
)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pct(x: float) -> str:
    return f"{100 * x:.2f}"


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


