"""The demo generator's calibration statistics hit their targets (graphniah.ingest.demo_release.calibration).

Reference-list statistics come from a generated world (no files); graph statistics from a release
that is written, ingested by the real ingest and loaded as the pipeline loads it, so they are what
select-alpha and pruning see.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.measures import graph_statistics
from graphniah.ingest.build import ingest_release
from graphniah.ingest.demo_release import world as Mo
from graphniah.ingest.demo_release import write_demo_releases
from graphniah.ingest.demo_release.calibration import TARGETS, Target, check, reference_statistics
from graphniah.ingest.demo_release.records import make_timeline

CUTOFF = dt.date(2026, 4, 1)


@pytest.fixture(scope="module")
def graph_stats(tmp_path_factory) -> dict[str, float]:
    root = tmp_path_factory.mktemp("calib")
    rs = write_demo_releases(root / "rel", papers=60_000, seed=3, releases=1)
    ingest_release(rs.release_dir(rs.release_ids[-1]), CUTOFF, root / "snap")
    return graph_statistics(CitationGraph.load(Snapshot.open(root / "snap")))


def test_every_target_has_a_source_and_a_range():
    names = [t.name for t in TARGETS]
    assert len(names) == len(set(names))
    for t in TARGETS:
        assert t.low <= t.high and len(t.source) > 20, t


def test_check_reports_misses_only():
    t = (Target("x", 0.0, 1.0, "a source long enough to say where it came from"),)
    assert check({"x": 0.5}, t) == []
    assert check({"y": 7.0}, t) == []  # not measured: not judged
    miss = check({"x": 1.5}, t)
    assert len(miss) == 1 and miss[0].startswith("x = 1.5 outside [0, 1]")


def test_reference_lists_match_the_real_sample():
    tl = make_timeline(dt.date(2026, 10, 6), 2)
    world = Mo.build_world(np.random.default_rng(5), 20_000, tl)
    stats = reference_statistics(world)
    names = {t.name for t in TARGETS}
    assert set(stats) <= names
    assert check(stats) == []


@pytest.mark.slow
def test_graph_statistics_hit_their_targets(graph_stats):
    assert check(graph_stats) == [], graph_stats
    # every graph target was measured
    measured = {t.name for t in TARGETS if t.name in graph_stats}
    assert measured >= {"in_degree_1", "in_degree_10_plus", "giant_share", "bound_removed_depth_32"}


@pytest.mark.slow
def test_bound_removes_papers_beyond_small_components(graph_stats):
    """The reason for the islands: pruning's biconnected bound has work to do at every depth from 8 on."""
    for k in (8, 16, 32):
        assert graph_stats[f"bound_removed_depth_{k}"] >= 10, (k, graph_stats)
