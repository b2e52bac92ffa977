"""Growing the components of one example: backbone paths plus preferential attachment.

The sampler (``sample.py``), the distractor components (``distract.py``) and ``select-alpha``
(``report/alpha.py``) grow their forests with :func:`grow_components`.

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

Components can also be added to an example that already has papers (distractor components, drawn
one at a time after the task's own): the papers already present are passed as :class:`Occupied`,
treated exactly like papers of the example — a backbone or leaf may not be one of them, repeat one
of their titles, or have a citation edge to one — so the invariant below holds for the union.

Notes
-----
Invariant (why the result is a forest that the snapshot induces exactly): let ``E`` be the
snapshot's citation edges induced on the example's papers and ``F`` the sampled edges. Initially the
papers are the backbone paths, checked to be chordless and pairwise edge-free, so ``E = F``. When a
leaf ``c`` is accepted, the only edge of the snapshot between ``c`` and the papers already present
is the single (non-mutual) edge to ``v`` — exactly the one added to ``F`` — so ``E = F`` holds again.
Each accepted leaf adds one paper and one edge to one component, so each component stays a tree
(connected, ``n − 1`` edges) and the components stay pairwise disconnected. ∎
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
    growth = _Growth(graph, want, title_key, mask, occupied)
    mask[growth.taken] = True
    try:
        growth.place_backbones(paths)
        while (growth.sizes < want).any():
            i = growth.pick(alpha, rng)
            if i is None:
                stats.rejects["stuck_component"] += 1
                return None
            stats.steps += 1
            growth.offer_leaf(i, rng, stats)
        return [
            Component(order=tuple(growth.orders[c]), edges=tuple(growth.edges[c]), source=int(paths[c][depth - 1]), target=int(paths[c][2 * depth - 2]))
            for c in range(n_comp)
        ]
    finally:
        mask[growth.nodes[: growth.count]] = False
        mask[growth.taken] = False


class _Growth:
    """The papers of the components being grown (see the module doc) and what each has tried.

    Per-paper state lives in preallocated arrays (slot i = i-th paper to join the example), so a
    step costs a few vectorised passes over at most ``sum(want)`` slots. ``mask`` marks the papers
    of the example (the occupied ones included) while growing.
    """

    def __init__(
        self, graph: NeighbourIndex, want: npt.NDArray[np.int64], title_key: Callable[[int], Hashable],
        mask: npt.NDArray[np.bool_], occupied: Occupied | None,
    ) -> None:
        cap = int(want.sum())
        n_comp = len(want)
        self.graph, self.want, self.title_key, self.mask = graph, want, title_key, mask
        self.nodes = np.empty(cap, dtype=np.int64)
        self.comp_of = np.empty(cap, dtype=np.int64)
        self.children = np.zeros(cap, dtype=np.float64)
        self.untried = np.zeros(cap, dtype=np.int64)
        self.tried: list[set[int]] = []
        self.sizes = np.zeros(n_comp, dtype=np.int64)
        self.orders: list[list[int]] = [[] for _ in range(n_comp)]
        self.edges: list[list[tuple[int, int]]] = []
        self.titles_seen: set[Hashable] = set(occupied.titles) if occupied is not None else set()
        self.taken = occupied.array() if occupied is not None else np.zeros(0, dtype=np.int64)
        self.count = 0

    def add(self, v: int, c: int) -> None:
        """Paper ``v`` joins component ``c``."""
        k = self.count
        self.nodes[k], self.comp_of[k] = v, c
        self.untried[k] = len(self.graph.neighbors(v))  # distinct: a mutual pair is one neighbour
        self.tried.append(set())
        self.orders[c].append(v)
        self.sizes[c] += 1
        self.titles_seen.add(self.title_key(v))
        self.mask[v] = True
        self.count += 1

    def place_backbones(self, paths: Sequence[npt.NDArray[np.int64]]) -> None:
        for c, path in enumerate(paths):
            bb = backbone_edges(self.graph, path)
            if bb is None:
                raise ValueError("backbone path is not a chain of single citation edges")
            self.edges.append(bb)
            for v in path:
                self.add(int(v), c)

    def pick(self, alpha: float, rng: np.random.Generator) -> int | None:
        """The slot of the paper that grows next (weight α without children, its child count otherwise);
        None when some open component has no eligible paper left."""
        count = self.count
        open_comp = self.sizes < self.want
        eligible = open_comp[self.comp_of[:count]] & (self.untried[:count] > 0)
        if not np.all(np.bincount(self.comp_of[:count][eligible], minlength=len(self.want))[open_comp] > 0):
            return None
        w = np.where(self.children[:count] > 0, self.children[:count], alpha) * eligible
        cum = np.cumsum(w)
        i = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
        i = min(i, count - 1)
        while not eligible[i]:  # a draw can land on a zero-width slot only through rounding
            i -= 1
        return i

    def _untried_neighbour(self, i: int, v: int, rng: np.random.Generator) -> tuple[int, int]:
        """A uniform untried neighbour of ``v`` (slot ``i``) in a uniform direction (0: cites, 1: cited by), and that direction."""
        tried = self.tried[i]
        first = int(rng.integers(2))
        for d in (first, 1 - first):
            nb = self.graph.cites(v) if d == 0 else self.graph.cited_by(v)
            if tried:
                nb = nb[~np.isin(nb, np.fromiter(tried, dtype=np.int64, count=len(tried)))]
            if len(nb):
                return int(nb[rng.integers(len(nb))]), d
        raise AssertionError("an eligible paper has an untried neighbour")

    def offer_leaf(self, i: int, rng: np.random.Generator, stats: GrowthStats) -> None:
        """Draw a neighbour of the paper in slot ``i`` and add it as a leaf unless a rule rejects it."""
        v = int(self.nodes[i])
        cand, dir_index = self._untried_neighbour(i, v, rng)
        self.tried[i].add(cand)
        self.untried[i] -= 1
        if self.mask[cand]:
            stats.rejects["used"] += 1
            return
        if self.title_key(cand) in self.titles_seen:
            stats.rejects["title"] += 1
            return
        nb_c = _neighbours(self.graph, cand)
        if np.count_nonzero(self.mask[nb_c]) != 1:  # exactly one edge to v, and not a mutual pair
            stats.rejects["other_edge"] += 1
            return
        c = int(self.comp_of[i])
        self.edges[c].append((v, cand) if dir_index == 0 else (cand, v))
        self.children[i] += 1
        self.add(cand, c)
