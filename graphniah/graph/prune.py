"""Pruning: remove the papers that cannot lie on a simple path of ``L = 3k - 2`` papers.

Path sampling (``graph/paths.py``) and the pool store (``graph/store.py``) prune a snapshot graph
per question depth before they look for backbone paths; ``PruneResult`` also keeps each paper's
bounds, which the sampler uses to choose start papers.

Longest simple path is NP-hard, so pruning uses upper bounds, in one pass:

1. a connected component with fewer than ``L`` papers holds no ``L``-path (a cheap pre-filter:
   the bound below never exceeds the size of a paper's component, so rule 2 alone would remove
   these papers too, at the cost of computing their blocks);
2. the biconnected components (blocks) and their block-cut tree bound the number of papers of any
   simple path through a paper (``block_cut_bounds``); papers whose bound is below ``L`` go.

(``bench/graph.py`` measures how many papers each rule removes: on the demo snapshots nearly all
the removed papers go by the component rule, because what remains hangs off a large 2-connected core.)

Soundness: by ``block_cut_bounds``, a paper on an ``L``-path has bound ``>= L``, so no paper of
that path is removed. Every paper on an ``L``-path of the starting graph is kept.

One pass is the fixed point. Removing papers could, a priori, split blocks and components and
lower other papers' bounds, which would call for repeating the two rules until nothing changes.
It does not, as proven in ``prune``'s docstring: after one pass every remaining component has
``>= L`` papers and every remaining paper keeps exactly the bounds it had (both of them: through
and end), so a second pass removes nothing and the first pass's bounds are the final graph's.
``tests/graph/test_prune.py`` checks this on every graph with at most 7 vertices and on random
ones, against the bounds computed afresh on the pruned graph.

The starting graph is the snapshot graph induced on the *allowed* papers (by default those with
usable metadata: a pooled path never contains any other paper, so removing them first loses no
path and tightens the bounds).
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

    ``block_members`` lists the vertices of block 0, then block 1, ... (``block_sizes`` of them
    each); blocks are the biconnected components including bridges (size 2). Returns int64 arrays
    ``(through, end)``: ``through[v]`` >= the number of vertices of any simple path containing ``v``,
    ``end[v]`` >= that of any simple path with ``v`` as an end. Vertices in no block are isolated
    (bounds 1).

    Definitions. The block-cut tree T has a node per block B and per cut vertex c, with B–c
    adjacent iff c ∈ B. Block nodes weigh w(B) = |B| − 1, cut nodes 0. For a tree edge x→y,
    ``F(x→y) = w(y) + max(0, max over neighbours z ≠ x of y of F(y→z))`` is the heaviest tree path
    leaving x through y. Then

        through(B) = |B| + top1 + top2 of {F(B→c) : c ∈ B cut}        (0 for a missing arm)
        through(v) = through(B) for v in one block, max over its blocks for a cut vertex
        end(v)     = |B| + top1 of {F(B→c)} for v in one block B;  1 + max_B F(v→B) for a cut v.

    Proof of soundness. Let P be a simple path with at least one edge. Every edge lies in exactly
    one block. (i) P meets each block in one contiguous run of edges: if P left a block B at a
    vertex c and re-entered it first at u ≠ c, the part of P from c to u (outside B apart from its
    ends) plus a c–u path inside B would form a cycle with edges inside and outside B, but every
    cycle lies in a single block. (ii) So P's edges split into runs in distinct blocks
    B_1, ..., B_r; consecutive runs meet at a vertex c_i ∈ B_i ∩ B_{i+1}, which is a cut vertex,
    and the c_i are distinct because P is simple. B_1 c_1 B_2 ... B_r is thus a walk without
    repeated nodes in the tree T, i.e. a tree path. (iii) Every vertex of P lies in some B_i, and
    B_i, B_{i+1} share c_i, so |P| ≤ |B_1| + Σ_{i≥2} (|B_i| − 1) = 1 + Σ_i w(B_i). (iv) For v on P
    pick j with v ∈ B_j. The tree path splits at B_j into an arm through c_{j−1} and one through
    c_j (distinct cuts of B_j, each possibly absent), bounded by F(B_j→c_{j−1}) and F(B_j→c_j), so
    |P| ≤ |B_j| + top1 + top2 = through(B_j) ≤ through(v). (v) If v is an end of P, take j = 1:
    |P| ≤ |B_1| + F(B_1→c_1). For v in only one block this is ≤ end(v); for a cut vertex v, c_1 ≠ v
    (v is already P's first vertex), so |B_1| + F(B_1→c_1) ≤ 1 + F(v→B_1) ≤ end(v). A path
    without edges is a single vertex and every bound is ≥ 1. ∎

    Computation (all vectorised): root every tree of the forest (BFS from a virtual super-root),
    let D(x) be the weight of the root→x path; then F(parent→x) = max of D over x's subtree −
    D(parent), and F(x→parent) = D(parent) + max over the chain from x up to (excluding) the root
    of [w(parent(y)) + best sibling arm of y − D(parent(y))]. Subtree maxima and chain maxima are
    computed by pointer jumping, so the cost is O((n + blocks) log depth).
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
    ``par`` their parents, ``down[x]`` = F(parent -> x) and ``up[x]`` = F(x -> parent) (see
    ``block_cut_bounds``), both indexed by node."""
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

    Returns ``(block_sizes, block_members)`` in the flat layout ``block_cut_bounds`` takes. igraph's
    C routine reports each block as the edge ids of a spanning tree of it; the vertex sets are the
    endpoints of those edges, taken here with numpy (igraph's Python wrapper does it with sets).
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

    ``allowed`` (bool per vertex) is the starting vertex set; default: papers with usable metadata.
    Passing a previous result's ``kept`` removes nothing and returns the same bounds (below).

    **One pass is a fixed point, and keeps the bounds.** Let G0 be the allowed graph without its
    components of fewer than L papers, T its block-cut forest (block weight w(B) = |B| - 1), G1
    what remains after removing the papers with through(v) < L. As the proof of
    ``block_cut_bounds`` shows, through(B) = 1 + the largest weight of a tree path of T containing
    B, and end(v) = 1 + the largest weight of a tree path of T starting at v's node (v's block
    when v lies in one block, the cut node v otherwise). Call B *good* if through(B) >= L; every
    block of a tree path of weight >= L - 1 is good, and a paper is kept iff it lies in a good block.

    1. A bad block B keeps at most one paper. A kept paper u of B lies in a good block Bu != B,
       so u is a cut vertex. Let P be a heaviest tree path through Bu (weight >= L - 1). P avoids
       B (else B is good), so it lies in the part of T - B on u's side. From u, go to the node y
       of P nearest to u, then along P to its heavier side of y: the two sides share y, so the
       heavier one weighs >= weight(P) / 2, and F(B->u) >= (L - 1) / 2. Two kept papers u != w
       would give through(B) >= |B| + F(B->u) + F(B->w) >= 2 + L - 1 > L: B would be good.
    2. So every edge of a bad block loses an end, and G1 is exactly the union of the good blocks
       with their edges. A good block stays 2-connected (or a bridge) in G1, and each block of
       G1 lies inside a block of G0 (G1 is a subgraph); so the blocks of G1 are the good blocks,
       its cut vertices are the papers in two or more good blocks, and its block-cut forest T1
       is the subforest of T on those nodes, with the same weights. Tree paths of T1 are tree
       paths of T, so no bound of G1 exceeds the bound of G0.
    3. through: a heaviest tree path of T through a good block weighs >= L - 1, so all its blocks
       are good and it is a path of T1: through(B) is the same in G1. For a kept paper the
       maximum over its blocks is taken at a good one, so through(v) is unchanged (>= L). That
       path's blocks also hold 1 + weight >= L papers of v's component, so no component of G1
       is small: a second pass removes nothing.
    4. end: let Q be a heaviest tree path of T from v's node and Bg a good block at v; it
       suffices that every block of Q is good (then Q, less the weight-0 node v where v is no
       longer a cut vertex, is a path of T1). (a) If Q starts with Bg (always when v lies in one
       block), it leaves Bg through a cut c1 != v with the heaviest arm of Bg not via v; adding
       Bg's heaviest arm through another cut gives a tree path through all of Q's blocks weighing
       w(Bg) + the two heaviest arms = through(Bg) - 1 >= L - 1. (b) If Q starts with a block
       B1 != Bg, then weight(Q) = F(Bg->v) (B1 is v's heaviest direction) and weight(Q) >=
       F(v->Bg) = w(Bg) + a, where a is Bg's heaviest arm not via v. Bg's two heaviest arms
       therefore sum to at most weight(Q) + a, and Q extended at v into Bg and along that arm is
       a tree path through all of Q's blocks weighing weight(Q) + w(Bg) + a >= through(Bg) - 1.
    ∎ So the bounds computed in the pass are those of the pruned graph, and no recomputation
    is needed; ``tests/graph/test_prune.py`` checks both claims by brute force.
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
