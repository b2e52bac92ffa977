"""The accuracy grid every table is cut from: the report's context, accuracies per row × column, random rows.

:class:`ReportContext` holds a suite's outcomes with the codes the tables group by and the random
baselines of appendix D; :func:`accuracy_grid` and :func:`grid` compute accuracies with Wilson
intervals per model (or other row) and value of the varied variable; :func:`grid_rows`,
:func:`examples_row` and the baseline row lay a grid out as table rows. The tables
(:mod:`graphniah.report.tables`), the list and evidence tables (:mod:`graphniah.report.listing`) and
the figures build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from graphniah.report.config import ReportConfig
from graphniah.report.load import SuiteData
from graphniah.report.table import Cell, CellValue, ExampleList, pct
from graphniah.stats import (
    AnswerSpace,
    CountingAnswers,
    ListAnswers,
    MultipleChoiceAnswers,
    Proportion,
    YesNoAnswers,
    mixture_baseline,
    proportion,
)

__all__ = ["DASH", "FIXED_SPACE_VARIABLES", "AccuracyGrid", "ReportContext", "accuracy_grid", "accuracy_text", "examples_row", "grid_rows", "size_bins", "tabulate"]

DASH = "–"
FIXED_SPACE_VARIABLES = ("task", "none_option")

# What "detects ±x" in a comparison cell means (graphniah.stats: exact power, every outcome enumerated).
class ReportContext:
    """Per-report derived arrays: example codes, answer sets, the ``graphniah show`` hint."""

    def __init__(self, data: SuiteData, config: ReportConfig):
        self.data = data
        self.cfg = config
        o = data.outcomes
        self.ex_ids, self.ex_code = np.unique(o.example_id.astype(str), return_inverse=True) if len(o) else (np.zeros(0, dtype=str), np.zeros(0, dtype=np.int64))
        sizes = [e.component_size for e in data.examples.values()]
        # The counting answers are component size - 1 over the range sizes are drawn from: the
        # suite manifest's, else the paper's [100, 250] widened to cover every size in the suite.
        lo, hi = data.size_range or (100, 250)
        self.counting = CountingAnswers(min([lo, *sizes]), max([hi, *sizes]))
        self.space_key = np.array([f"{t}:{c}" for t, c in zip(o.task.tolist(), o.n_choices.tolist(), strict=True)], dtype=object)
        self.show = f"graphniah show ID --examples {data.examples_path}"
        self.run_row = self._run_rows()

    def _run_rows(self) -> np.ndarray:
        d = self.data
        if d.variable == "reasoning_effort":
            return np.array([d.row_labels.index(r.model) for r in d.runs], dtype=np.int64)
        return np.arange(len(d.runs), dtype=np.int64)

    def space(self, key: str) -> AnswerSpace:
        task, choices = key.split(":")
        if task == "yesno":
            return YesNoAnswers()
        if task == "mc":
            return MultipleChoiceAnswers(options=int(choices))
        if task == "list":
            return ListAnswers(self.counting.min_component_size - 1)
        return self.counting

    def uniform_baseline(self, mask: np.ndarray) -> Fraction | None:
        """Task drawn uniformly among the answer sets present under ``mask`` (appendix D, eq. 8)."""
        keys = sorted(set(self.space_key[mask].tolist()))
        return mixture_baseline([(self.space(k), 1) for k in keys]) if keys else None

    def weighted_baseline(self, mask: np.ndarray) -> Fraction | None:
        """Answer sets fixed by the design: weigh each by its number of distinct examples."""
        if not mask.any():
            return None
        pairs = set(zip(self.ex_code[mask].tolist(), self.space_key[mask].tolist(), strict=True))
        counts: dict[str, int] = {}
        for _, k in pairs:
            counts[k] = counts.get(k, 0) + 1
        return mixture_baseline([(self.space(k), c) for k, c in sorted(counts.items())])

    def baselines(self, mask: np.ndarray, col: np.ndarray, n_cols: int) -> list[Fraction | None]:
        """The random-guessing row: one value per column and Overall (see the module docstring)."""
        if self.data.variable in FIXED_SPACE_VARIABLES:
            return [self.weighted_baseline(mask & (col == c)) for c in range(n_cols)] + [self.weighted_baseline(mask)]
        b = self.uniform_baseline(mask)
        return [b] * (n_cols + 1)

    def proportion(self, k: int, n: int) -> Proportion:
        return proportion(int(k), int(n), self.cfg.confidence, z=self.cfg.z)


def size_bins(sizes: np.ndarray) -> tuple[np.ndarray, tuple[str, ...], tuple[int, ...]]:
    """Component-size ranges for tables by size when sizes are drawn at random (Table 16).

    Sizes within the paper's [100, 250] get its ranges 100–149, 150–199, 200–250; other ranges are
    cut into three equal-width ranges; ranges that no size falls in are left out. Returns (range
    index per size, labels, upper ends).
    """
    if sizes.size == 0:
        return np.zeros(0, dtype=np.int64), (), ()
    lo, hi = int(sizes.min()), int(sizes.max())
    if lo >= 100 and hi <= 250:
        edges = [100, 150, 200, 251]
    else:
        step = max(1, -(-(hi - lo + 1) // 3))
        edges = [lo + i * step for i in range(3)] + [hi + 1]
        edges = sorted(set(edges))
    codes = np.searchsorted(np.asarray(edges[1:]), sizes, side="right")
    used = np.flatnonzero(np.bincount(codes, minlength=len(edges) - 1))  # ranges without any size are left out
    labels = tuple(f"{edges[i]}–{edges[i + 1] - 1}" for i in used)
    return np.searchsorted(used, codes).astype(np.int64), labels, tuple(edges[i + 1] - 1 for i in used)


# ------------------------------------------------------------------------------------------------
# Accuracy grids
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccuracyGrid:
    """Successes ``k`` and answered ``n`` per row × column, the last column pooling all (Overall).

    ``examples[c]`` is the number of distinct examples answered by some row in column c (the
    paper's #Examples); a row with fewer answers in a column is marked † and never bold.
    ``ids[(r, c)]`` are the example ids of the cell, split into successes and failures.
    """

    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    k: np.ndarray
    n: np.ndarray
    examples: np.ndarray
    baselines: tuple[Fraction | None, ...]
    ids: dict[tuple[int, int], tuple[tuple[str, ...], tuple[str, ...]]]

    def cell(self, ctx: ReportContext, r: int, c: int) -> Proportion | None:
        return ctx.proportion(self.k[r, c], self.n[r, c]) if self.n[r, c] else None


def tabulate(
    ctx: ReportContext,
    mask: np.ndarray,
    rows: np.ndarray,
    row_labels: Sequence[str],
    cols: np.ndarray,
    col_labels: Sequence[str],
    success: np.ndarray | None = None,
    baselines: Sequence[Fraction | None] | None = None,
) -> AccuracyGrid:
    """Accuracy with its Wilson interval per row code × column code of the outcomes under ``mask``
    (``success``: what counts as right, default correct answers), with an Overall column and the
    random baselines of each column."""
    o = ctx.data.outcomes
    succ = o.correct if success is None else success
    R, C = len(row_labels), len(col_labels)
    idx = np.flatnonzero(mask)
    r, c, s = rows[idx], cols[idx], succ[idx]
    k = np.zeros((R, C + 1), dtype=np.int64)
    n = np.zeros((R, C + 1), dtype=np.int64)
    for cc in (c, np.full_like(c, C)):
        flat = r * (C + 1) + cc
        k += np.bincount(flat, weights=s, minlength=R * (C + 1)).astype(np.int64).reshape(R, C + 1)
        n += np.bincount(flat, minlength=R * (C + 1)).reshape(R, C + 1)
    ex = ctx.ex_code[idx]
    examples = np.zeros(C + 1, dtype=np.int64)
    if idx.size:
        pairs = np.unique(c * (ex.max() + 1) + ex)
        examples[:C] = np.bincount(pairs // (ex.max() + 1), minlength=C)
        examples[C] = np.unique(ex).size
    ids: dict[tuple[int, int], tuple[tuple[str, ...], tuple[str, ...]]] = {}
    names = o.example_id[idx]
    for cc in (c, np.full_like(c, C)):
        flat = r * (C + 1) + cc
        order = np.lexsort((names, ~s.astype(bool), flat))
        fs, ss, ns = flat[order], s[order].astype(bool), names[order]
        bounds = np.flatnonzero(np.diff(fs)) + 1
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, fs.size], strict=True):
            if lo == hi:
                continue
            key = divmod(int(fs[lo]), C + 1)
            good = ss[lo:hi]
            ids[key] = (tuple(ns[lo:hi][good].tolist()), tuple(ns[lo:hi][~good].tolist()))
    if baselines is None:
        baselines = ctx.baselines(mask, cols, C)
    return AccuracyGrid(tuple(row_labels), tuple(col_labels) + ("Overall",), k, n, examples, tuple(baselines), ids)


def accuracy_text(p: Proportion, dagger: bool) -> str:
    lo, hi = p.interval
    return f"{pct(p.estimate)}{'†' if dagger else ''} [{pct(lo)}, {pct(hi)}]"


def grid_rows(
    ctx: ReportContext,
    grid: AccuracyGrid,
    key: str,
    title: str,
    *,
    row_parts: Sequence[tuple[str, ...]],
    bold: bool,
    metric: str = "accuracy",
    groups: tuple[str, str] = ("correct", "wrong"),
    skip_overall: bool = False,
) -> tuple[list[list[Cell]], list[CellValue], list[ExampleList]]:
    """Printed cells, tidy values and example lists of a grid's rows."""
    R, C1 = grid.n.shape
    cols = range(C1 - 1) if skip_overall else range(C1)
    best: dict[int, float] = {}
    if bold:
        for c in cols:
            full = [grid.k[r, c] / grid.n[r, c] for r in range(R) if grid.n[r, c] and grid.n[r, c] >= grid.examples[c]]
            if full:
                best[c] = max(full)
    rows: list[list[Cell]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    for r in range(R):
        cells = [Cell(p) for p in row_parts[r]]
        row_name = " | ".join(row_parts[r])
        for c in cols:
            p = grid.cell(ctx, r, c)
            if p is None:
                cells.append(Cell(DASH))
                values.append(CellValue(key, row_name, grid.col_labels[c], metric, 0, 0))
                continue
            anchor = f"{key}-r{r}-c{c}"
            dagger = grid.n[r, c] < grid.examples[c]
            is_best = c in best and not dagger and grid.k[r, c] / grid.n[r, c] == best[c]
            cells.append(Cell(accuracy_text(p, dagger), bold=is_best, link=anchor))
            values.append(CellValue(key, row_name, grid.col_labels[c], metric, p.k, p.n, p.estimate, p.interval.low, p.interval.high, link=anchor))
            good, bad = grid.ids.get((r, c), ((), ()))
            lists.append(ExampleList(anchor, f"{title} — {row_name}, {grid.col_labels[c]}", ((groups[0], good), (groups[1], bad))))
        rows.append(cells)
    return rows, values, lists


def examples_row(grid: AccuracyGrid, label: tuple[str, ...], skip_overall: bool = False) -> list[Cell]:
    ex = grid.examples[:-1] if skip_overall else grid.examples
    return [Cell(p) for p in label] + [Cell(str(int(v))) for v in ex]


def accuracy_grid(ctx: ReportContext, task: str | None = None) -> AccuracyGrid:
    """Accuracy per row × value of the varied variable (one task, or all)."""
    d = ctx.data
    mask = np.ones(len(d.outcomes), dtype=bool) if task is None else d.outcomes.task == task
    return tabulate(ctx, mask, d.row, d.row_labels, d.value, d.levels)
