"""The notebooks in analysis/ execute top to bottom (jupytext -> nbformat -> nbclient, a real kernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def execute(name: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, cwd: Path):
    import jupytext
    from nbclient import NotebookClient

    for k, v in env.items():
        monkeypatch.setenv(k, v)  # the kernel inherits this process's environment
    nb = jupytext.read(REPO / "analysis" / name)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def outputs(nb) -> str:
    text = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text.append(str(data.get("text/markdown", "")) + str(data.get("text/plain", "")) + str(out.get("text", "")))
    return "\n".join(text)


@pytest.mark.slow
def test_report_notebook_runs_on_a_synthetic_suite(tmp_path, monkeypatch):
    from tests.report.synthetic import depth_suite

    suite = depth_suite(tmp_path, per_cell=5, seed=2, fail_rate=0.1)
    nb = execute("report.py", {"GRAPHNIAH_SUITE": "depth", "GRAPHNIAH_RUNS": str(suite.runs_root),
                               "GRAPHNIAH_EXAMPLES": str(suite.examples_root)}, monkeypatch, tmp_path)
    text = outputs(nb)
    assert "Accuracy (%) by question depth k" in text and "Effective question depth" in text
    assert "Pairwise comparison" in text and "alpha-model" in text
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 2  # accuracy, accuracy by task


@pytest.mark.slow
def test_select_alpha_notebook_reanalyses_a_written_run(demo_snapshot, tmp_path, monkeypatch):
    from graphniah.report.alpha import AlphaConfig, generate_in_degrees, select_alpha, snapshot_in_degree_histogram, write_alpha_report

    config = AlphaConfig(alphas=(0.1, 0.5), examples_per_task=3, depths=(4,), min_size=30, max_size=40, bootstrap=20, workers=1)
    sel = select_alpha(generate_in_degrees(demo_snapshot, config), snapshot_in_degree_histogram(demo_snapshot), config)
    write_alpha_report(sel, tmp_path / "alpha", figure=False)
    nb = execute("select_alpha.py", {"GRAPHNIAH_ALPHA_RUN": str(tmp_path / "alpha"), "GRAPHNIAH_ALPHA_BOOTSTRAP": "30"},
                 monkeypatch, tmp_path)
    text = outputs(nb)
    assert f"Selected α* = {sel.selected:g}" in text and "30 bootstrap replicates" in text
    assert any("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
