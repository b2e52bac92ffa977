"""Reports: tables, figures and an HTML page from a suite's journals (docs/architecture.md).

Typical use (the CLI's ``graphniah report`` and the notebook ``analysis/report.py`` do this)::

    data = load_suite("depth", runs_root="runs", examples_root="examples")
    report = build_report(data, ReportConfig())
    report.table("accuracy").markdown()
    write_report(report, "reports/depth")

The modules:

- ``load``       a suite's journals and examples as one typed table of scored answers (``load_suite``)
- ``config``     the report's settings (``ReportConfig``)
- ``table``      what a table is: printed cells with tidy numbers and example lists (``ReportTable``)
- ``grid``       the report's context and the accuracy grid every table is cut from
- ``tables``, ``listing``, ``effective``, ``shortcuts``, ``matched``, ``wording``, ``alpha``: the tables
- ``balance``    which cells are not balanced against the shortcuts (sentences under the Shortcuts table)
- ``figures``, ``page``: the figures and the HTML page
- ``build``      ``build_report`` (every table of a suite) and ``write_report`` (the report folder)

This ``__init__`` only re-exports; the names load on first access (module ``__getattr__``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.report.build import Report, ReportFiles, build_report, write_report
    from graphniah.report.config import ReportConfig
    from graphniah.report.effective import EffectiveScale
    from graphniah.report.grid import AccuracyGrid
    from graphniah.report.load import Outcomes, RunInfo, SuiteData, load_suite
    from graphniah.report.table import Cell, CellValue, ExampleList, ReportTable, cells_csv

# Where each public name lives; loaded on first access.
_HOMES = {
    **dict.fromkeys(["Report", "ReportFiles", "build_report", "write_report"], "graphniah.report.build"),
    **dict.fromkeys(["ReportConfig"], "graphniah.report.config"),
    **dict.fromkeys(["EffectiveScale"], "graphniah.report.effective"),
    **dict.fromkeys(["AccuracyGrid"], "graphniah.report.grid"),
    **dict.fromkeys(["Outcomes", "RunInfo", "SuiteData", "load_suite"], "graphniah.report.load"),
    **dict.fromkeys(["Cell", "CellValue", "ExampleList", "ReportTable", "cells_csv"], "graphniah.report.table"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
