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

**Base accuracy and effective context length.** A suite built with ``base: true`` holds, for every
example, a twin with the same components and no distractor text; a model's *base accuracy* is its
accuracy on those twins. For a suite that varies the context length L, two effective lengths are
given side by side, each naming its rule:

* **NoLiMa's rule**: the largest tested L such that at it and at every shorter tested L the model's
  accuracy is at least 85% of its base accuracy (compared exactly, as fractions of counts, so an
  accuracy of exactly 85% of the base passes);
* **RULER's rule**: the threshold rule above applied to L (a fixed accuracy, not one relative to the
  model's own base).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from graphniah.report.grid import ReportContext, size_bins
from graphniah.report.load import level_label
from graphniah.report.table import Cell, CellValue, ReportTable, pct
from graphniah.stats import Proportion

__all__ = [
    "NOLIMA_RATIO",
    "EffectiveLength",
    "EffectiveScale",
    "LengthCheck",
    "LevelCheck",
    "effective_length_table",
    "effective_lengths",
    "effective_scales",
    "effective_table",
    "nolima_length",
]

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
    if variable == "context_length":  # unpacked examples (no L) belong to no level
        lengths = np.nan_to_num(o.context_length, nan=-1).astype(np.int64)
        tested = np.unique(lengths[lengths >= 0])
        codes = np.where(lengths >= 0, np.searchsorted(tested, lengths), -1)
        return codes, tuple(level_label("context_length", v) for v in tested.tolist()), tuple(tested.tolist())
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


#: NoLiMa's effective length: a model's accuracy must stay at or above this share of its base accuracy.
NOLIMA_RATIO = Fraction(85, 100)


@dataclass(frozen=True, slots=True)
class LengthCheck:
    """One tested context length and the model's accuracy there (None when it has no answers there)."""

    label: str
    length: int
    accuracy: Proportion | None


def nolima_length(base: Proportion, levels: Sequence[LengthCheck], ratio: Fraction = NOLIMA_RATIO) -> LengthCheck | None:
    """NoLiMa's effective length: the longest level of the prefix (shortest first) whose accuracy is
    at least ``ratio`` times ``base``'s, compared as exact fractions; None when the shortest tested
    length already falls short. Levels without answers are skipped."""
    bar = ratio * Fraction(base.k, base.n)
    effective = None
    for level in sorted(levels, key=lambda c: c.length):
        if level.accuracy is None:
            continue
        if Fraction(level.accuracy.k, level.accuracy.n) < bar:
            break
        effective = level
    return effective


@dataclass(frozen=True, slots=True)
class EffectiveLength:
    """A model's base accuracy and, when the suite varies L, its effective lengths by both rules."""

    row: str
    base: Proportion | None
    nolima: LengthCheck | None
    ruler: LevelCheck | None
    levels: tuple[LengthCheck, ...]  # empty when the suite does not vary the context length


def effective_lengths(ctx: ReportContext) -> list[EffectiveLength] | None:
    """Every row's base accuracy and effective lengths; None for a suite without base twins."""
    d = ctx.data
    if d.base is None:
        return None
    base_row = ctx.run_row[d.base.run] if len(d.base) else np.zeros(0, dtype=np.int64)
    varies_length = d.variable == "context_length"
    ruler = {s.row: s.effective for s in effective_scales(ctx, "context_length")} if varies_length else {}
    codes, labels, lengths = _levels(ctx, "context_length") if varies_length else (np.zeros(0, dtype=np.int64), (), ())
    out = []
    for r, row in enumerate(d.row_labels):
        mb = base_row == r
        base = ctx.proportion(d.base.correct[mb].sum(), mb.sum()) if mb.any() else None
        levels = []
        for c, (label, length) in enumerate(zip(labels, lengths, strict=True)):
            m = (d.row == r) & (codes == c)
            levels.append(LengthCheck(label, length, ctx.proportion(d.outcomes.correct[m].sum(), m.sum()) if m.any() else None))
        nolima = nolima_length(base, levels) if base is not None and varies_length else None
        out.append(EffectiveLength(row, base, nolima, ruler.get(row), tuple(levels)))
    return out


def _interval(p: Proportion | None) -> str:
    return "–" if p is None else f"{pct(p.estimate)} [{pct(p.interval.low)}, {pct(p.interval.high)}]"


def _value(key: str, row: str, column: str, metric: str, p: Proportion | None, value: float | None = None) -> CellValue:
    return CellValue(key, row, column, metric, p.k if p else None, p.n if p else None,
                     value if value is not None else (p.estimate if p else None),
                     p.interval.low if p else None, p.interval.high if p else None)


def effective_length_table(ctx: ReportContext, lengths: list[EffectiveLength]) -> ReportTable:
    """Each model's base accuracy (no distractors) and, for a suite that varies L, its effective
    length by NoLiMa's rule beside RULER's, each with the accuracy there (Wilson intervals)."""
    key = "effective_length"
    varies = any(e.levels for e in lengths)
    conf = f"{100 * ctx.cfg.confidence:g}%"
    header: tuple[str, ...] = ("Model", f"Base accuracy (no distractors) [{conf} Wilson]")
    if varies:
        header += ("Effective length, NoLiMa rule (accuracy >= 85% of base)", "Accuracy at it",
                   f"Effective length, RULER rule (lower bound > {ctx.cfg.describe_threshold()})", "Accuracy at it")
    rows, values = [], []
    for e in lengths:
        cells = [Cell(e.row), Cell(_interval(e.base))]
        values.append(_value(key, e.row, "base accuracy", "accuracy", e.base))
        if varies:
            nl = e.nolima
            rl = e.ruler
            cells += [Cell(nl.label if nl else "none"), Cell(_interval(nl.accuracy if nl else None)),
                      Cell(rl.label if rl else "none"), Cell(_interval(rl.accuracy if rl else None))]
            values.append(_value(key, e.row, "effective length (NoLiMa rule)", "effective", nl.accuracy if nl else None,
                                 float(nl.length) if nl else None))
            values.append(_value(key, e.row, "effective length (RULER rule)", "effective", rl.accuracy if rl else None,
                                 float(rl.upper) if rl else None))
        rows.append(tuple(cells))
    caption = (
        "Base accuracy: each model's accuracy on the suite's no-distractor twins (the same components, no distractor "
        f"text), with its {conf} Wilson interval."
    )
    if varies:
        caption += (
            " Effective length by NoLiMa's rule: the largest tested context length L such that at it and at every shorter "
            "tested L the accuracy is at least 85% of the base accuracy ('none' when the shortest L falls short). By "
            f"RULER's rule: the same with the lower end of the accuracy's Wilson interval above a threshold that does not depend on the model's own base, "
            f"{ctx.cfg.describe_threshold()}. The accuracy at each effective length is shown with its interval."
        )
    return ReportTable(key, "Base accuracy and effective context length", caption, header, tuple(rows), tuple(values))
