"""What a report table is: printed cells (Markdown/CSV) with tidy numbers and example lists.

A :class:`ReportTable` is what one of the paper's tables looks like (header, rows of printed
cells), plus two things the paper cannot show: the numbers behind every cell as tidy
:class:`CellValue` rows (``cells.csv``), and the example ids behind every cell as
:class:`ExampleList` anchors (the HTML report links each cell to its list).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["CELL_FIELDS", "Cell", "CellValue", "ExampleList", "ReportTable", "cells_csv", "pct"]


def pct(x: float | Fraction) -> str:
    """A proportion printed as a percentage with two decimals, as in the paper."""
    return f"{100 * float(x):.2f}"


@dataclass(frozen=True, slots=True)
class Cell:
    """One printed cell: its text, whether it is bold (the column's best), and its example list."""

    text: str
    bold: bool = False
    link: str | None = None


@dataclass(frozen=True, slots=True)
class CellValue:
    """The numbers behind one cell (one row of ``cells.csv``)."""

    table: str
    row: str
    column: str
    metric: str
    k: int | None = None
    n: int | None = None
    value: float | None = None
    low: float | None = None
    high: float | None = None
    pvalue: float | None = None
    link: str | None = None


@dataclass(frozen=True, slots=True)
class ExampleList:
    """The examples behind a cell, in named groups (e.g. correct / wrong)."""

    anchor: str
    title: str
    groups: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def size(self) -> int:
        return sum(len(ids) for _, ids in self.groups)


@dataclass(frozen=True)
class ReportTable:
    """A table in the paper's layout."""

    key: str
    title: str
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    values: tuple[CellValue, ...] = ()
    lists: tuple[ExampleList, ...] = ()
    label_columns: int = 1  # leading columns that label the row (Model, or Model and Label)
    verdicts: tuple[str, ...] = ()  # sentences read off the table (the shortcut verdicts), printed under it

    def markdown(self) -> str:
        def esc(s: str) -> str:
            return s.replace("|", "\\|")

        lines = [f"### {self.title}", "", "| " + " | ".join(map(esc, self.header)) + " |", "|" + "---|" * len(self.header)]
        lines.extend("| " + " | ".join(f"**{esc(c.text)}**" if c.bold else esc(c.text) for c in row) + " |" for row in self.rows)
        if self.verdicts:
            lines += ["", *(f"- {v}" for v in self.verdicts)]
        lines += ["", self.caption, ""]
        return "\n".join(lines)

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.header)
        for row in self.rows:
            w.writerow([c.text for c in row])
        return buf.getvalue()

    def cell(self, row: str, column: str) -> Cell:
        """The cell in the row whose first cell reads ``row`` (``"a | b"`` for two label cells) and the named column."""
        j = self.header.index(column)
        for r in self.rows:
            labels = [c.text for c in r[: self.label_columns]]
            if " | ".join(labels) == row or labels[0] == row:
                return r[j]
        raise KeyError(f"no row {row!r} in table {self.key}")

    def value(self, row: str, column: str, metric: str | None = None) -> CellValue:
        """The tidy numbers of a cell (``row`` as in ``cells.csv``)."""
        for v in self.values:
            if v.row == row and v.column == column and (metric is None or v.metric == metric):
                return v
        raise KeyError(f"no value ({row!r}, {column!r}, {metric!r}) in table {self.key}")


CELL_FIELDS = tuple(CellValue.__dataclass_fields__)


def cells_csv(tables: tuple[ReportTable, ...] | list[ReportTable]) -> str:
    """All tables' tidy numbers as one CSV (one row per cell and metric)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CELL_FIELDS)
    for t in tables:
        for v in t.values:
            w.writerow(["" if getattr(v, f) is None else getattr(v, f) for f in CELL_FIELDS])
    return buf.getvalue()
