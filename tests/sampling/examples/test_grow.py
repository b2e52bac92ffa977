"""Component growth: the snapshot induces exactly the sampled forest (checked by brute force)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from graphniah.graph.citation_graph import CitationGraph
from graphniah.sampling.examples.grow import GrowthStats, backbone_edges, grow_components, paths_compatible


def _random_citation_graph(n: int, m: int, rng: np.random.Generator) -> CitationGraph:
    """A sparse random citation DAG (each paper cites earlier ones, preferentially popular ones)."""
    citing, cited = [], []
    indeg = np.ones(n)
    for v in range(1, n):
        k = min(v, int(rng.integers(1, m + 1)))
        p = indeg[:v] / indeg[:v].sum()
        for u in np.unique(rng.choice(v, size=k, p=p)):
            citing.append(v)
            cited.append(int(u))
            indeg[u] += 1
    return CitationGraph.from_arrays(np.arange(n) * 7 + 3, np.asarray(citing) * 7 + 3, np.asarray(cited) * 7 + 3)


def _induced_edges(g: CitationGraph, vertices: set[int]) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in zip(g.citing, g.cited, strict=True) if int(a) in vertices and int(b) in vertices}


def _find_induced_path(g: CitationGraph, length: int, rng: np.random.Generator, avoid: set[int]) -> np.ndarray | None:
    """A chordless path by random walk (test helper; the real pools come from graphniah.graph)."""
    for _ in range(2000):
        v = int(rng.integers(g.n))
        if v in avoid:
            continue
        path = [v]
        while len(path) < length:
            nb = [int(u) for u in g.neighbors(path[-1]) if int(u) not in path and int(u) not in avoid]
            rng.shuffle(nb)
            for u in nb:
                # chordless: u touches only the current end of the path
                if not any(int(w) in path[:-1] for w in g.neighbors(u)):
                    path.append(u)
                    break
            else:
                break
        if len(path) == length:
            return np.asarray(path)
    return None


@pytest.mark.parametrize("seed", range(12))
def test_grown_forest_is_exactly_induced(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = _random_citation_graph(3000, 4, rng)
    depth = int(rng.choice([2, 3, 4]))
    L = 3 * depth - 2
    n_comp = int(rng.choice([2, 4]))
    paths: list[np.ndarray] = []
    used: set[int] = set()
    for _ in range(n_comp):
        p = _find_induced_path(g, L, rng, used)
        assert p is not None
        paths.append(p)
        used |= set(p.tolist())
        for v in p:
            used |= set(g.neighbors(int(v)).tolist())  # keep paths edge-free from each other
    titles = int
    mask = np.zeros(g.n, dtype=bool)
    assert paths_compatible(g, paths, titles, mask) is None
    size = L + int(rng.integers(5, 40))
    stats = GrowthStats()
    comps = grow_components(g, paths, depth, size, float(rng.choice([0.1, 1.0])), rng, titles, mask, stats)
    assert not mask.any(), "scratch mask must be clean on return"
    if comps is None:
        assert stats.rejects["stuck_component"] == 1
        return
    all_v = [v for c in comps for v in c.order]
    assert len(all_v) == len(set(all_v)) == n_comp * size
    forest = {e for c in comps for e in c.edges}
    assert _induced_edges(g, set(all_v)) == forest
    for c, p in zip(comps, paths, strict=True):
        t = nx.Graph(list(c.edges))
        assert t.number_of_nodes() == size and nx.is_tree(t)
        assert c.source == p[depth - 1] and c.target == p[2 * depth - 2]
        assert list(c.order[:L]) == p.tolist()
        assert nx.shortest_path_length(t, c.source, c.target) == depth - 1


def test_growth_is_deterministic_and_alpha_shapes_degrees() -> None:
    g = _random_citation_graph(4000, 5, np.random.default_rng(0))
    p = _find_induced_path(g, 4, np.random.default_rng(1), set())
    titles = int
    mask = np.zeros(g.n, dtype=bool)

    def grow(alpha: float, seed: int):
        return grow_components(g, [p], 2, 120, alpha, np.random.default_rng(seed), titles, mask)

    assert grow(0.1, 5) == grow(0.1, 5)
    # Small alpha favours papers that already have children: the maximum child count grows.
    def max_children(alpha: float) -> float:
        out = []
        for s in range(8):
            comp = grow(alpha, s)
            assert comp is not None
            deg = nx.Graph(list(comp[0].edges)).degree()
            out.append(max(d for _, d in deg))
        return float(np.mean(out))

    assert max_children(0.05) > max_children(5.0)


def test_backbone_rejects_chords_and_non_edges() -> None:
    g = CitationGraph.from_arrays(np.arange(5), np.array([1, 2, 3, 3]), np.array([0, 1, 2, 1]))
    assert backbone_edges(g, [0, 1, 2]) == [(1, 0), (2, 1)]
    assert backbone_edges(g, [0, 2]) is None
    mask = np.zeros(5, dtype=bool)
    titles = int
    assert paths_compatible(g, [np.array([1, 2, 3])], titles, mask) == "induced_edge"  # chord 3->1
    assert paths_compatible(g, [np.array([0, 1]), np.array([2, 4])], titles, mask) == "induced_edge"
    assert paths_compatible(g, [np.array([0, 1]), np.array([1, 4])], titles, mask) == "shared_paper"
    assert paths_compatible(g, [np.array([0, 1])], lambda v: min(v, 1) // 2, mask) == "shared_title"
