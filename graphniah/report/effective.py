"""Effective depth and effective component size (beyond the paper).

RULER's "effective context length" is the longest context at which a model still performs above
a stated threshold. The same idea applied to GraphNIAH's two complexity knobs gives, per model:

* the **effective depth**: the largest question depth k such that, at that depth and at every
  smaller tested depth, the lower end of the Wilson interval of the model's accuracy is above the
  threshold;
* the **effective size**: the same over component sizes (or size ranges, when sizes were drawn at
  random and take many values).

Using the interval's lower end instead of the point estimate means a model is credited with a
depth only when the data rule out chance-level-plus-margin performance there, so a handful of lucky
answers at a deep level cannot inflate it. "Stays above" means the passing levels must form a
prefix: a model that fails at depth 8 but passes at 16 (noise, or a quirk of the examples) gets
effective depth 4, and the report shows the first failing level next to it, so the effective value
is bracketed: it is at least the effective level and below the first failing one. Levels at which
the model has no answers are skipped (a dash in the tables), not counted as failures.

The default threshold is the random baseline of the level plus 25 percentage points; a fixed
accuracy can be given instead (``ReportConfig.threshold``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.report.model import Cell, CellValue, ReportTable, pct
from graphniah.report.tables import ReportContext, size_bins
from graphniah.stats import Proportion

__all__ = ["EffectiveScale", "LevelCheck", "effective_scales", "effective_table"]

_MAX_DISTINCT_SIZES = 8


@dataclass(frozen=True, slots=True)
class LevelCheck:
    """One tested level: its accuracy (None if the model has no answers there) against the threshold."""

    label: str
    upper: int
    accuracy: Proportion | None
    threshold: float

    @property
    def passes(self) -> bool:
        return self.accuracy is not None and self.accuracy.interval.low > self.threshold


@dataclass(frozen=True, slots=True)
class EffectiveScale:
    """A model's effective depth or size: the last level of the passing prefix and the first failure."""

    row: str
    variable: str  # "depth" | "component_size"
    effective: LevelCheck | None
    first_below: LevelCheck | None
    levels: tuple[LevelCheck, ...]


def _levels(ctx: ReportContext, variable: str) -> tuple[npt.NDArray[np.integer], tuple[str, ...], tuple[int, ...]]:
    """Level code per outcome row, the level labels and each level's upper value (size ranges when sizes vary a lot)."""
    o = ctx.data.outcomes
    x = o.depth if variable == "depth" else o.component_size
    distinct = np.unique(x)
    if variable == "component_size" and distinct.size > _MAX_DISTINCT_SIZES:
        return size_bins(x)
    codes = np.searchsorted(distinct, x)
    return codes, tuple(map(str, distinct.tolist())), tuple(int(v) for v in distinct.tolist())


def effective_scales(ctx: ReportContext, variable: str) -> list[EffectiveScale]:
    """Effective depth (``variable="depth"``) or size (``"component_size"``) of every row."""
    d = ctx.data
    codes, labels, uppers = _levels(ctx, variable)
    L = len(labels)
    everything = np.ones(len(d.outcomes), dtype=bool)
    baselines = ctx.baselines(everything, codes, L)
    out = []
    for r, row in enumerate(d.row_labels):
        checks = []
        for c in range(L):
            m = (d.row == r) & (codes == c)
            p = ctx.proportion(d.outcomes.correct[m].sum(), m.sum()) if m.any() else None
            checks.append(LevelCheck(labels[c], uppers[c], p, ctx.cfg.threshold_for(baselines[c])))
        effective = first_below = None
        for chk in checks:
            if chk.accuracy is None:
                continue
            if not chk.passes:
                first_below = chk
                break
            effective = chk
        out.append(EffectiveScale(row, variable, effective, first_below, tuple(checks)))
    return out


def _acc(chk: LevelCheck | None) -> str:
    if chk is None or chk.accuracy is None:
        return "–"
    p = chk.accuracy
    return f"{pct(p.estimate)} [{pct(p.interval.low)}, {pct(p.interval.high)}]"


def effective_table(ctx: ReportContext, depth: list[EffectiveScale], size: list[EffectiveScale]) -> ReportTable:
    """Effective depth and size of every model, each with the first level below the threshold."""
    key, title = "effective", "Effective question depth and component size"
    header = ("Model", "Effective depth", "First depth below", "Accuracy at effective depth",
              "Effective size", "First size below", "Accuracy at effective size")
    rows = []
    values = []
    for dep, siz in zip(depth, size, strict=True):
        cells = [Cell(dep.row)]
        for scale in (dep, siz):
            eff = scale.effective.label if scale.effective else "none"
            below = scale.first_below.label if scale.first_below else "none (all pass)"
            cells += [Cell(eff), Cell(below), Cell(_acc(scale.effective))]
            acc = scale.effective.accuracy if scale.effective else None
            values.append(CellValue(
                key, dep.row, f"effective {scale.variable}", "effective", acc.k if acc else None, acc.n if acc else None,
                float(scale.effective.upper) if scale.effective else None,
                acc.interval.low if acc else None, acc.interval.high if acc else None,
            ))
            values.append(CellValue(key, dep.row, f"first {scale.variable} below", "first_below", None, None,
                                    float(scale.first_below.upper) if scale.first_below else None))
        rows.append(tuple(cells))
    thresholds = sorted({round(c.threshold, 6) for s in depth + size for c in s.levels})
    caption = (
        f"Effective depth (size): the largest question depth (component size) such that at it and at every smaller tested "
        f"value the lower end of the {100 * ctx.cfg.confidence:g}% Wilson interval of the model's accuracy (all tasks pooled) "
        f"is above the threshold, {ctx.cfg.describe_threshold()} "
        f"({', '.join(pct(t) + '%' for t in thresholds)}). First below: the first tested value where it is not, so the "
        "effective value lies between the two; 'none' when the smallest tested value already fails. Values without answers "
        "are skipped. Component sizes drawn at random are grouped into ranges."
    )
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values))
