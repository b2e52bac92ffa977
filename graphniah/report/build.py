"""Building a report from a loaded suite (:func:`build_report`) and writing its folder (:func:`write_report`).

``write_report`` builds the folder under a temporary name and renames it into place:

    report.md, report.html, cells.csv, summary.json
    tables/<key>.md, tables/<key>.csv
    figures/accuracy.{png,svg}, figures/accuracy_by_task.{png,svg}, figures/recall_by_distance.{png,svg} (list task)
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from graphniah import __version__
from graphniah.atomic import atomic_dir, sha256_file, write_in_staging
from graphniah.errors import GraphNIAHError
from graphniah.formats import TASK_LABELS, TASKS
from graphniah.formats.report import ReportSummary, SummaryConfig, SummaryExamples, SummaryJournal, write_report_summary
from graphniah.layout import REPORT_CELLS, REPORT_HTML, REPORT_MARKDOWN, REPORT_SUMMARY, report_figure, report_table
from graphniah.report.balance import balance_notes
from graphniah.report.config import ReportConfig
from graphniah.report.effective import (
    EffectiveScale,
    effective_length_table,
    effective_lengths,
    effective_scales,
    effective_table,
)
from graphniah.report.grid import AccuracyGrid, ReportContext, accuracy_grid
from graphniah.report.load import SuiteData
from graphniah.report.matched import matched_table
from graphniah.report.shortcuts import (
    level_table_name,
    shortcut_level_table,
    shortcut_level_verdicts,
    shortcut_results,
    shortcut_table,
    with_shortcut_notes,
)
from graphniah.report.table import ReportTable, cells_csv
from graphniah.report.tables import build_tables
from graphniah.report.wording import wording_tables

if TYPE_CHECKING:  # matplotlib is imported only when figures are drawn
    from matplotlib.figure import Figure

__all__ = ["Report", "ReportFiles", "build_report", "write_report"]


@dataclass(frozen=True)
class Report:
    """Everything a report shows, computed once; ``write_report`` only formats and writes it."""

    data: SuiteData
    config: ReportConfig
    context: ReportContext
    tables: tuple[ReportTable, ...]
    effective_depth: tuple[EffectiveScale, ...]
    effective_size: tuple[EffectiveScale, ...]

    def table(self, key: str) -> ReportTable:
        for t in self.tables:
            if t.key == key:
                return t
        raise KeyError(f"no table {key!r} in this report (tables: {', '.join(t.key for t in self.tables)})")

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(t.key for t in self.tables)

    def accuracy_grid(self, task: str | None = None) -> AccuracyGrid:
        return accuracy_grid(self.context, task)

    def task_grids(self) -> list[tuple[str, AccuracyGrid]]:
        """(task title, grid) of every task present, for the per-task panels (empty when the task is the variable)."""
        o = self.data.outcomes
        tasks = [t for t in TASKS if (o.task == t).any()]
        if self.data.variable == "task" or len(tasks) < 2:
            return []
        return [(TASK_LABELS[t], accuracy_grid(self.context, t)) for t in tasks]

    def figures(self) -> dict[str, Figure]:
        """The report's figures by file stem (matplotlib is imported only when figures are asked for)."""
        from graphniah.report.figures import accuracy_by_task_figure, accuracy_figure

        figs = {"accuracy": accuracy_figure(self.context, self.accuracy_grid())}
        grids = self.task_grids()
        if grids:
            figs["accuracy_by_task"] = accuracy_by_task_figure(self.context, grids)
        from graphniah.report.listing import recall_figure, recall_grid

        recall = recall_grid(self.context)
        if recall is not None:
            figs["recall_by_distance"] = recall_figure(self.context, recall)
        return figs

    def markdown(self) -> str:
        d = self.data
        head = [f"# GraphNIAH report: suite {d.suite}", "", *[f"- {k}: {v}" for k, v in self.facts()], ""]
        head += [f"> {n}" for n in d.notes] + ([""] if d.notes else [])
        return "\n".join(head) + "\n" + "\n".join(t.markdown() for t in self.tables)

    def facts(self) -> list[tuple[str, str]]:
        d = self.data
        models = ", ".join(f"{r.label} ({r.answered} answered, {len(r.failed)} failed)" for r in d.runs)
        return [
            *([("data", d.data_source)] if d.data_source else []),
            ("examples", f"{d.examples_path} ({len(d.examples)} examples)"),
            ("journals", f"{d.runs_dir}/ ({len(d.runs)} model settings)"),
            ("models", models),
            ("varied variable", f"{d.variable_title} ({d.variable_source})"),
            ("intervals", f"{100 * self.config.confidence:g}% Wilson" + ("" if self.config.z is None else f", z = {self.config.z}")),
            ("effective depth/size threshold", self.config.describe_threshold()),
            ("graphniah", __version__),
        ]


def build_report(data: SuiteData, config: ReportConfig | None = None, twin: SuiteData | None = None) -> Report:
    """Compute every table (and the effective depth and size) of a loaded suite; with ``twin`` (the
    unmatched twin of a matched suite, :mod:`graphniah.report.matched`) the comparison table too."""
    config = config or ReportConfig()
    if not len(data.outcomes):
        raise GraphNIAHError(f"suite {data.suite}: no answered examples in {data.runs_dir}/ (every call failed or no journal matches the examples)")
    ctx = ReportContext(data, config)
    tables = build_tables(ctx)
    depth = effective_scales(ctx, "depth")
    size = effective_scales(ctx, "component_size")
    tables.insert(1, effective_table(ctx, depth, size))
    lengths = effective_lengths(ctx)
    if lengths is not None:  # a suite with base twins: base accuracy (and effective length) beside the effective depth
        tables.insert(2, effective_length_table(ctx, lengths))
    levels = shortcut_level_verdicts(ctx)
    # under the Shortcuts verdicts: the cells the examples' recipes (or the verdicts) say are not balanced
    balance = balance_notes(data, shortcut_results(ctx), levels)
    shortcuts = shortcut_table(ctx, balance.notes, balance.values)
    if shortcuts is not None:  # right after the accuracy and effective tables: read them against it
        tables.insert(2, shortcuts)
        by_level = shortcut_level_table(ctx, levels)
        if by_level is not None:  # where (which depths, lengths, ...) a shortcut beats random; the accuracy captions say so
            tables.insert(3, by_level)
            tables = with_shortcut_notes(tables, levels, level_table_name(ctx))
    comparison = matched_table(data, twin) if twin is not None else None
    if comparison is not None:
        tables.append(comparison)
    tables.extend(wording_tables(ctx))  # a suite asked in several template sets (graphniah.report.wording)
    return Report(data, config, ctx, tuple(tables), tuple(depth), tuple(size))


@dataclass(frozen=True)
class ReportFiles:
    """Where ``write_report`` put things."""

    out: Path
    tables: tuple[Path, ...]
    figures: tuple[Path, ...]
    html: Path | None


def write_report(report: Report, out: str | os.PathLike[str], *, figures: bool = True, html: bool = True,
                 viewer: str | os.PathLike[str] | None = None) -> ReportFiles:
    """Write the report folder atomically (an existing folder is replaced only once the new one is complete).

    ``viewer``: the folder of the suite's example viewer (``graphniah view``), which report.html then links to.
    """
    out = Path(out)
    d = report.data
    with atomic_dir(out, replace=True) as tmp:
        tables = []
        for t in report.tables:
            for ext, text in (("md", t.markdown()), ("csv", t.csv())):
                write_in_staging(report_table(tmp, t.key, ext), text)
                tables.append(report_table(out, t.key, ext))
        write_in_staging(tmp / REPORT_MARKDOWN, report.markdown())
        write_in_staging(tmp / REPORT_CELLS, cells_csv(report.tables))
        svgs: dict[str, str] = {}
        fig_paths = []
        if figures:
            from graphniah.report.figures import figure_bytes

            for name, fig in report.figures().items():
                for fmt in ("png", "svg"):
                    data = figure_bytes(fig, fmt)
                    write_in_staging(report_figure(tmp, name, fmt), data)
                    fig_paths.append(report_figure(out, name, fmt))
                    if fmt == "svg":
                        svgs[name] = data.decode("utf-8")
        html_path = None
        if html:
            from graphniah.report.page import render_html, viewer_links

            links = None if viewer is None else viewer_links(d, Path(os.path.relpath(Path(viewer).resolve(), out.resolve())).as_posix())
            write_in_staging(tmp / REPORT_HTML, render_html(
                f"GraphNIAH report: suite {d.suite}", report.facts(), d.notes, report.tables, svgs, report.context.show, links))
            html_path = out / REPORT_HTML
        write_report_summary(tmp / REPORT_SUMMARY, _summary(report))
    return ReportFiles(out, tuple(tables), tuple(fig_paths), html_path)


def _summary(report: Report) -> ReportSummary:
    d = report.data
    c = report.config
    return ReportSummary(
        suite=d.suite,
        examples=SummaryExamples(path=str(d.examples_path), sha256=sha256_file(d.examples_path), count=len(d.examples)),
        journals=tuple(
            SummaryJournal(model=r.model, settings_hash=r.settings_hash, label=r.label, reasoning_effort=r.reasoning_effort,
                           path=str(r.journal), answered=r.answered, failed=len(r.failed))
            for r in d.runs
        ),
        journal_sha256={str(p): sha256_file(p) for p in sorted({r.journal for r in d.runs})},
        variable=d.variable,
        variable_source=d.variable_source,
        levels=tuple(d.levels),
        notes=tuple(d.notes),
        config=SummaryConfig(confidence=c.confidence, z=c.z, threshold=c.threshold, threshold_margin=c.threshold_margin,
                             counting_tolerance=str(c.counting_tolerance)),
        tables=tuple(report.keys),
        version=__version__,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )

