"""Figures of the report (matplotlib): accuracy against the varied variable, as in the paper's §4.

Each model is a line (ordered variables: depth, size, context length, effort) or a group of bars
(nominal ones: task, distractor type) with its 95% Wilson band or error bars, and the random
baseline is a dashed gray line. ``accuracy_by_task_figure`` draws one panel per task, where the
baselines differ (50%, 25%, 0.66%). Figures are built with the object-oriented API
(``matplotlib.figure.Figure``) so that nothing touches pyplot's global state: the same code runs
in the CLI, in tests and inside a notebook.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from graphniah.report.grid import AccuracyGrid, ReportContext

__all__ = ["accuracy_by_task_figure", "accuracy_figure", "figure_bytes"]

ORDERED = frozenset({"depth", "component_size", "context_length", "reasoning_effort"})
_RC: dict[RcKeyType, object] = {"svg.hashsalt": "graphniah", "svg.fonttype": "none", "font.size": 9}


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes (SVG without a date, with fixed ids: reproducible)."""
    buf = io.BytesIO()
    with matplotlib.rc_context(_RC):
        meta = {"Date": None} if fmt == "svg" else {}
        fig.savefig(buf, format=fmt, dpi=150, bbox_inches="tight", metadata=meta)
    return buf.getvalue()


def draw_grid(ax: Axes, ctx: ReportContext, grid: AccuracyGrid, ordered: bool, title: str | None) -> None:
    L = len(grid.col_labels) - 1  # without Overall
    R = len(grid.row_labels)
    xs = list(range(L))
    width = 0.8 / max(R, 1)
    for r, label in enumerate(grid.row_labels):
        est, lo, hi, pos = [], [], [], []
        for c in range(L):
            p = grid.cell(ctx, r, c)
            if p is None:
                continue
            pos.append(c)
            est.append(100 * p.estimate)
            lo.append(100 * p.interval.low)
            hi.append(100 * p.interval.high)
        if not pos:
            continue
        if ordered:
            (line,) = ax.plot(pos, est, marker="o", ms=3.5, lw=1.4, label=label)
            ax.fill_between(pos, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
        else:
            off = [p - 0.4 + width * (r + 0.5) for p in pos]
            ax.bar(off, est, width=width * 0.95, label=label,
                   yerr=[[e - a for e, a in zip(est, lo, strict=True)], [b - e for e, b in zip(est, hi, strict=True)]],
                   capsize=2, error_kw={"lw": 0.8})
    bases = [None if b is None else 100 * float(b) for b in grid.baselines[:L]]
    known = [b for b in bases if b is not None]
    if bases and len(known) == len(bases) and len(set(known)) == 1:
        ax.axhline(known[0], color="gray", ls="--", lw=1, label="random guessing")
    else:
        first = True
        for c, b in enumerate(bases):
            if b is not None:
                ax.hlines(b, c - 0.45, c + 0.45, colors="gray", linestyles="--", lw=1, label="random guessing" if first else "_nolegend_")
                first = False
    ax.set_xticks(xs, grid.col_labels[:L])
    ax.set_xlim(-0.6, L - 0.4)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.grid(axis="y", lw=0.3, alpha=0.5)
    if title:
        ax.set_title(title)


def accuracy_figure(ctx: ReportContext, grid: AccuracyGrid) -> Figure:
    """Accuracy of every model against the varied variable, with Wilson bands and the baseline."""
    d = ctx.data
    fig = Figure(figsize=(6.4, 3.8))
    ax = fig.add_subplot()
    draw_grid(ax, ctx, grid, d.variable in ORDERED, None)
    ax.set_xlabel(d.variable_title)
    # Accuracies reach 100%, so no corner of the axes is free: the legend goes beside them.
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(f"Accuracy by {d.variable_title.lower()} — suite {d.suite}", fontsize=10)
    return fig


def accuracy_by_task_figure(ctx: ReportContext, grids: Sequence[tuple[str, AccuracyGrid]]) -> Figure:
    """One panel per task (title, grid), sharing the y axis; one legend for all panels."""
    d = ctx.data
    n = len(grids)
    fig = Figure(figsize=(3.4 * n + 0.6, 3.6))
    axes = fig.subplots(1, n, sharey=True, squeeze=False)[0]
    for i, (ax, (title, grid)) in enumerate(zip(axes, grids, strict=True)):
        draw_grid(ax, ctx, grid, d.variable in ORDERED, title)
        ax.set_xlabel(d.variable_title)
        if i:
            ax.set_ylabel("")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, frameon=False, loc="lower center", ncol=min(len(labels), 5), bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(f"Accuracy by {d.variable_title.lower()} and task — suite {d.suite}", fontsize=10)
    return fig
