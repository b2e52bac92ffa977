"""Pruning: the block-cut-tree bounds are sound (brute force over simple paths), and useful."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from graphniah.graph import CitationGraph, block_cut_bounds, prune
from graphniah.graph.prune import graph_blocks
from tests.graph.synthetic import SHAPES, edge_arrays, random_shape


def brute_force(g: nx.Graph) -> tuple[dict[int, int], dict[int, int]]:
    """Most papers of a simple path through / ending at each vertex, by enumerating all simple paths."""
    through = {v: 1 for v in g}
    end = {v: 1 for v in g}
    for s, t in itertools.combinations(g.nodes(), 2):
        for p in nx.all_simple_paths(g, s, t):
            k = len(p)
            for v in p:
                if through[v] < k:
                    through[v] = k
            end[s] = max(end[s], k)
            end[t] = max(end[t], k)
    return through, end


def citation_graph(g: nx.Graph) -> CitationGraph:
    citing, cited = edge_arrays(g)
    return CitationGraph.from_arrays(np.arange(g.number_of_nodes()) * 3 + 5, citing * 3 + 5, cited * 3 + 5)


def bounds(g: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    n = g.number_of_nodes()
    e = np.array([sorted(x) for x in g.edges()], dtype=np.int64).reshape(-1, 2)
    return block_cut_bounds(n, *graph_blocks(n, e[:, 0], e[:, 1]))


@pytest.mark.parametrize("shape", list(SHAPES))
def test_bounds_and_pruning_are_sound_against_brute_force(shape: str) -> None:
    """On 70 graphs per shape (560 in all): bounds >= the true maxima, and pruning keeps every
    paper that lies on a simple path of L papers, for L = 4, 7, 10, 13 (depths 2..5)."""
    slack = []
    for seed in range(70):
        rng = np.random.default_rng([list(SHAPES).index(shape), seed])
        g = random_shape(shape, rng)
        exact_through, exact_end = brute_force(g)
        through, end = bounds(g)
        for v in g:
            assert through[v] >= exact_through[v], (shape, seed, v, sorted(g.edges()))
            assert end[v] >= exact_end[v], (shape, seed, v, sorted(g.edges()))
            assert through[v] >= end[v]
            slack.append(through[v] - exact_through[v])
        cg = citation_graph(g)
        for depth in (2, 3, 4, 5):
            length = 3 * depth - 2
            result = prune(cg, depth)
            must_keep = np.array([exact_through[v] >= length for v in range(g.number_of_nodes())], dtype=bool)
            assert np.all(result.kept[must_keep]), (shape, seed, depth, sorted(g.edges()))
            # Kept papers are the fixed point: all their final bounds reach L, and the bounds
            # (updated only where components changed) equal those computed afresh on the result.
            assert np.all(result.path_bound[result.kept] >= length)
            assert np.all(result.path_bound[~result.kept] == 0)
            final = g.subgraph(np.flatnonzero(result.kept).tolist())
            fresh = nx.convert_node_labels_to_integers(final, label_attribute="v")
            t, e = bounds(fresh)
            back = np.array([fresh.nodes[i]["v"] for i in range(fresh.number_of_nodes())], dtype=np.int64)
            assert np.array_equal(result.path_bound[back], t) and np.array_equal(result.end_bound[back], e)
    # Sanity of the data: the shapes are not all trivially exact or trivially tiny.
    assert len(slack) > 300


def _block_graph(rng: np.random.Generator) -> nx.Graph:
    """Every block a clique or a bridge: longest paths use whole blocks, so the bound is exact."""
    g = nx.Graph()
    g.add_node(0)
    for _ in range(int(rng.integers(1, 6))):
        k = int(rng.integers(2, 5))
        at = int(rng.choice(list(g.nodes())))
        base = g.number_of_nodes()
        clique = [at, *range(base, base + k - 1)]
        g.add_edges_from(itertools.combinations(clique, 2))
    return g


@pytest.mark.parametrize("seed", range(40))
def test_bounds_are_exact_on_trees_and_block_graphs(seed: int) -> None:
    """Usefulness: where every block is a clique (trees included), no bound overshoots."""
    rng = np.random.default_rng(seed)
    for g in (SHAPES["tree"](rng), _block_graph(rng)):
        exact_through, exact_end = brute_force(g)
        through, end = bounds(g)
        assert [int(through[v]) for v in sorted(g)] == [exact_through[v] for v in sorted(g)]
        assert [int(end[v]) for v in sorted(g)] == [exact_end[v] for v in sorted(g)]


def test_long_chain_is_handled_without_deep_recursion() -> None:
    """A path of 200,000 papers: the block-cut tree is 400,000 nodes deep; bounds stay exact."""
    n = 200_000
    a = np.arange(n - 1, dtype=np.int64)
    through, end = block_cut_bounds(n, *graph_blocks(n, a, a + 1))
    assert np.all(through == n)
    assert np.all(end == np.maximum(np.arange(n) + 1, n - np.arange(n)))


def test_pruning_removes_what_cannot_be_on_a_path_and_counts_each_rule() -> None:
    """A 13-cycle with short branches (19 papers), a 12-paper path (too small a component for
    depth 5, L = 13), a 5-clique, and a 21-paper star (big enough, but no path through a star has
    more than 3 papers): the counts per round say which rule removed what."""
    core = nx.cycle_graph(13)
    core.add_edges_from([(0, 13), (13, 14), (1, 15), (2, 16), (16, 17), (16, 18)])
    g = nx.disjoint_union(nx.disjoint_union(core, nx.path_graph(12)), nx.complete_graph(5))
    result = prune(citation_graph(g), 5)
    assert result.kept[:19].all() and not result.kept[19:].any()
    # the core's papers all lie on a 13-paper path
    assert (result.removed_small_components, result.removed_by_bound) == (17, 0)
    assert result.summary()["papers_kept"] == 19

    with_star = nx.disjoint_union(g, nx.star_graph(20))
    result = prune(citation_graph(with_star), 5)
    assert result.kept[:19].all() and not result.kept[19:].any()
    assert (result.removed_small_components, result.removed_by_bound) == (17, 21)
    summary = result.summary()
    assert (summary["papers_in"], summary["removed_small_components"], summary["removed_by_bound"]) == (57, 17, 21)

    # Depth 6 (L = 16): a path must run round the cycle and out along two branches; the bound is
    # exact on this cactus, so exactly the papers of such paths stay.
    exact, _ = brute_force(core)
    result6 = prune(citation_graph(with_star), 6)
    must = np.array([exact.get(v, 0) >= 16 for v in range(with_star.number_of_nodes())])
    assert result6.kept.tolist() == must.tolist()
    # Depth 7 (L = 19): the core has 19 papers, so only the bound (2 + 13 + 2 = 17) removes it.
    result7 = prune(citation_graph(with_star), 7)
    assert result7.n_kept == 0
    assert result7.removed_by_bound == 19 + 21


def test_unusable_papers_are_excluded_before_pruning() -> None:
    """A paper without usable metadata never enters a path, so pruning starts without it."""
    g = nx.path_graph(10)
    citing, cited = edge_arrays(g)
    usable = np.ones(10, dtype=bool)
    usable[5] = False
    cg = CitationGraph.from_arrays(np.arange(10), citing, cited, usable)
    assert prune(cg, 3).n_kept == 0  # 0..4 and 6..9: at most 5 papers < 7
    assert prune(cg, 2).kept.tolist() == [True] * 5 + [False] + [True] * 4
    everything = prune(cg, 3, allowed=np.ones(10, dtype=bool))
    assert everything.n_kept == 10


# --------------------------------------------------------------------------------------------
# One pass is the fixed point (the theorem of docs/pruning.md), checked by brute force
# --------------------------------------------------------------------------------------------


def _bounds_on(g: nx.Graph, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Through and end bounds of the subgraph induced on ``vertices``, indexed by g's vertices (0 elsewhere)."""
    n = g.number_of_nodes()
    sub = nx.convert_node_labels_to_integers(g.subgraph(vertices.tolist()), label_attribute="v")
    t, e = bounds(sub) if sub.number_of_nodes() else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    back = np.array([sub.nodes[i]["v"] for i in range(sub.number_of_nodes())], dtype=np.int64)
    through, end = np.zeros(n, np.int64), np.zeros(n, np.int64)
    through[back], end[back] = t, e
    return through, end


def _one_pass_is_a_fixed_point(g: nx.Graph) -> int:
    """For every path length L = 2..n: one pass (drop components < L, then papers with bound < L)
    leaves components of >= L papers whose bounds, computed afresh, are the bounds the pass saw.
    Returns how many L removed papers by the bound, i.e. how often a second round *could* have
    mattered. Bounds never span components, so one computation on g serves every L."""
    g = nx.convert_node_labels_to_integers(g)
    n = g.number_of_nodes()
    size = np.zeros(n, np.int64)
    for comp in nx.connected_components(g):
        size[list(comp)] = len(comp)
    through, end = bounds(g)
    assert np.all(through <= size)  # why the component rule is only a cheap pre-filter
    removing = 0
    seen: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    for length in range(2, n + 1):
        kept = (size >= length) & (through >= length)
        removing += bool(np.any((size >= length) & ~kept))
        key = kept.tobytes()
        if key not in seen:
            seen[key] = _bounds_on(g, np.flatnonzero(kept))
        t1, e1 = seen[key]
        after = g.subgraph(np.flatnonzero(kept).tolist())
        assert all(len(c) >= length for c in nx.connected_components(after)), (sorted(g.edges()), length)
        assert np.array_equal(t1[kept], through[kept]), (sorted(g.edges()), length)
        assert np.array_equal(e1[kept], end[kept]), (sorted(g.edges()), length)
        assert np.all(t1[kept] >= length)
    return removing


def test_one_pass_is_a_fixed_point_on_every_graph_with_at_most_seven_vertices() -> None:
    """All 1,252 graphs of networkx's atlas (every graph on 1-7 vertices up to isomorphism), every L."""
    graphs = nx.graph_atlas_g()[1:]
    assert len(graphs) == 1252
    removing = sum(_one_pass_is_a_fixed_point(g) for g in graphs)
    assert removing > 150  # the bound does remove papers in many of these cases: the check is not vacuous


@pytest.mark.parametrize("shape", list(SHAPES))
def test_one_pass_is_a_fixed_point_on_random_graphs(shape: str) -> None:
    removing = 0
    for seed in range(60):
        removing += _one_pass_is_a_fixed_point(random_shape(shape, np.random.default_rng([97, seed])))
    assert removing > 0  # in every shape some L makes the bound remove papers


def test_a_pruned_graph_is_pruned_again_to_itself() -> None:
    """prune on its own result removes nothing and returns the same bounds (what ``prune_snapshot``
    relies on when it resumes from a stored pruned set)."""
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(40):
        g = nx.disjoint_union(random_shape("blocks", rng), random_shape("cactus", rng))
        cg = citation_graph(g)
        for depth in (2, 3, 4):
            first = prune(cg, depth)
            again = prune(cg, depth, allowed=first.kept)
            assert np.array_equal(again.kept, first.kept)
            assert np.array_equal(again.path_bound, first.path_bound) and np.array_equal(again.end_bound, first.end_bound)
            assert (again.removed_small_components, again.removed_by_bound) == (0, 0)
            checked += first.removed_by_bound > 0
    assert checked > 0
