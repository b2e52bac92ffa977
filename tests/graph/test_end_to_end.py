"""End to end on a demo snapshot: demo release -> ingest -> prune / paths CLI -> pools for 4..32."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from typer.testing import CliRunner

from graphniah.atomic import read_json
from graphniah.cli import app
from graphniah.formats.snapshot import Snapshot
from graphniah.graph import CitationGraph, build_path_pools, load_pool, load_pruned
from graphniah.graph.store import pool_file
from graphniah.ingest.build import ingest_release
from graphniah.ingest.demo_release import write_demo_releases

DEPTHS = (4, 8, 16, 32)


@pytest.mark.slow
def test_demo_snapshot_pools_for_all_depths(tmp_path) -> None:
    rs = write_demo_releases(tmp_path / "release", papers=30_000, seed=3, releases=1)
    snap = Snapshot.open(ingest_release(rs.release_dir(rs.release_ids[-1]), dt.date(2026, 4, 1), tmp_path / "snap"))
    runner = CliRunner()
    res = runner.invoke(app, ["prune", "--snapshot", str(snap.path), "--depth", *map(str, DEPTHS)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["paths", "--snapshot", str(snap.path), "--depth", *map(str, DEPTHS), "--pool", "1000", "--seed", "5"])
    assert res.exit_code == 0, res.output

    g = CitationGraph.load(snap)
    a, b = g.undirected_edges
    edge_keys = a * g.n + b
    for depth in DEPTHS:
        length = 3 * depth - 2
        pool = load_pool(snap, depth)
        assert pool.paths.shape == (1000, length)
        v = g.vertex_of(pool.paths.reshape(-1)).reshape(pool.paths.shape)
        # simple: L distinct papers per path, consecutive papers cite one another
        srt = np.sort(v, axis=1)
        assert np.all(srt[:, 1:] != srt[:, :-1])
        lo, hi = np.minimum(v[:, :-1], v[:, 1:]), np.maximum(v[:, :-1], v[:, 1:])
        assert np.all(np.isin(lo * g.n + hi, edge_keys))
        # distinct up to reversal; per-paper cap; usable metadata; within the pruned set
        canon = np.where((v[:, 0] < v[:, -1])[:, None], v, v[:, ::-1])
        assert np.unique(canon, axis=0).shape[0] == 1000
        assert np.bincount(v.reshape(-1)).max() <= 100
        assert g.has_usable_metadata[v].all()
        assert np.isin(pool.paths, load_pruned(snap, depth)).all()
        m = read_json(pool_file(snap, depth).with_suffix(".json"))
        assert m["synthetic"] is True and m["snapshot_hash"] == snap.content_hash and m["seed"] == 5

    # Determinism: rebuilding one depth from scratch with the same seed gives the same pool.
    before = load_pool(snap, 16).paths
    [again] = build_path_pools(snap, [16], 1000, seed=5, graph=g, reuse=False)
    assert np.array_equal(again.pool.paths, before)
