"""The report's tables for the list task and for the evidence each answer needs.

==================================  ====================================================================
key                                 content
==================================  ====================================================================
``f1``                              mean F1 (%) of the list answers per model × value, bootstrap interval;
                                    the trivial baseline "List every paper" beside the models
``recall_by_distance``              recall (%) of the list answers per model × hops from the source
                                    (where a model's search stops); figure ``recall_by_distance``
``accuracy_by_hops``                accuracy (%) per model and task × ``hops_needed``
``accuracy_by_evidence_tokens``     accuracy (%) per model and task × ``evidence_tokens`` range
==================================  ====================================================================

**F1** is the mean over answered list examples of the per-example F1 of :mod:`graphniah.scoring`
(so precision counts duplicate and unknown lines against the answer); its interval is the
percentile bootstrap of :func:`graphniah.stats.bootstrap_mean`, drawn from the ``f1-bootstrap``
stream, cell after cell in table order. **Recall at distance h** pools the papers at shortest
distance h from the source (in the example's own component, :func:`graphniah.sampling.examples.
evidence.distances`) over a model's answered list examples: named papers over all of them, with
the Wilson interval of that count (papers of one example are not independent draws, so the
interval is narrower than the truth when a model tends to stop at one depth per example).

**The trivial baseline** lists every paper of the context except the source: recall 1 at every
distance, precision (component size − 1) / (papers in the context − 1), so F1 = 2p / (1 + p).

**Evidence** ranges double (``512–1,023``, ``1,024–2,047``, …) so that examples from a few hundred
to a million tokens share one axis; examples that did not record their evidence (upgraded from
examples format version 2) are left out of those two tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from graphniah.formats import TASK_LABELS, TASKS
from graphniah.report.grid import DASH, AccuracyGrid, ReportContext, examples_row, grid_rows, tabulate
from graphniah.report.table import Cell, CellValue, ReportTable, pct
from graphniah.scoring import recall_by_distance
from graphniah.seeds import DEFAULT_SEED, Stream, generator
from graphniah.stats import Mean, bootstrap_mean

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TRIVIAL", "evidence_tables", "list_tables", "recall_figure", "recall_grid", "trivial_f1"]

TRIVIAL = "List every paper"


def trivial_f1(component_size: int, nodes: int) -> float:
    """F1 of listing every paper of the context but the source (see the module docstring)."""
    p = (component_size - 1) / max(nodes - 1, component_size - 1)
    return 2 * p / (1 + p)


def _mean_text(m: Mean) -> str:
    return f"{pct(m.estimate)} [{pct(m.interval.low)}, {pct(m.interval.high)}]"


def _f1_table(ctx: ReportContext) -> ReportTable:
    d, o = ctx.data, ctx.data.outcomes
    lst = o.task == "list"
    key, title = "f1", f"F1 (%) of the list answers by {d.variable_title.lower()}"
    rng = generator(Stream.F1_BOOTSTRAP, DEFAULT_SEED)
    cols = [*range(len(d.levels)), None]  # None: Overall
    col_labels = [*d.levels, "Overall"]
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    for r, label in [*enumerate(d.row_labels), (None, TRIVIAL)]:
        cells = [Cell(label)]
        for c, col_label in zip(cols, col_labels, strict=True):
            m = lst if c is None else lst & (d.value == c)
            if r is None:  # the trivial baseline: once per distinct example of the column
                ids = sorted(set(o.example_id[m].tolist()))
                f1s = np.array([trivial_f1(d.examples[i].component_size, d.examples[i].nodes) for i in ids], dtype=float)
            else:
                f1s = o.f1[m & (d.row == r)]
            if not f1s.size:
                cells.append(Cell(DASH))
                continue
            mean = bootstrap_mean(f1s, rng, ctx.cfg.confidence)
            cells.append(Cell(_mean_text(mean)))
            values.append(CellValue(key, label, col_label, "f1", None, mean.n, mean.estimate, mean.interval.low, mean.interval.high))
        rows.append(tuple(cells))
    caption = (
        f"Mean F1 (%) of the list answers of each model in suite {d.suite}, by {d.variable_title.lower()}; Overall pools all "
        f"values. Per example, precision is the named reachable papers over the answer's lines (a duplicate or unknown title is "
        f"a line that names none), recall the named papers over all reachable ones. Brackets: {100 * ctx.cfg.confidence:g}% "
        f"percentile bootstrap interval. {TRIVIAL}: the trivial baseline that lists every paper of the context but the source "
        "(recall 100%, so its F1 measures how many papers the context holds besides the answer)."
    )
    return ReportTable(key, title, caption, ("Model", *col_labels), tuple(rows), tuple(values))


def _distance_column(hops: int) -> int:
    """The column of a distance when distances beyond 4 hops are pooled in ranges that double: 1, 2, 3, 4,
    5–8, 9–16, 17–32, ..."""
    return hops - 1 if hops <= 4 else 1 + (hops - 1).bit_length()


def _distance_label(column: int, last: int) -> str:
    """The heading of a column of :func:`_distance_column` (``last``: the largest distance, which ends the last range)."""
    if column < 4:
        return str(column + 1)
    lo, hi = 2 ** (column - 2) + 1, min(2 ** (column - 1), last)
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _pooled(per_hop: tuple[tuple[int, int], ...], column: Callable[[int], int], columns: int) -> list[tuple[int, int]]:
    """(named, all) per column from (named, all) per distance 1, 2, ..."""
    out = [[0, 0] for _ in range(columns)]
    for hops, (named, every) in enumerate(per_hop, start=1):
        cell = out[column(hops)]
        cell[0] += named
        cell[1] += every
    return [(a, b) for a, b in out]


def recall_grid(ctx: ReportContext, ranges: bool = False) -> AccuracyGrid | None:
    """Named / all reachable papers per model (and the trivial baseline, last row) × hops from the source.

    ``ranges``: distances beyond 4 hops pooled in ranges that double (5–8, 9–16, ...), so that the table
    fits a page whatever the components' depth; the figure draws every distance.
    """
    d, o = ctx.data, ctx.data.outcomes
    idx = [i for i in np.flatnonzero(o.task == "list").tolist() if o.hits[i] is not None]
    if not idx:
        return None
    dist = [d.examples[o.example_id[i]].distances for i in idx]
    hit = [o.hits[i] for i in idx]
    last = max(max(x) for x in dist)
    column: Callable[[int], int] = _distance_column if ranges else (lambda hops: hops - 1)
    D = column(last) + 1
    R = len(d.row_labels) + 1
    k = np.zeros((R, D + 1), dtype=np.int64)
    n = np.zeros((R, D + 1), dtype=np.int64)
    ids: dict[tuple[int, int], tuple[tuple[str, ...], tuple[str, ...]]] = {}
    groups: dict[tuple[int, int], tuple[list[str], list[str]]] = {}
    seen: set[str] = set()
    for i, x, h in zip(idx, dist, hit, strict=True):
        r, ex = int(d.row[i]), str(o.example_id[i])
        rows = [r] if ex in seen else [r, R - 1]  # the trivial baseline counts each example once
        seen.add(ex)
        per_hop = _pooled(recall_by_distance(h, x), column, D)  # (named, all) at 1, 2, ... hops: the viewer's strip too
        for row in rows:
            counts = per_hop if row == r else tuple((a, a) for _, a in per_hop)  # the trivial baseline names them all
            overall = (sum(c for c, _ in counts), sum(a for _, a in counts))
            for c, (named, every) in [*enumerate(counts), (D, overall)]:
                if not every:
                    continue
                k[row, c] += named
                n[row, c] += every
                good, bad = groups.setdefault((row, c), ([], []))
                (good if named == every else bad).append(ex)
    for key, (good, bad) in groups.items():
        ids[key] = (tuple(sorted(good)), tuple(sorted(bad)))
    # #Examples: list examples with a paper at that distance (the trivial row sees each example once)
    examples = np.array([sum(map(len, ids.get((R - 1, c), ((), ())))) for c in range(D + 1)], dtype=np.int64)
    labels = tuple(_distance_label(c, last) if ranges else str(c + 1) for c in range(D))
    return AccuracyGrid((*d.row_labels, TRIVIAL), (*labels, "Overall"), k, n, examples, (None,) * (D + 1), ids)


def _recall_table(ctx: ReportContext, grid: AccuracyGrid) -> ReportTable:
    d = ctx.data
    key, title = "recall_by_distance", "Recall (%) of the list answers by hops from the source"
    # A cell counts papers, #Examples counts examples: no † (it compares the two).
    plain = replace(grid, examples=np.zeros_like(grid.examples))
    rows, values, lists = grid_rows(ctx, plain, key, title, row_parts=[(x,) for x in grid.row_labels], bold=False,
                                     metric="recall", groups=("every paper at this distance named", "some missed"))
    rows.append(examples_row(grid, ("#Examples",)))
    caption = (
        f"Recall (%) of the list answers of each model in suite {d.suite} by the shortest distance (hops) of a reachable paper "
        "from the source: the papers at that distance the answer names, over all of them, pooled over the answered list "
        "examples; beyond 4 hops the distances are pooled in ranges that double (5–8, 9–16, ...; the figure "
        f"recall_by_distance draws every distance); Overall pools every distance. Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval of that count. "
        f"Where recall falls with distance is where a model's search stops. {TRIVIAL}: the trivial baseline (100% at every "
        "distance). #Examples: list examples with a paper at that distance."
    )
    return ReportTable(key, title, caption, ("Model", *grid.col_labels), tuple(map(tuple, rows)), tuple(values), tuple(lists))


def list_tables(ctx: ReportContext) -> list[ReportTable]:
    """``f1`` and ``recall_by_distance`` when the suite has answered list examples."""
    if not (ctx.data.outcomes.task == "list").any():
        return []
    out = [_f1_table(ctx)]
    grid = recall_grid(ctx, ranges=True)
    if grid is not None:
        out.append(_recall_table(ctx, grid))
    return out


def recall_figure(ctx: ReportContext, grid: AccuracyGrid) -> Figure:
    """Recall against hops from the source, one line per model with its Wilson band."""
    from matplotlib.figure import Figure

    from graphniah.report.figures import draw_grid  # matplotlib loads only when a figure is drawn

    fig = Figure(figsize=(6.4, 3.8))
    ax = fig.add_subplot()
    draw_grid(ax, ctx, grid, True, None)
    ax.set_xlabel("Hops from the source")
    ax.set_ylabel("recall (%)")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(f"Where the search stops: recall of the list answers by distance — suite {ctx.data.suite}", fontsize=10)
    return fig


# ------------------------------------------------------------------------------------------------
# Evidence
# ------------------------------------------------------------------------------------------------


def _token_bins(tokens: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Doubling ranges of evidence tokens: (range index per value, labels of the ranges that occur)."""
    exp = np.floor(np.log2(np.maximum(tokens, 1))).astype(np.int64)
    used = np.unique(exp)
    labels = tuple(f"{2 ** int(e):,}–{2 ** int(e + 1) - 1:,}" for e in used)
    return np.searchsorted(used, exp).astype(np.int64), labels


def _evidence_table(ctx: ReportContext, key: str, what: str, cols: np.ndarray, col_labels: tuple[str, ...],
                    mask: np.ndarray) -> ReportTable:
    d, o = ctx.data, ctx.data.outcomes
    tasks = [t for t in TASKS if (mask & (o.task == t)).any()]
    task_code = np.array([tasks.index(t) if t in tasks else 0 for t in o.task.tolist()], dtype=np.int64)
    parts = [(m, TASK_LABELS[t]) for m in d.row_labels for t in tasks]
    grid = tabulate(ctx, mask, d.row * len(tasks) + task_code, [" | ".join(p) for p in parts], cols, col_labels,
                 baselines=[None] * (len(col_labels) + 1))
    # A row holds one task's examples, the column count all tasks': the † of a partial run would mark every
    # row, so it is left out here (the #Examples rows below count each task's examples per column).
    grid = replace(grid, examples=np.zeros_like(grid.examples))
    title = f"Accuracy (%) by {what}"
    rows, values, lists = grid_rows(ctx, grid, key, title, row_parts=parts, bold=False)
    for t_i, t in enumerate(tasks):
        sub = tabulate(ctx, mask & (task_code == t_i), np.zeros(len(o), dtype=np.int64), ("x",), cols, col_labels,
                    baselines=[None] * (len(col_labels) + 1))
        rows.append(examples_row(sub, ("#Examples", TASK_LABELS[t])))
    caption = (
        f"Accuracy (%) of each model and task in suite {d.suite} by {what}, so that question depth and component size meet on "
        "one axis: how much a breadth-first search from the source must read before the answer is settled (YES: until the "
        "target is reached; NO, multiple choice, counting and list: the source's whole component, and for multiple choice the "
        f"candidates' blocks). List accuracy is the exact set. Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval. "
        "#Examples: the task's distinct examples answered in the column."
    )
    return ReportTable(key, title, caption, ("Model", "Task", *grid.col_labels), tuple(map(tuple, rows)), tuple(values),
                       tuple(lists), label_columns=2)


def evidence_tables(ctx: ReportContext) -> list[ReportTable]:
    """``accuracy_by_hops`` and ``accuracy_by_evidence_tokens`` over the examples that recorded their evidence."""
    o = ctx.data.outcomes
    known = ~np.isnan(o.hops_needed) & ~np.isnan(o.evidence_tokens)
    if not known.any():
        return []
    hops = np.where(known, o.hops_needed, 0).astype(np.int64)
    values = np.unique(hops[known])
    hop_cols = np.searchsorted(values, hops).astype(np.int64)
    tok_cols, tok_labels = _token_bins(np.where(known, o.evidence_tokens, 1))
    tok_used = np.unique(tok_cols[known])
    tok_cols = np.searchsorted(tok_used, tok_cols).astype(np.int64)
    return [
        _evidence_table(ctx, "accuracy_by_hops", "hops needed (search depth that settles the answer)", hop_cols,
                        tuple(map(str, values.tolist())), known),
        _evidence_table(ctx, "accuracy_by_evidence_tokens", "evidence tokens (o200k tokens of the blocks the search reads)",
                        tok_cols, tuple(tok_labels[i] for i in tok_used.tolist()), known),
    ]

