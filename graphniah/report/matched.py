"""The matched-sampling comparison: each model's accuracy on a matched suite against its unmatched twin.

A suite ``<name>-matched`` (``match_similarity: true``; :mod:`graphniah.sampling.examples.similarity`)
has the twin ``<name>``: the same design with the control off, so wrong answers may be told apart by
their titles and counting answers by the paper count. For every model (row label) answered on both,
the table gives its accuracy on the twin and on the matched suite, the difference (matched − twin)
and Fisher's exact test of the 2×2 table (correct/wrong × suite): the raw p-value and Holm's
adjustment over every test of the table (a family of models × values). Rows: each model overall,
then per value of the varied variable when both suites vary the same one. A drop says how much of
the model's score the shortcut carried.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from graphniah.report.load import SuiteData
from graphniah.report.table import Cell, CellValue, ReportTable, pct
from graphniah.stats import fisher_exact, format_pvalue, holm

MATCHED_SUFFIX = "-matched"
KEY = "matched_vs_twin"
ALL = "all"


def twin_of(suite: str) -> str | None:
    """The unmatched twin's name of a matched suite (``depth-matched`` → ``depth``), else None."""
    return suite[: -len(MATCHED_SUFFIX)] if suite.endswith(MATCHED_SUFFIX) and len(suite) > len(MATCHED_SUFFIX) else None


def _counts(data: SuiteData) -> dict[tuple[str, str], tuple[int, int]]:
    """(row label, value label or ALL) -> (correct, answered)."""
    o = data.outcomes
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for r, label in enumerate(data.row_labels):
        mine = data.row == r
        if not mine.any():
            continue
        out[(label, ALL)] = (int(o.correct[mine].sum()), int(mine.sum()))
        for v, level in enumerate(data.levels):
            cell = mine & (data.value == v)
            if cell.any():
                out[(label, level)] = (int(o.correct[cell].sum()), int(cell.sum()))
    return out


def _cells(matched: SuiteData, twin: SuiteData) -> Iterator[tuple[str, str, tuple[int, int], tuple[int, int]]]:
    """(model, value, twin counts, matched counts) for every cell answered in both suites."""
    a, b = _counts(twin), _counts(matched)
    levels = [ALL] + ([lv for lv in matched.levels if lv in twin.levels] if matched.variable == twin.variable else [])
    for label in matched.row_labels:
        for level in levels:
            if (label, level) in a and (label, level) in b:
                yield label, level, a[(label, level)], b[(label, level)]


def matched_table(matched: SuiteData, twin: SuiteData) -> ReportTable | None:
    """The comparison table (None when no model answered both suites)."""
    cells = list(_cells(matched, twin))
    if not cells:
        return None
    tests = [fisher_exact(kt, nt - kt, km, nm - km) for _, _, (kt, nt), (km, nm) in cells]
    adjusted = holm(np.asarray([t.pvalue for t in tests]))
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    for (label, level, (kt, nt), (km, nm)), test, p_holm in zip(cells, tests, adjusted, strict=True):
        diff = km / nm - kt / nt
        rows.append((Cell(label), Cell(level), Cell(f"{pct(kt / nt)} ({kt}/{nt})"), Cell(f"{pct(km / nm)} ({km}/{nm})"),
                     Cell(f"{100 * diff:+.2f}"), Cell(format_pvalue(test.pvalue)), Cell(format_pvalue(p_holm))))
        row = f"{label} | {level}"
        values += [CellValue(KEY, row, twin.suite, "accuracy", kt, nt, kt / nt),
                   CellValue(KEY, row, matched.suite, "accuracy", km, nm, km / nm),
                   CellValue(KEY, row, "difference", "fisher_raw", None, nt + nm, diff, pvalue=test.pvalue),
                   CellValue(KEY, row, "difference", "fisher_holm", None, nt + nm, diff, pvalue=p_holm)]
    caption = (
        f"Accuracy on suite {matched.suite} (matched sampling: wrong answers as similar to the source as the true one, "
        f"counting sizes the paper count cannot give away) against its unmatched twin {twin.suite}. Difference: matched "
        "minus twin, in points. p: two-sided Fisher's exact test of correct/wrong by suite; Holm p: adjusted over all "
        "the tests of this table."
    )
    header = ("Model", matched.variable_title if matched.variable == twin.variable else "Value", twin.suite, matched.suite,
              "Difference", "p", "Holm p")
    return ReportTable(KEY, f"Matched sampling: {matched.suite} against {twin.suite}", caption, header, tuple(rows),
                       tuple(values), label_columns=2)
