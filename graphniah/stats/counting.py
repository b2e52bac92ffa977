"""How counting answers miss the truth (the method paper's Table 15): exact, too low, too high,
no number, and within a tolerance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from graphniah.errors import GraphNIAHError

__all__ = ["CountingOutcomes", "counting_outcomes"]


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

