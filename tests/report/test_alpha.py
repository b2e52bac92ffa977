"""select-alpha (appendix B): KL divergence, in-degrees, the planted α, determinism, outputs."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pyarrow.parquet as pq
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

from graphniah.errors import GraphNIAHError
from graphniah.report.alpha import (
    AlphaConfig,
    example_spec,
    forest_in_degrees,
    generate_in_degrees,
    in_degree_histogram,
    kl_divergence,
    select_alpha,
    snapshot_in_degree_histogram,
    task_seed,
    write_alpha_report,
)

SMALL = dict(depths=(4,), min_size=30, max_size=60)


def test_in_degree_histogram_counts_papers_by_times_cited():
    # paper 7 cited 3 times, 8 twice, 9 once
    h = in_degree_histogram(np.array([7, 8, 7, 9, 8, 7]))
    assert h.tolist() == [0, 1, 1, 1]
    assert in_degree_histogram(np.array([], dtype=np.int64)).tolist() == [0]


def test_kl_divergence_matches_scipy_entropy_on_random_histograms():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.integers(0, 50, size=30) * (rng.random(30) < 0.6)
        q = rng.integers(0, 50, size=30) * (rng.random(30) < 0.6)
        p[1] += 1
        q[2] += 1
        support = np.flatnonzero(((p > 0) | (q > 0)) & (np.arange(30) >= 1))
        eps, m = 1e-8, support.size
        pt = (1 - eps) * p[support] / p[1:].sum() + eps / m
        qt = (1 - eps) * q[support] / q[1:].sum() + eps / m
        assert kl_divergence(p, q, support, eps) == pytest.approx(sps.entropy(pt, qt), rel=1e-12)
    # Degree 0 never enters (only degrees >= 1 are compared), and rows are independent distributions.
    p2 = np.array([[1000, 5, 5], [0, 5, 5]])
    q2 = np.array([0, 1, 1])
    assert kl_divergence(p2, q2, np.array([1, 2])) == pytest.approx([0.0, 0.0], abs=1e-12)


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph):
    from graphniah.sampling.examples.spec import SamplingContext

    return SamplingContext(demo_snapshot, demo_graph)


def test_snapshot_histogram_is_the_in_degree_distribution_of_edges(demo_snapshot):
    cited = pq.read_table(demo_snapshot.edges_path).column("cited").to_pylist()
    expected = Counter(Counter(cited).values())
    h = snapshot_in_degree_histogram(demo_snapshot)
    assert {a: int(c) for a, c in enumerate(h) if c} == dict(expected)


def test_forests_are_those_build_example_grows(ctx):
    """Skipping rendering and verification does not change the forests (first attempt replayed)."""
    from graphniah.sampling.examples.sample import build_example

    config = AlphaConfig(alphas=(0.3,), examples_per_task=2, seed=5, workers=1, **SMALL)
    for task in ("yesno", "mc", "count"):
        for i in range(2):
            spec = example_spec(config, task, i, 0.3)
            ex = build_example(ctx, spec, task_seed(config.seed, task), i)
            fast = forest_in_degrees(ctx, spec, task_seed(config.seed, task), i)
            full = in_degree_histogram(np.array([b for _, b in ex.edges]))
            assert fast.tolist() == full.tolist()
            assert int((fast * np.arange(fast.size)).sum()) == len(ex.edges)  # every edge counted once


@pytest.fixture(scope="module")
def candidates(demo_snapshot, ctx):
    config = AlphaConfig(alphas=(0.1, 0.4, 1.0), examples_per_task=30, bootstrap=200, workers=1, **SMALL)
    return config, generate_in_degrees(demo_snapshot, config, ctx=ctx)


@pytest.mark.parametrize("planted", [0.1, 0.4, 1.0])
def test_selection_recovers_the_planted_alpha(demo_snapshot, ctx, candidates, planted):
    """A "true" distribution generated with α0 (other seed, more examples) is matched best by α0."""
    config, generated = candidates
    truth_cfg = AlphaConfig(alphas=(planted,), examples_per_task=60, bootstrap=0, workers=1, seed=99, **SMALL)
    truth = generate_in_degrees(demo_snapshot, truth_cfg, ctx=ctx).pooled().sum(axis=(0, 1))
    sel = select_alpha(generated, truth, config)
    assert sel.selected == planted
    assert sel.frequency[config.alphas.index(planted)] > 0.5 and sel.frequency.sum() == pytest.approx(1.0)
    assert sel.mean_kl == pytest.approx(sel.kl.mean(axis=1))
    assert sel.examples.tolist() == [[config.examples_per_task] * 3] * 3


def test_bootstrap_is_seeded_and_intervals_bracket_the_replicates(candidates):
    config, generated = candidates
    ref = generated.pooled()[1].sum(axis=0)
    a = select_alpha(generated, ref, config)
    b = select_alpha(generated, ref, config)
    assert np.array_equal(a.ci_low, b.ci_low) and np.array_equal(a.frequency, b.frequency)
    c = select_alpha(generated, ref, config, rng=np.random.default_rng(123))
    assert not np.array_equal(a.ci_low, c.ci_low)
    assert np.all(a.ci_low <= a.ci_high)


@pytest.mark.slow
def test_processes_give_the_same_histograms_as_one(demo_snapshot, ctx):
    one = AlphaConfig(alphas=(0.2, 0.8), tasks=("yesno", "mc"), examples_per_task=4, chunk=3, workers=1, **SMALL)
    two = AlphaConfig(alphas=(0.2, 0.8), tasks=("yesno", "mc"), examples_per_task=4, chunk=1, workers=2, **SMALL)
    g1 = generate_in_degrees(demo_snapshot, one, ctx=ctx)
    g2 = generate_in_degrees(demo_snapshot, two)
    for r1, r2 in zip(g1.counts, g2.counts, strict=True):
        for m1, m2 in zip(r1, r2, strict=True):
            assert np.array_equal(m1, m2)


def test_report_files_and_cli(demo_snapshot, tmp_path, candidates):
    config, generated = candidates
    sel = select_alpha(generated, snapshot_in_degree_histogram(demo_snapshot), config)
    out = write_alpha_report(sel, tmp_path / "alpha")
    data = json.loads((out / "alpha.json").read_text())
    assert data["selected"] == sel.selected and len(data["rows"]) == 3
    assert (out / "alpha.png").read_bytes().startswith(b"\x89PNG") and b"<svg" in (out / "alpha.svg").read_bytes()[:400]
    assert (out / "alpha.md").read_text().count("\n| ") == 3  # one row per α after the header
    from graphniah.cli import app

    res = CliRunner().invoke(app, ["select-alpha", "--snapshot", str(demo_snapshot.path), "--out", str(tmp_path / "cli"),
                                   "--examples-per-task", "2", "--alphas", "0.1,0.9", "--depths", "4", "--min-size", "30",
                                   "--max-size", "40", "--bootstrap", "20", "--workers", "1"])
    assert res.exit_code == 0, res.output
    rows = json.loads((tmp_path / "cli" / "alpha.json").read_text())["rows"]
    assert [r["alpha"] for r in rows] == [0.1, 0.9] and sum(r["selected"] for r in rows) == 1


def test_config_errors():
    with pytest.raises(GraphNIAHError, match="alphas"):
        AlphaConfig(alphas=(0.1, 0.1))
    with pytest.raises(GraphNIAHError, match="backbone"):
        AlphaConfig(depths=(32,), min_size=10, max_size=50)
