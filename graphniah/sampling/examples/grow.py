"""Growing the components of one example: backbone paths plus preferential attachment.

Every component of an example starts from a pooled path ``p_1 … p_{3k-2}`` (the backbone, docs/architecture.md
and the paper's appendix A.2.2) and then receives one new leaf at a time until it has the
example's component size. All components grow in one loop (appendix A.2.3): at each step a paper
``v`` is chosen among the *eligible* papers of all components — its component is not full yet and
``v`` still has neighbours it has not tried — with weight ``α`` if ``v`` has no children yet and
``g(v)`` (its number of children; backbone edges don't count) otherwise. A direction is drawn
uniformly from {cites, cited_by} (the other one if ``v`` has no untried neighbour that way), a
neighbour ``c`` uniformly among the untried ones, and ``c`` is *rejected* if it is already in the
example, repeats a title of the example, or has any citation edge to a paper of the example other
than the single edge to ``v``.

Invariant (why the result is a forest that the snapshot induces exactly): let ``E`` be the
snapshot's citation edges induced on the example's papers and ``F`` the sampled edges. Initially the
papers are the backbone paths, checked to be chordless and pairwise edge-free, so ``E = F``. When a
leaf ``c`` is accepted, the only edge of the snapshot between ``c`` and the papers already present
is the single (non-mutual) edge to ``v`` — exactly the one added to ``F`` — so ``E = F`` holds again.
Each accepted leaf adds one paper and one edge to one component, so each component stays a tree
(connected, ``n − 1`` edges) and the components stay pairwise disconnected. ∎

Components can also be added to an example that already has papers (distractor components, drawn
one at a time after the task's own): the papers already present are passed as :class:`Occupied`,
treated exactly like papers of the example — a backbone or leaf may not be one of them, repeat one
of their titles, or have a citation edge to one — so the invariant above holds for the union.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt


class NeighbourIndex(Protocol):
    """What growth needs of the citation graph: vertex count and neighbours by direction."""

    @property
    def n(self) -> int: ...

    def cites(self, v: int) -> npt.NDArray[np.int64]: ...

    def cited_by(self, v: int) -> npt.NDArray[np.int64]: ...

    def neighbors(self, v: int) -> npt.NDArray[np.int64]: ...  # distinct, either direction


@dataclass(frozen=True)
class Component:
    """One grown component, in vertex ids of the citation graph."""

    order: tuple[int, ...]  # papers in the order they joined: the backbone path, then each leaf
    edges: tuple[tuple[int, int], ...]  # (citing, cited), backbone edges first
    source: int  # s_c = p_k
    target: int  # t_c = p_{2k-1}


@dataclass
class Occupied:
    """Papers already in an example (vertex ids) and their title keys; new components avoid both."""

    vertices: list[int] = field(default_factory=list)
    titles: set[Hashable] = field(default_factory=set)

    def add(self, vertices: Sequence[int], title_key: Callable[[int], Hashable]) -> None:
        self.vertices.extend(int(v) for v in vertices)
        self.titles.update(title_key(int(v)) for v in vertices)

    def array(self) -> npt.NDArray[np.int64]:
        return np.asarray(self.vertices, dtype=np.int64)


@dataclass
class GrowthStats:
    steps: int = 0
    rejects: Counter[str] = field(default_factory=Counter)


def _edge_direction(graph: NeighbourIndex, a: int, b: int) -> tuple[int, int] | None:
    """The single citation edge between ``a`` and ``b`` as (citing, cited); None if none or mutual."""
    a_cites_b = bool(np.any(graph.cites(a) == b))
    b_cites_a = bool(np.any(graph.cites(b) == a))
    if a_cites_b == b_cites_a:
        return None
    return (a, b) if a_cites_b else (b, a)


def backbone_edges(graph: NeighbourIndex, path: Sequence[int] | npt.NDArray[np.int64]) -> list[tuple[int, int]] | None:
    """Directed edges of a path, or None when a consecutive pair is not joined by exactly one edge."""
    edges: list[tuple[int, int]] = []
    for a, b in itertools.pairwise(path):
        e = _edge_direction(graph, int(a), int(b))
        if e is None:
            return None
        edges.append(e)
    return edges


def _neighbours(graph: NeighbourIndex, v: int) -> npt.NDArray[np.int64]:
    return np.concatenate((graph.cites(v), graph.cited_by(v)))


def paths_compatible(
    graph: NeighbourIndex,
    paths: Sequence[npt.NDArray[np.int64]],
    title_key: Callable[[int], Hashable],
    mask: npt.NDArray[np.bool_],
    occupied: Occupied | None = None,
) -> str | None:
    """Why these backbone paths cannot share an example (None if they can).

    They must be disjoint, have pairwise distinct titles, and the snapshot must induce on their
    union exactly the path edges: no chord inside a path, no edge between two paths. With
    ``occupied`` (papers already in the example) they must also avoid those papers, their titles
    and any edge to them. ``mask`` is a scratch boolean array of length ``graph.n``, all False on
    entry and on return.
    """
    allv = np.concatenate(paths)
    taken = occupied.array() if occupied is not None else np.zeros(0, dtype=np.int64)
    if len(np.unique(allv)) != len(allv):
        return "shared_paper"
    titles = {title_key(int(v)) for v in allv}
    if len(titles) != len(allv) or (occupied is not None and not titles.isdisjoint(occupied.titles)):
        return "shared_title"
    mask[taken] = True
    if mask[allv].any():
        mask[taken] = False
        return "shared_paper"
    mask[allv] = True
    try:
        for path in paths:
            for i, v in enumerate(path):
                nb = _neighbours(graph, int(v))
                inside = nb[mask[nb]]
                allowed = {int(path[j]) for j in (i - 1, i + 1) if 0 <= j < len(path)}
                # Each allowed neighbour must appear exactly once (a mutual pair appears twice).
                if len(inside) != len(allowed) or set(inside.tolist()) != allowed:
                    return "induced_edge"
        return None
    finally:
        mask[allv] = False
        mask[taken] = False


def grow_components(
    graph: NeighbourIndex,
    paths: Sequence[npt.NDArray[np.int64]],
    depth: int,
    size: int | Sequence[int],
    alpha: float,
    rng: np.random.Generator,
    title_key: Callable[[int], Hashable],
    mask: npt.NDArray[np.bool_],
    stats: GrowthStats | None = None,
    occupied: Occupied | None = None,
) -> list[Component] | None:
    """Grow one component per backbone path to ``size`` papers; None if some component gets stuck.

    ``size`` is one size for every component or one per path (matched counting gives the source's
    component and the others different sizes).

    ``paths`` must already satisfy :func:`paths_compatible` (with the same ``occupied``), each
    oriented as the example uses it. ``title_key(v)`` is the form in which two titles count as the
    same (the verifier's normalised title), and ``mask`` is a scratch boolean array (all False on
    entry and on return). ``occupied`` papers (already in the example, not changed here) count as
    papers of the example: no leaf is one of them, repeats their titles, or has an edge to them.
    """
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    stats = stats if stats is not None else GrowthStats()
    n_comp = len(paths)
    want = np.broadcast_to(np.asarray(size, dtype=np.int64), (n_comp,))
    if want.min(initial=len(paths[0])) < len(paths[0]):
        raise ValueError(f"component size {int(want.min())} is smaller than the backbone ({len(paths[0])} papers)")
    cap = int(want.sum())
    # Per-paper state in preallocated arrays (slot i = i-th paper to join the example), so a step
    # costs a few vectorised passes over at most n_comp * size slots.
    nodes = np.empty(cap, dtype=np.int64)
    comp_of = np.empty(cap, dtype=np.int64)
    children = np.zeros(cap, dtype=np.float64)
    untried = np.zeros(cap, dtype=np.int64)
    tried: list[set[int]] = []
    sizes = np.zeros(n_comp, dtype=np.int64)
    orders: list[list[int]] = [[] for _ in paths]
    edges: list[list[tuple[int, int]]] = []
    titles_seen: set[Hashable] = set(occupied.titles) if occupied is not None else set()
    taken = occupied.array() if occupied is not None else np.zeros(0, dtype=np.int64)
    count = 0

    def add(v: int, c: int) -> None:
        nonlocal count
        nodes[count], comp_of[count] = v, c
        untried[count] = len(graph.neighbors(v))  # distinct: a mutual pair is one neighbour
        tried.append(set())
        orders[c].append(v)
        sizes[c] += 1
        titles_seen.add(title_key(v))
        mask[v] = True
        count += 1

    mask[taken] = True
    try:
        for c, path in enumerate(paths):
            bb = backbone_edges(graph, path)
            if bb is None:
                raise ValueError("backbone path is not a chain of single citation edges")
            edges.append(bb)
            for v in path:
                add(int(v), c)

        while (sizes < want).any():
            open_comp = sizes < want
            eligible = open_comp[comp_of[:count]] & (untried[:count] > 0)
            if not np.all(np.bincount(comp_of[:count][eligible], minlength=n_comp)[open_comp] > 0):
                stats.rejects["stuck_component"] += 1
                return None
            w = np.where(children[:count] > 0, children[:count], alpha) * eligible
            cum = np.cumsum(w)
            i = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
            i = min(i, count - 1)
            while not eligible[i]:  # a draw can land on a zero-width slot only through rounding
                i -= 1
            v = int(nodes[i])
            stats.steps += 1

            first = int(rng.integers(2))
            cand, dir_index = -1, -1
            for d in (first, 1 - first):
                nb = graph.cites(v) if d == 0 else graph.cited_by(v)
                if tried[i]:
                    nb = nb[~np.isin(nb, np.fromiter(tried[i], dtype=np.int64, count=len(tried[i])))]
                if len(nb):
                    cand, dir_index = int(nb[rng.integers(len(nb))]), d
                    break
            assert cand >= 0, "an eligible paper has an untried neighbour"
            tried[i].add(cand)
            untried[i] -= 1
            if mask[cand]:
                stats.rejects["used"] += 1
                continue
            if title_key(cand) in titles_seen:
                stats.rejects["title"] += 1
                continue
            nb_c = _neighbours(graph, cand)
            if np.count_nonzero(mask[nb_c]) != 1:  # exactly one edge to v, and not a mutual pair
                stats.rejects["other_edge"] += 1
                continue
            c = int(comp_of[i])
            edges[c].append((v, cand) if dir_index == 0 else (cand, v))
            children[i] += 1
            add(cand, c)
        return [
            Component(order=tuple(orders[c]), edges=tuple(edges[c]), source=int(paths[c][depth - 1]), target=int(paths[c][2 * depth - 2]))
            for c in range(n_comp)
        ]
    finally:
        mask[nodes[:count]] = False
        mask[taken] = False
