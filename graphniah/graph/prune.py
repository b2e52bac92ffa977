"""Pruning: remove the papers that cannot lie on a simple path of ``L = 3k - 2`` papers.

Path sampling (``graph/paths.py``) and the pool store (``graph/store.py``) prune a snapshot graph
per question depth before they look for backbone paths; ``PruneResult`` also keeps each paper's
bounds, which the sampler uses to choose start papers.

Notes
-----
Longest simple path is NP-hard, so pruning keeps the papers whose upper bound reaches ``L``, in
one pass over the graph induced on the allowed papers: components of fewer than ``L`` papers go,
then every paper whose block-cut-tree bound (``block_cut_bounds``) is below ``L``. No paper of an
``L``-path is removed, and one pass is the fixed point: the pruned graph's bounds are the pass's.
Both proofs, and what each rule removes on the demo snapshot, are in ``docs/pruning.md``;
``tests/graph/test_prune.py`` checks them by brute force.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse import csgraph

from graphniah.graph.citation_graph import CitationGraph

_NEG = np.iinfo(np.int64).min // 4


def path_length(depth: int) -> int:
    """Papers on the backbone path of question depth ``k``: ``3k - 2``."""
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    return 3 * depth - 2


def _top2(
    keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64], size: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per key in ``0..size-1``: largest value, second largest (ties count twice), index of the largest.

    Missing values are 0 (all values here are non-negative arm lengths, and an absent arm is an
    arm of length 0). The index is into ``keys``/``values``; -1 where a key has no value.
    """
    top1 = np.zeros(size, dtype=np.int64)
    top2 = np.zeros(size, dtype=np.int64)
    arg = np.full(size, -1, dtype=np.int64)
    if keys.size == 0:
        return top1, top2, arg
    order = np.lexsort((-values, keys))
    sk, sv = keys[order], values[order]
    first = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    top1[sk[first]] = sv[first]
    arg[sk[first]] = order[first]
    nxt = first + 1
    has2 = nxt < sk.size
    has2[has2] = sk[nxt[has2]] == sk[first[has2]]
    top2[sk[first[has2]]] = sv[nxt[has2]]
    return top1, top2, arg


def _pointer_jump(parent: npt.NDArray[np.int64], sentinel: int, step: Callable[[npt.NDArray[np.int64]], None]) -> None:
    """Call ``step(anc)`` with ``anc`` = the 2^j-th ancestors for j = 0, 1, ... until all hit ``sentinel``.

    O(N log depth) vectorised work, independent of the tree's shape (a long chain costs ~20
    rounds, not a million Python iterations).
    """
    anc = parent.copy()
    while np.any(anc[:sentinel] != sentinel):
        step(anc)
        anc = anc[anc]


def block_cut_bounds(n: int, block_sizes: npt.ArrayLike, block_members: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Upper bounds from the block-cut tree: papers on a simple path through / ending at each vertex.

    Parameters
    ----------
    n : int
        Number of vertices (ids ``0..n-1``).
    block_sizes : array_like of int
        Number of vertices of each block; blocks are the biconnected components, bridges (size 2)
        included.
    block_members : array_like of int
        The vertices of block 0, then those of block 1, ... (``block_sizes[i]`` of them each): the
        flat layout ``graph_blocks`` returns.

    Returns
    -------
    through, end : ndarray of int64, shape (n,)
        ``through[v]`` is at least the number of vertices of any simple path containing ``v``,
        ``end[v]`` at least that of any simple path with ``v`` as an end. Vertices in no block are
        isolated: both bounds are 1.

    Notes
    -----
    The block-cut tree has a node per block ``B`` (weight ``|B| - 1``) and per cut vertex (weight
    0); a simple path's blocks form a path of that tree, so its length is bounded by the heaviest
    tree paths through (or from) a vertex's node. The definitions, the soundness proof and the
    vectorised computation (pointer jumping, ``O((n + blocks) log depth)``) are in
    ``docs/pruning.md``.
    """
    sizes = np.asarray(block_sizes, dtype=np.int64)
    members = np.asarray(block_members, dtype=np.int64)
    b = sizes.size
    through_v = np.ones(n, dtype=np.int64)
    end_v = np.ones(n, dtype=np.int64)
    if b == 0:
        return through_v, end_v
    bid = np.repeat(np.arange(b, dtype=np.int64), sizes)
    is_cut = np.bincount(members, minlength=n) >= 2
    cut_ids = np.flatnonzero(is_cut)
    node_of_cut = np.full(n, -1, dtype=np.int64)
    node_of_cut[cut_ids] = b + np.arange(cut_ids.size)
    N = b + cut_ids.size  # tree nodes: blocks 0..b-1, cuts b..N-1; N is the super-root / sentinel
    sel = is_cut[members]
    te_b, te_c = bid[sel], node_of_cut[members[sel]]  # block-cut tree edges

    w = np.zeros(N + 1, dtype=np.int64)
    w[:b] = sizes - 1
    parent = _root_forest(te_b, te_c, b, N)
    nr, par, down, up = _arms(parent, w, N)

    n_top1, n_top2, _ = _top2(np.concatenate([par, nr]), np.concatenate([down[nr], up[nr]]), N + 1)
    through_b = sizes + n_top1[:b] + n_top2[:b]
    end_b = sizes + n_top1[:b]

    plain = ~sel
    through_v[members[plain]] = through_b[bid[plain]]
    end_v[members[plain]] = end_b[bid[plain]]
    through_c = np.zeros(N + 1, dtype=np.int64)
    np.maximum.at(through_c, te_c, through_b[te_b])
    through_v[cut_ids] = through_c[b:N]
    end_v[cut_ids] = 1 + n_top1[b:N]
    return through_v, end_v


def _root_forest(te_b: npt.NDArray[np.int64], te_c: npt.NDArray[np.int64], b: int, N: int) -> npt.NDArray[np.int64]:
    """Parent of every node of the block-cut forest (edges ``te_b[i]–te_c[i]``), each tree rooted at its
    first block and hanging from the super-root ``N`` (its own parent)."""
    tree = sp.coo_matrix((np.ones(te_b.size, np.int8), (te_b, te_c)), shape=(N, N)).tocsr()
    _, label = csgraph.connected_components(tree, directed=False)
    _, roots = np.unique(label[:b], return_index=True)
    rows = np.concatenate([te_b, np.full(roots.size, N)])
    cols = np.concatenate([te_c, roots])
    full = sp.coo_matrix((np.ones(rows.size, np.int8), (rows, cols)), shape=(N + 1, N + 1)).tocsr()
    _, pred = csgraph.breadth_first_order(full, N, directed=False, return_predecessors=True)
    parent: npt.NDArray[np.int64] = pred.astype(np.int64)  # scipy is untyped: name the type at our boundary
    parent[N] = N
    return parent


def _arms(
    parent: npt.NDArray[np.int64], w: npt.NDArray[np.int64], N: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The heaviest arms of the rooted forest: ``(nr, par, down, up)`` with ``nr`` the non-root nodes,
    ``par`` their parents, ``down[x]`` = F(parent -> x) and ``up[x]`` = F(x -> parent) (defined in
    docs/pruning.md), both indexed by node."""
    # D(x): weight of the root..x path (inclusive); the super-root weighs 0.
    depth_w = w.copy()

    def add_ancestor(anc: npt.NDArray[np.int64]) -> None:
        depth_w[:] = depth_w + depth_w[anc]

    _pointer_jump(parent, N, add_ancestor)

    # M(x): max of D over x's subtree (D grows downwards since weights are >= 0).
    sub_max = depth_w.copy()

    def push_up(anc: npt.NDArray[np.int64]) -> None:
        live = np.flatnonzero(anc != N)
        new = sub_max.copy()
        np.maximum.at(new, anc[live], sub_max[live])
        sub_max[:] = new

    _pointer_jump(parent, N, push_up)

    nr = np.flatnonzero(parent[:N] != N)  # non-root tree nodes
    par = parent[nr]
    down = np.zeros(N + 1, dtype=np.int64)
    down[nr] = sub_max[nr] - depth_w[par]  # F(parent -> x)

    c_top1, c_top2, c_arg = _top2(par, down[nr], N + 1)
    best_child = np.full(N + 1, -1, dtype=np.int64)
    has_child = c_arg >= 0
    best_child[has_child] = nr[c_arg[has_child]]
    sibling = np.where(best_child[par] == nr, c_top2[par], c_top1[par])
    chain = np.full(N + 1, _NEG, dtype=np.int64)
    chain[nr] = w[par] + sibling - depth_w[par]

    def chain_max(anc: npt.NDArray[np.int64]) -> None:
        chain[:] = np.maximum(chain, chain[anc])

    _pointer_jump(parent, N, chain_max)
    up = np.zeros(N + 1, dtype=np.int64)
    up[nr] = depth_w[par] + chain[nr]  # F(x -> parent)
    return nr, par, down, up


def graph_blocks(n: int, a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Biconnected components (igraph) of the simple undirected graph with edges ``a[i]–b[i]``.

    Parameters
    ----------
    n : int
        Number of vertices (ids ``0..n-1``).
    a, b : array_like of int
        The two ends of each edge.

    Returns
    -------
    block_sizes, block_members : ndarray of int64
        The blocks in the flat layout ``block_cut_bounds`` takes.

    Notes
    -----
    igraph's C routine reports each block as the edge ids of a spanning tree of it; the vertex sets
    are the endpoints of those edges, taken here with numpy (igraph's Python wrapper does it with
    sets).
    """
    # igraph is imported here, not with the module: importing it imports matplotlib.pyplot (most of a
    # second), which the commands that only read the stored pools and pruned sets (build) never use.
    import igraph as ig
    from igraph._igraph import GraphBase

    ea = np.asarray(a, dtype=np.int64)
    eb = np.asarray(b, dtype=np.int64)
    g = ig.Graph(n=n, edges=np.ascontiguousarray(np.column_stack([ea, eb])).data)
    trees = GraphBase.biconnected_components(g, False)
    counts = np.fromiter(map(len, trees), dtype=np.int64, count=len(trees))
    edge_ids = np.fromiter(itertools.chain.from_iterable(trees), dtype=np.int64, count=int(counts.sum()))
    block = np.repeat(np.arange(len(trees), dtype=np.int64), counts)
    key = np.unique(np.concatenate([block * n + ea[edge_ids], block * n + eb[edge_ids]]))
    members = key % n
    sizes = np.bincount(key // n, minlength=len(trees)).astype(np.int64)
    return sizes, members


@dataclass(frozen=True, eq=False)
class PruneResult:
    """Pruning for one depth, over the vertices of a ``CitationGraph`` (a fixed point: see ``prune``).

    ``kept``, ``path_bound`` and ``end_bound`` are per-vertex arrays; the bounds are those of the
    pruned graph and 0 for removed papers. ``end_bound[v] >= L`` is the sound test for "``v`` can
    end an ``L``-path" that path sampling uses to choose start papers.
    """

    depth: int
    length: int
    kept: npt.NDArray[np.bool_]
    path_bound: npt.NDArray[np.int64]
    end_bound: npt.NDArray[np.int64]
    removed_small_components: int
    removed_by_bound: int
    papers_total: int
    papers_allowed: int

    @property
    def n_kept(self) -> int:
        return int(np.count_nonzero(self.kept))

    @property
    def kept_vertices(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.kept)

    def summary(self) -> dict[str, int]:
        """JSON-ready counts for manifests."""
        return {
            "depth": self.depth,
            "path_length": self.length,
            "papers_total": self.papers_total,
            "papers_excluded_metadata_or_not_allowed": self.papers_total - self.papers_allowed,
            "papers_in": self.papers_allowed,
            "papers_kept": self.n_kept,
            "removed_small_components": self.removed_small_components,
            "removed_by_bound": self.removed_by_bound,
        }


def _induced_edges(
    g: CitationGraph, alive: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(vertex ids, relabelled edge ends a, b) of the subgraph induced on ``alive``."""
    ids = np.flatnonzero(alive)
    new = np.full(g.n, -1, dtype=np.int64)
    new[ids] = np.arange(ids.size)
    a, b = g.undirected_edges
    keep = alive[a] & alive[b]
    return ids, new[a[keep]], new[b[keep]]


def prune(g: CitationGraph, depth: int, *, allowed: npt.ArrayLike | None = None) -> PruneResult:
    """Prune ``g`` for question depth ``depth`` (paths of ``L = 3*depth - 2`` papers), in one pass.

    Parameters
    ----------
    g : CitationGraph
        The snapshot graph.
    depth : int
        Question depth ``k`` (at least 1).
    allowed : array_like of bool, optional
        The starting vertex set, one flag per vertex of ``g``; default: the papers with usable
        metadata (``g.has_usable_metadata``).

    Returns
    -------
    PruneResult
        The kept papers, their bounds in the pruned graph, and how many papers each rule removed.

    Raises
    ------
    ValueError
        If ``depth < 1`` or ``allowed`` is not one flag per vertex.

    Notes
    -----
    Components of fewer than ``L`` allowed papers are removed first, then every paper whose
    ``block_cut_bounds`` through-bound is below ``L``. One pass is a fixed point and keeps the
    bounds of every remaining paper, so passing a previous result's ``kept`` as ``allowed`` removes
    nothing and returns the same bounds; the proof is in ``docs/pruning.md``.
    """
    length = path_length(depth)
    alive = np.array(g.has_usable_metadata if allowed is None else allowed, dtype=bool, copy=True)
    if alive.shape != (g.n,):
        raise ValueError(f"allowed must be a bool array of {g.n} vertices")
    papers_allowed = int(np.count_nonzero(alive))
    ids, a, b = _induced_edges(g, alive)
    adj = sp.coo_matrix((np.ones(a.size, np.int8), (a, b)), shape=(ids.size, ids.size))
    _, label = csgraph.connected_components(adj, directed=False)
    small = np.bincount(label)[label] < length
    alive[ids[small]] = False
    # Bounds of the components that are big enough (blocks never span components, so computing
    # them on the induced subgraph of all of them at once gives each component's own bounds).
    rids, ra, rb = _induced_edges(g, alive)
    through = np.zeros(g.n, dtype=np.int64)
    end = np.zeros(g.n, dtype=np.int64)
    through[rids], end[rids] = block_cut_bounds(rids.size, *graph_blocks(rids.size, ra, rb))
    low = alive & (through < length)
    alive[low] = False
    through[~alive] = 0
    end[~alive] = 0
    return PruneResult(
        depth, length, alive, through, end,
        removed_small_components=int(np.count_nonzero(small)),
        removed_by_bound=int(np.count_nonzero(low)),
        papers_total=g.n,
        papers_allowed=papers_allowed,
    )
