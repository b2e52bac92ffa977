"""The report folder: Markdown/CSV tables, figures, the HTML page with per-cell example lists, the CLI."""

from __future__ import annotations

import csv
import io
import re

import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.report import build_report, load_suite, write_report
from tests.report.synthetic import depth_suite


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("out")
    suite = depth_suite(root, per_cell=6, seed=1, fail_rate=0.2)
    data = load_suite("depth", runs_root=suite.runs_root, examples_root=suite.examples_root)
    report = build_report(data)
    files = write_report(report, root / "report")
    return suite, report, files


def test_every_table_is_written_as_markdown_and_csv(written):
    _, report, files = written
    out = files.out
    for t in report.tables:
        md = (out / "tables" / f"{t.key}.md").read_text()
        assert md.startswith(f"### {t.title}") and md.count("\n|") == len(t.rows) + 2
        rows = list(csv.reader(io.StringIO((out / "tables" / f"{t.key}.csv").read_text())))
        assert tuple(rows[0]) == t.header and len(rows) == len(t.rows) + 1
        assert all(len(r) == len(t.header) for r in rows)
    cells = list(csv.DictReader(io.StringIO((out / "cells.csv").read_text())))
    acc = [c for c in cells if c["table"] == "accuracy" and c["column"] == "Overall"]
    assert {c["row"] for c in acc} == set(report.data.row_labels)
    assert (out / "report.md").read_text().count("### ") == len(report.tables)


def test_figures_are_png_and_svg(written):
    _, _, files = written
    names = {p.name for p in files.figures}
    assert names == {"accuracy.png", "accuracy.svg", "accuracy_by_task.png", "accuracy_by_task.svg"}
    for p in files.figures:
        data = p.read_bytes()
        assert data.startswith(b"\x89PNG") if p.suffix == ".png" else b"<svg" in data[:400]
    svg = (files.out / "figures" / "accuracy.svg").read_text()
    assert "random guessing" in svg and "alpha-model" in svg


def test_html_links_every_cell_to_its_example_list(written):
    suite, report, files = written
    page = files.html.read_text()
    links = set(re.findall(r'href="#([^"]+)"', page))
    anchors = set(re.findall(r'<section class="cell" id="([^"]+)"', page))
    cell_links = {c.link for t in report.tables for r in t.rows for c in r if c.link}
    assert cell_links and cell_links <= links and cell_links <= anchors
    # The overall accuracy cell of a model lists exactly the examples it answered, split by correctness.
    t = report.table("accuracy")
    link = t.cell("alpha-model", "Overall").link
    section = page[page.index(f'id="{link}"'):]
    section = section[: section.index("</section>")]
    ids = set(re.findall(r"(?:yesno|mc|count)-[0-9a-f]{16}", section))
    assert ids == {tr.example_id for tr in suite.truth if tr.model == "alpha-model"}
    assert "graphniah show ID --examples" in section
    assert page.count("<svg") == 2 and "<?xml" not in page  # figures inlined, self-contained


def test_report_folder_is_replaced_atomically(written, tmp_path):
    _, report, _ = written
    out = tmp_path / "r"
    write_report(report, out, figures=False, html=False)
    (out / "stale.txt").write_text("old")
    write_report(report, out, figures=False, html=False)
    assert not (out / "stale.txt").exists() and (out / "tables" / "accuracy.md").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_cli_report_writes_the_folder(written, tmp_path):
    suite, _, _ = written
    out = tmp_path / "cli"
    res = CliRunner().invoke(app, ["report", "--suite", "depth", "--runs", str(suite.runs_root), "--examples-root",
                                   str(suite.examples_root), "--out", str(out), "--paper-z", "--no-figures"])
    assert res.exit_code == 0, res.output
    assert (out / "report.html").is_file() and not (out / "figures").exists()
    assert "Accuracy (%) by question depth k" in res.output
    res = CliRunner().invoke(app, ["report", "--suite", "nope", "--runs", str(suite.runs_root), "--examples-root",
                                   str(suite.examples_root), "--out", str(out)])
    assert res.exit_code != 0 and "nope.jsonl" in str(res.exception)


def test_summary_json_reads_through_its_model_and_names_what_the_report_counted(written):
    from graphniah.atomic import sha256_file
    from graphniah.formats.report import read_report_summary

    _, report, files = written
    summary = read_report_summary(files.out / "summary.json")
    assert summary.suite == "depth" and summary.variable == report.data.variable
    assert summary.examples.count == len(report.data.examples)
    assert summary.examples.sha256 == sha256_file(report.data.examples_path)
    assert [j.model for j in summary.journals] == [r.model for r in report.data.runs]
    assert summary.tables == tuple(report.keys)
