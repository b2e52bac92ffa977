"""The settings of a report: interval confidence and quantile, the effective depth threshold, the counting tolerance."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["ReportConfig"]


@dataclass(frozen=True)
class ReportConfig:
    """Settings of a report.

    ``z`` is the normal quantile of the Wilson intervals (None: the exact quantile of
    ``confidence``; ``stats.PAPER_Z`` reproduces the paper's printed digits). The effective depth
    and size threshold is ``threshold`` when given (an accuracy in [0, 1]), else the random
    baseline of the cell plus ``threshold_margin``.
    """

    confidence: float = 0.95
    z: float | None = None
    threshold_margin: float = 0.25
    threshold: float | None = None
    counting_tolerance: Fraction = Fraction(1, 10)

    def threshold_for(self, baseline: Fraction | float | None) -> float:
        if self.threshold is not None:
            return float(self.threshold)
        return float(baseline or 0) + self.threshold_margin

    def describe_threshold(self) -> str:
        if self.threshold is not None:
            return f"accuracy {100 * self.threshold:.2f}%"
        return f"random baseline + {100 * self.threshold_margin:.0f} points"
