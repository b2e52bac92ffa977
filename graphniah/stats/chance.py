"""Exact random-guessing baselines (the method paper's appendix D): each task's answer set, the
accuracy of a uniform guess over it, and of a mixture of tasks, as exact fractions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

from graphniah.errors import GraphNIAHError

__all__ = ["PAPER_TASKS", "AnswerSpace", "CountingAnswers", "ListAnswers", "MultipleChoiceAnswers", "YesNoAnswers", "mixture_baseline",
           "random_baseline", "uniform_mixture_baseline"]


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

