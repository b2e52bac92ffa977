"""The matched-sampling comparison table: counts, Fisher and Holm p-values recomputed by hand."""

from __future__ import annotations

import numpy as np
import scipy.stats as ss
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.report import build_report, load_suite
from graphniah.report.matched import matched_table, twin_of
from tests.report.synthetic import depth_suite, write_suite


def _suites(tmp_path):
    rng = np.random.default_rng(4)
    models = {"alpha-model": {"p": 0.8}, "beta-model": {"p": 0.5}}
    twin = depth_suite(tmp_path, per_cell=10, seed=1, models=models)
    # The matched suite: the same design, the shortcut gone, so alpha-model drops.
    matched = write_suite(tmp_path, "depth-matched", twin.examples, {"alpha-model": {"p": 0.5}, "beta-model": {"p": 0.5}}, rng)
    return twin, matched


def _counts(truth, model, depth=None):
    rows = [t for t in truth if t.model == model and (depth is None or t.depth == depth)]
    return sum(t.correct for t in rows), len(rows)


def test_twin_names() -> None:
    assert twin_of("depth-matched") == "depth" and twin_of("depth") is None and twin_of("-matched") is None


def test_table_counts_and_pvalues(tmp_path) -> None:
    twin, matched = _suites(tmp_path)
    a = load_suite("depth", runs_root=twin.runs_root, examples_root=twin.examples_root)
    b = load_suite("depth-matched", runs_root=twin.runs_root, examples_root=twin.examples_root)
    table = matched_table(b, a)
    assert table is not None
    raw = []
    keys = []
    for model in ("alpha-model", "beta-model"):
        for level, depth in (("all", None), ("4", 4), ("8", 8), ("16", 16)):
            kt, nt = _counts(twin.truth, model, depth)
            km, nm = _counts(matched.truth, model, depth)
            row = f"{model} | {level}"
            assert table.value(row, "depth", "accuracy").k == kt and table.value(row, "depth", "accuracy").n == nt
            assert table.value(row, "depth-matched", "accuracy").k == km
            p = ss.fisher_exact([[kt, nt - kt], [km, nm - km]]).pvalue
            assert abs(table.value(row, "difference", "fisher_raw").pvalue - p) < 1e-9
            assert abs(table.value(row, "difference", "fisher_raw").value - (km / nm - kt / nt)) < 1e-12
            raw.append(p)
            keys.append(row)
    # Holm over the whole table, written out: sorted ascending, (m - i) * p, running maximum, capped at 1.
    order = np.argsort(raw, kind="stable")
    m = len(raw)
    adj = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * raw[j]))
        adj[j] = running
    for row, want in zip(keys, adj, strict=True):
        assert abs(table.value(row, "difference", "fisher_holm").pvalue - want) < 1e-9
    assert table.value("alpha-model | all", "difference", "fisher_raw").value < 0  # the shortcut's share, gone


def test_report_includes_the_table_with_a_twin_only(tmp_path) -> None:
    twin, _ = _suites(tmp_path)
    a = load_suite("depth", runs_root=twin.runs_root, examples_root=twin.examples_root)
    b = load_suite("depth-matched", runs_root=twin.runs_root, examples_root=twin.examples_root)
    assert "matched_vs_twin" in build_report(b, twin=a).keys
    assert "matched_vs_twin" not in build_report(b).keys


def test_cli_report_finds_the_twin(tmp_path) -> None:
    twin, _ = _suites(tmp_path)
    out = tmp_path / "reports"
    r = CliRunner().invoke(app, ["report", "--suite", "depth-matched", "--runs", str(twin.runs_root), "--examples-root",
                                 str(twin.examples_root), "--out", str(out), "--no-figures", "--no-html"])
    assert r.exit_code == 0, r.output
    assert "Matched sampling: depth-matched against depth" in (out / "report.md").read_text()
