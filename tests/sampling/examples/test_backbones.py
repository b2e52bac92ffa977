"""Backbone draws: compatible paths only, uniform over compatible tuples, conflict matrix exact."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.graph.citation_graph import CitationGraph
from graphniah.sampling.examples.backbones import PoolIndex


def _graph() -> CitationGraph:
    # a long citation chain 0-1-2-...-39 plus a few cross edges
    citing = list(range(1, 40)) + [20, 33]
    cited = list(range(39)) + [5, 12]
    return CitationGraph.from_arrays(np.arange(40), np.asarray(citing), np.asarray(cited))


def _brute_conflict(g: CitationGraph, paths: np.ndarray, title) -> np.ndarray:
    n = len(paths)
    out = np.zeros((n, n), dtype=bool)
    for i, j in itertools.product(range(n), repeat=2):
        a, b = set(paths[i].tolist()), set(paths[j].tolist())
        edge = any(int(u) in b for v in a for u in g.neighbors(v))
        out[i, j] = i == j or bool(a & b) or edge or bool({title(v) for v in a} & {title(v) for v in b})
    return out


def test_conflict_matrix_matches_brute_force() -> None:
    g = _graph()
    paths = np.asarray([[0, 1, 2], [3, 4, 5], [7, 8, 9], [11, 12, 13], [18, 19, 20], [25, 26, 27], [30, 31, 32], [34, 35, 36]])
    title = lambda v: v if v != 36 else 0  # path 7 shares a title with path 0
    idx = PoolIndex.build(paths, g.neighbor_csr, g.n, title)
    assert np.array_equal(idx.conflict, _brute_conflict(g, paths, title))


def test_draws_are_compatible_and_uniform() -> None:
    g = _graph()
    paths = np.asarray([[0, 1, 2], [3, 4, 5], [7, 8, 9], [11, 12, 13], [15, 16, 17], [25, 26, 27]])
    idx = PoolIndex.build(paths, g.neighbor_csr, g.n, int)
    compatible = [t for t in itertools.permutations(range(len(paths)), 2) if not idx.conflict[t[0], t[1]]]
    rng = np.random.default_rng(0)
    counts = Counter(tuple(idx.draw(2, rng).tolist()) for _ in range(6000))
    assert set(counts) == set(compatible)
    expected = 6000 / len(compatible)
    assert all(abs(c - expected) < 5 * np.sqrt(expected) for c in counts.values())


def test_impossible_draw_is_a_clear_error() -> None:
    g = _graph()
    paths = np.asarray([[0, 1, 2], [2, 3, 4]])  # share paper 2
    idx = PoolIndex.build(paths, g.neighbor_csr, g.n, int)
    with pytest.raises(GraphNIAHError, match="overlap too much"):
        idx.draw(2, np.random.default_rng(0))
    with pytest.raises(GraphNIAHError, match="4 disjoint"):
        idx.draw(4, np.random.default_rng(0))


def test_rare_tuples_fall_back_to_exact_enumeration() -> None:
    """Among 200 mutually conflicting paths sit 4 compatible ones: rejection cannot find them, enumeration does."""
    n = 200
    conflict = np.ones((n, n), dtype=bool)
    good = [7, 50, 120, 199]
    for a in good:
        for b in good:
            conflict[a, b] = a == b
    idx = PoolIndex(np.zeros((n, 3), dtype=np.int64), conflict)
    rng = np.random.default_rng(3)
    draws = [tuple(idx.draw(4, rng).tolist()) for _ in range(48)]
    assert all(sorted(d) == good for d in draws)
    assert len(set(draws)) > 10  # the order is random too
    assert list(idx.compatible_with(np.array([7, 50]))) == [120, 199]
