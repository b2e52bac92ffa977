"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Real S2AG records live beside the repository (in ../shared); they are never committed.
S2AG_SAMPLES = REPO.parent / "shared" / "fixtures" / "s2ag-samples"


@pytest.fixture(scope="session")
def s2ag_samples() -> Path:
    if not S2AG_SAMPLES.is_dir():
        pytest.skip(f"real S2AG samples not found at {S2AG_SAMPLES}")
    return S2AG_SAMPLES


@pytest.fixture(scope="session")
def demo_snapshot(tmp_path_factory: pytest.TempPathFactory):
    """The embedded default, built by the real refresh pipeline: demo releases -> store + diffs ->
    snapshot -> pruned sets -> path pools of 1,000 paths for depths 4, 8, 16, 32 (about a minute)."""
    import datetime as dt

    from graphniah.refresh import refresh

    root = tmp_path_factory.mktemp("snapshots")
    result = refresh(dt.date(2026, 4, 1), root, demo=True)
    return result.snapshot


@pytest.fixture(scope="session")
def demo_graph(demo_snapshot):
    """The demo snapshot's citation graph, loaded once for the session: every test module that samples
    from the demo builds its ``SamplingContext(demo_snapshot, demo_graph)`` around it (the graph is
    read-only; each context keeps its own masks, pools and corpora)."""
    from graphniah.graph.citation_graph import CitationGraph

    return CitationGraph.load(demo_snapshot)
