"""The post-cutoff citation graph of a demo release looks like a real 6-month citation window.

The graph is rebuilt from the written files with the project's eligibility rule (complete date on
or after the cutoff, non-empty title without MathML/HTML markup; edges between eligible papers,
de-duplicated, no self-loops), so these tests check what downstream stages will actually see.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import igraph as ig
import numpy as np
import pytest

from graphniah.ingest.demo_release import write_demo_releases
from tests.ingest.demo_release.conftest import read_dataset

CUTOFF = "2026-04-01"
MARKUP = re.compile(r"<\s*/?\s*[A-Za-z][\w:.-]*[^>]*>")


def eligible_graph(release_dir: Path) -> ig.Graph:
    ids = {}
    for _, p in read_dataset(release_dir / "papers"):
        d, t = p["publicationdate"], (p["title"] or "").strip()
        if d and d >= CUTOFF and t and not MARKUP.search(t):
            ids[p["corpusid"]] = len(ids)
    edges = set()
    for _, c in read_dataset(release_dir / "citations"):
        a, b = ids.get(c["citingcorpusid"]), ids.get(c["citedcorpusid"])
        if a is not None and b is not None and a != b:
            edges.add((a, b))
    return ig.Graph(n=len(ids), edges=sorted(edges), directed=True)


@pytest.fixture(scope="module")
def graph20k(tmp_path_factory) -> ig.Graph:
    rs = write_demo_releases(tmp_path_factory.mktemp("g") / "d", papers=20_000, seed=11, releases=1)
    return eligible_graph(rs.release_dir(rs.release_ids[-1]))


def test_heavy_tailed_in_degree(graph20k):
    indeg = np.array(graph20k.indegree())
    mean = indeg.mean()
    assert 0.6 < mean < 1.3, mean  # sparse: most references leave the 6-month window
    assert indeg.max() >= 15 * mean
    # a Poisson in-degree with this mean would have P(>=10) ~ 1e-6; a power-law tail has far more
    assert (indeg >= 10).mean() > 0.005
    # the tail decays slowly: about a power law, not exponentially
    ccdf = lambda k: (indeg >= k).mean()
    assert ccdf(20) / ccdf(5) > 0.03


def test_giant_component_plus_many_small_ones(graph20k):
    u = graph20k.as_undirected()
    sizes = sorted(u.connected_components().sizes(), reverse=True)
    n = u.vcount()
    assert sizes[0] > 0.35 * n
    # the next ones are islands (closed communities of at most model.ISLAND_MAX papers), far below the giant
    assert sizes[1] < 0.1 * n and sizes[1] < sizes[0] / 5
    assert sum(1 for s in sizes[1:] if s >= 20) >= 5
    assert sum(1 for s in sizes if 2 <= s <= 20) >= 50
    assert sum(1 for s in sizes if s == 1) > 0.1 * n
    # locally tree-like: few triangles
    assert u.transitivity_undirected() < 0.05


def _induced_path(adj: list[set[int]], start: int, length: int, banned: set[int], rnd: random.Random, budget: int = 100_000) -> list[int] | None:
    """Randomised DFS for an *induced* simple path (no chords) avoiding ``banned`` and its neighbours."""
    if start in banned or adj[start] & banned:
        return None
    path, on = [start], {start}
    stack = [iter(rnd.sample(sorted(adj[start]), len(adj[start])))]
    steps = 0
    while stack and steps < budget:
        steps += 1
        w = next(stack[-1], None)
        if w is None:
            on.discard(path.pop())
            stack.pop()
            continue
        if w in on or w in banned or (adj[w] & banned) or len(adj[w] & on) != 1:
            continue
        path.append(w)
        on.add(w)
        if len(path) == length:
            return path
        stack.append(iter(rnd.sample(sorted(adj[w]), len(adj[w]))))
    return None


def _grow(adj: list[set[int]], paths: list[list[int]], size: int, rnd: random.Random) -> bool:
    """Grow every path into a tree of ``size`` papers by adding neighbours with no other edge into the example."""
    used = {v for p in paths for v in p}
    comps = [list(p) for p in paths]
    for comp in comps:
        tries = 0
        while len(comp) < size:
            tries += 1
            if tries > 50_000:
                return False
            v = comp[rnd.randrange(len(comp))]
            cands = [w for w in adj[v] if w not in used and len(adj[w] & used) == 1]
            if not cands:
                continue
            w = rnd.choice(cands)
            comp.append(w)
            used.add(w)
    return True


@pytest.mark.slow
def test_default_settings_can_be_sampled_at_100k_papers(tmp_path):
    """Depth 32 (94-paper paths), four disjoint components of 250 papers, on --papers 100000."""
    rs = write_demo_releases(tmp_path / "d", papers=100_000, seed=0, releases=1)
    g = eligible_graph(rs.release_dir(rs.release_ids[-1])).as_undirected().simplify()
    giant = g.connected_components().giant()
    assert giant.vcount() > 25_000
    adj = [set(a) for a in giant.get_adjlist()]
    rnd = random.Random(0)
    for _ in range(3):  # three independent examples
        paths: list[list[int]] = []
        attempts = 0
        while len(paths) < 4:
            attempts += 1
            assert attempts < 200, "could not find four disjoint induced 94-paper paths"
            banned = {v for p in paths for v in p}
            p = _induced_path(adj, rnd.randrange(len(adj)), 94, banned, rnd)
            if p is not None:
                paths.append(p)
        assert _grow(adj, paths, 250, rnd), "components could not be grown to 250 papers"
