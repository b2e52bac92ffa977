"""The machine-readable files of reports: a suite report's ``summary.json`` and a select-alpha run's ``alpha.json``.

``graphniah report`` writes ``reports/<suite>/summary.json`` (:class:`ReportSummary`): what the
report was computed from (the examples file and every journal, by sha256), the varied variable and
its levels, the statistical settings and the tables written. ``graphniah select-alpha`` writes
``alpha.json`` (:class:`AlphaRun`): every number of the α search of appendix B, the search's
configuration, and where the reference came from; ``--reanalyse`` reads it back.

**Format.** Both are version 1: the objects as they were first written, without a
``format_version`` field (a file without the field is version 1). A file of another version is
an error naming the file and the version.
"""

from __future__ import annotations

import os
from typing import Any

from graphniah.atomic import write_json
from graphniah.formats.base import Format, Frozen

__all__ = [
    "ALPHA_RUN_FORMAT",
    "REPORT_SUMMARY_FORMAT",
    "AlphaRun",
    "ReportSummary",
    "SummaryConfig",
    "SummaryExamples",
    "SummaryJournal",
    "read_alpha_run",
    "read_report_summary",
    "write_alpha_run",
    "write_report_summary",
]

Number = int | float


class SummaryExamples(Frozen):
    path: str
    sha256: str
    count: int


class SummaryJournal(Frozen):
    """One model setting the report counted: its journal and how many of its examples it answered."""

    model: str
    settings_hash: str
    label: str
    reasoning_effort: str | None
    path: str
    answered: int
    failed: int


class SummaryConfig(Frozen):
    """The report's statistical settings (``graphniah.report.config.ReportConfig``; the tolerance as a fraction string)."""

    confidence: float
    z: float | None
    threshold: float | None
    threshold_margin: float
    counting_tolerance: str


class ReportSummary(Frozen):
    """``reports/<suite>/summary.json``."""

    suite: str
    examples: SummaryExamples
    journals: tuple[SummaryJournal, ...]
    journal_sha256: dict[str, str]
    variable: str
    variable_source: str
    levels: tuple[Any, ...]  # the varied variable's values, as JSON
    notes: tuple[str, ...]
    config: SummaryConfig
    tables: tuple[str, ...]
    version: str
    created_at: str


class AlphaRun(Frozen):
    """``alpha.json`` of ``graphniah select-alpha``: the α search's numbers (appendix B.4)."""

    selected: float
    rows: tuple[dict[str, Number | bool], ...]  # per α: kl_<task>, mean_kl, ci_low, ci_high, selected_share, selected
    tasks: tuple[str, ...]
    examples: list[list[int]]  # (α, task): examples generated
    support: list[int]  # the degrees in the common support
    reference_histogram: list[Number]
    generated_histograms: list[list[list[Number]]]  # (α, task, degree)
    config: dict[str, Any]  # the fields of graphniah.report.alpha.AlphaConfig, as JSON
    seconds: float
    source: dict[str, Any]
    version: str


REPORT_SUMMARY_FORMAT = Format("report summary", 1, hint="write the report again with graphniah report")
ALPHA_RUN_FORMAT = Format("select-alpha run", 1, hint="run graphniah select-alpha again")


def read_report_summary(path: str | os.PathLike[str]) -> ReportSummary:
    return REPORT_SUMMARY_FORMAT.read_file(ReportSummary, path)


def write_report_summary(path: str | os.PathLike[str], summary: ReportSummary) -> None:
    write_json(path, summary.model_dump(mode="json"))


def read_alpha_run(path: str | os.PathLike[str]) -> AlphaRun:
    return ALPHA_RUN_FORMAT.read_file(AlphaRun, path)


def write_alpha_run(path: str | os.PathLike[str], run: AlphaRun) -> None:
    write_json(path, run.model_dump(mode="json"))
