"""The sampled forest of an example, laid out here; the page draws it (``forestSvg`` in view.js).

Every component of the example's forest (``Example.papers``/``Example.edges``) is a tree: a backbone
path with trees grown off it by preferential attachment (``graphniah.sampling.examples.grow``), so a
few hubs carry many leaves. Each component is drawn in one linear pass, without iteration or random
start (so the same example always gets the same picture):

- its longest path (found by two breadth-first searches; in a sampled component it runs along the
  backbone, so the source, the target and the path between them lie on it) is laid on an arc of 300
  degrees, the gap saying that it is a path and not a cycle;
- every other paper hangs outwards off that arc: each one gets a part of its parent's wedge as wide
  as its subtree needs and sits on the part's middle ray, far enough out that its cluster clears its
  parent's and fits inside the part, so clusters of different subtrees never overlap;
- a paper's leaf children sit around it on a sunflower spiral (Vogel's model: the i-th at radius
  ∝ sqrt(i), turned by the golden angle), so a hub with 60 leaves is a round cluster instead of 60
  points on one small arc.

It replaced igraph's Kamada–Kawai (started from a radial Reingold–Tilford drawing), which drew a
similar picture at some forty times the cost, the largest part of a cold viewer build
(``bench/view.py``). Each component is then scaled so that its longer side is ``2 (18 sqrt(n) + 10)``
pixels (larger components get more room, but a 250-paper component never dwarfs the rest), and the
components are placed side by side, centred on one line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, option_letters
from graphniah.view.data import ShownPaper

__all__ = ["PALETTE", "ForestLayout", "forest_caption", "forest_data", "forest_layout", "highlighted_path"]

#: Component colours (colour-blind safe, after Okabe & Ito), reused cyclically.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#7F7F7F")
_NODE_R = 3.2
_MARK_R = 7.0
_GAP = 40.0
_PAD = 14.0  # room around the drawing for the marks
# Layout units: 1 is the distance between neighbouring leaves of a cluster.
_SUN = 0.56  # sunflower step: Vogel's spiral r = c sqrt(i) spaces its points about 1.8 c apart
_SUN_START = 3.0  # the first leaf at radius c sqrt(3) ≈ 1, not on top of its hub
_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))
_CLEAR = 0.6  # empty room between two clusters


@dataclass(frozen=True)
class ForestLayout:
    """Coordinates and component of every paper of an example (index i describes ``papers[i]``).

    ``component`` numbers the weakly connected components, the source's component first, then in
    order of first appearance in ``papers``; ``width``/``height`` bound every ``(x, y)``.
    """

    papers: tuple[int, ...]
    x: tuple[float, ...]
    y: tuple[float, ...]
    component: tuple[int, ...]
    width: float
    height: float


def _neighbours(example: Example) -> tuple[list[list[int]], dict[int, int]]:
    """Undirected adjacency lists by index into ``papers``, and the index of each paper."""
    index = {p: i for i, p in enumerate(example.papers)}
    if len(index) != len(example.papers):
        raise GraphNIAHError(f"example {example.id}: a paper is listed twice in papers")
    nbrs: list[list[int]] = [[] for _ in example.papers]
    for a, b in example.edges:
        ia, ib = index.get(a), index.get(b)
        if ia is None or ib is None:
            raise GraphNIAHError(f"example {example.id}: edge names paper {a if ia is None else b} that is not in papers")
        nbrs[ia].append(ib)
        nbrs[ib].append(ia)
    return nbrs, index


def _bfs(nbrs: Sequence[Sequence[int]], root: int, parent: list[int]) -> list[int]:
    """The vertices reachable from ``root`` in breadth-first order; ``parent`` (-2: unseen) gets each one's parent (root: -1)."""
    parent[root] = -1
    order = [root]
    for v in order:  # the list grows while it is read: a queue without pops
        for u in nbrs[v]:
            if parent[u] == -2:
                parent[u] = v
                order.append(u)
    return order


def _correct_target(example: Example) -> int | None:
    """The target the answer names as reachable (YES: the target; multiple choice: the right option)."""
    if example.task == "yesno":
        return example.targets[0] if example.answer == "YES" else None
    if example.task == "mc":
        letters = option_letters(len(example.options), example.none_option)
        i = letters.index(example.answer)
        return example.targets[i] if i < len(example.targets) else None  # the "none" letter names no paper
    return None


def highlighted_path(example: Example) -> tuple[int, ...]:
    """The papers on the path from the source to the reachable target (corpus ids, source first).

    Empty when no target is reachable (NO, "none of these", counting). In a forest the path between
    two papers of one component is unique, so the breadth-first (shortest undirected) path is *the* path.
    """
    t = _correct_target(example)
    if t is None:
        return ()
    nbrs, index = _neighbours(example)
    if example.source not in index or t not in index:
        raise GraphNIAHError(f"example {example.id}: source or target is not among its papers")
    parent = [-2] * len(nbrs)
    _bfs(nbrs, index[t], parent)  # from the target, so that following parents from the source walks to it
    if parent[index[example.source]] == -2:
        raise GraphNIAHError(f"example {example.id}: the answer says the target is reachable, but no path joins them")
    path = [index[example.source]]
    while parent[path[-1]] >= 0:
        path.append(parent[path[-1]])
    return tuple(example.papers[i] for i in path)


def _components(example: Example, nbrs: Sequence[Sequence[int]], index: Mapping[int, int]) -> list[list[int]]:
    """The components (vertices in breadth-first order from the first), the source's first, then in
    order of first appearance in ``papers``."""
    seen = [-2] * len(nbrs)
    comps = [_bfs(nbrs, v, seen) for v in range(len(nbrs)) if seen[v] == -2]
    src = index.get(example.source, -1)
    comps.sort(key=lambda c: (src not in c, min(c)))
    return comps


def _axis(nbrs: Sequence[Sequence[int]], members: Sequence[int], parent: list[int]) -> list[int]:
    """A longest path of the tree (two breadth-first searches: the farthest vertex from any vertex is an
    end of one), from the end found first. In a sampled component it runs along the backbone path."""
    for v in members:
        parent[v] = -2
    end = _bfs(nbrs, members[0], parent)[-1]
    for v in members:
        parent[v] = -2
    far = _bfs(nbrs, end, parent)[-1]
    path = [far]
    while parent[path[-1]] >= 0:
        path.append(parent[path[-1]])
    return path


def _ring_tree(nbrs: Sequence[Sequence[int]], members: Sequence[int], parent: list[int]) -> dict[int, tuple[float, float]]:
    """One tree drawn around its longest path (see the module docstring), in layout units."""
    axis = _axis(nbrs, members, parent)
    for v in members:
        parent[v] = -2
    for a in axis:
        parent[a] = -1
    order = list(axis)
    for v in order:  # breadth-first from the whole axis at once: every other paper hangs off one axis paper
        for u in nbrs[v]:
            if parent[u] == -2:
                parent[u] = v
                order.append(u)
    kids: dict[int, list[int]] = {v: [] for v in order}
    for v in order[len(axis):]:
        kids[parent[v]].append(v)
    leaves = {v: [c for c in kids[v] if not kids[c]] for v in order}
    inner = {v: [c for c in kids[v] if kids[c]] for v in order}
    disk = {v: (_SUN * math.sqrt(len(leaves[v]) - 1 + _SUN_START) if leaves[v] else 0.0) + 0.5 for v in order}
    width: dict[int, float] = {}
    for v in reversed(order):  # children before parents
        width[v] = max(2 * disk[v] + _CLEAR, sum(width[c] for c in inner[v]))
    # The axis on an arc of 300 degrees (the gap says it is a path, not a cycle), each paper in a slot as wide as its subtree needs.
    slots = sum(width[a] for a in axis)
    radius = slots * 1.2 / (2 * math.pi)
    pos: dict[int, tuple[float, float]] = {}
    wedge: dict[int, tuple[float, float]] = {}
    dist: dict[int, float] = {}
    a0 = math.pi / 2 + slots * 0.1 / radius  # the gap at the top
    for a in axis:
        span = width[a] / radius
        wedge[a], dist[a] = (a0, a0 + span), radius
        pos[a] = (radius * math.cos(a0 + span / 2), radius * math.sin(a0 + span / 2))
        a0 += span
    for v in order:
        if v in wedge:  # a leaf is placed with its parent's cluster
            _place_children(v, inner[v], wedge, dist, pos, disk, width)
            _place_leaves(pos, pos[v], sum(wedge[v]) / 2, leaves[v])
    return pos


def _place_children(v: int, inner: Sequence[int], wedge: dict[int, tuple[float, float]], dist: dict[int, float],
                    pos: dict[int, tuple[float, float]], disk: Mapping[int, float], width: Mapping[int, float]) -> None:
    """The inner children of ``v``: each in a part of ``v``'s wedge as wide as its subtree needs at their
    radius, the parts side by side around ``v``'s own ray (the whole wedge, shared in proportion, when
    they need more), each child on its part's middle ray, outside ``v``'s cluster and inside its part."""
    if not inner:
        return
    a0, a1 = wedge[v]
    r = dist[v] + disk[v] + max(disk[c] for c in inner) + _CLEAR
    need = [min(width[c] / r, math.pi) for c in inner]
    if sum(need) < a1 - a0:  # room to spare: keep the children near their parent's ray
        spans = need
        a0 = min(max((a0 + a1) / 2 - sum(need) / 2, a0), a1 - sum(need))
    else:
        total = sum(width[c] for c in inner)
        spans = [(a1 - a0) * width[c] / total for c in inner]
    for c, span in zip(inner, spans, strict=True):
        wedge[c] = (a0, a0 + span)
        mid = a0 + span / 2
        a0 += span
        out = dist[v] + disk[v] + disk[c] + _CLEAR  # clear of the parent's cluster, outwards
        if span < math.pi:  # and the cluster inside its own part
            out = max(out, (disk[c] + _CLEAR / 2) / math.sin(span / 2))
        dist[c] = out
        pos[c] = (out * math.cos(mid), out * math.sin(mid))


def _place_leaves(pos: dict[int, tuple[float, float]], centre: tuple[float, float], turn: float, leaves: Sequence[int]) -> None:
    """Leaves on a sunflower spiral around their parent, the first towards ``turn`` (away from the axis)."""
    x, y = centre
    for i, c in enumerate(leaves):
        r, a = _SUN * math.sqrt(i + _SUN_START), turn + i * _GOLDEN
        pos[c] = (x + r * math.cos(a), y + r * math.sin(a))


def forest_layout(example: Example) -> ForestLayout:
    """Radial trees with leaf clusters, components side by side (see the module docstring)."""
    nbrs, index = _neighbours(example)
    n = len(nbrs)
    xs, ys, comp_of = [0.0] * n, [0.0] * n, [0] * n
    parent = [-2] * n
    boxes = []
    for ci, members in enumerate(_components(example, nbrs, index)):
        local = _ring_tree(nbrs, members, parent)
        lx = [local[v][0] for v in members]
        ly = [local[v][1] for v in members]
        x_min, y_min = min(lx), min(ly)
        extent = max(max(lx) - x_min, max(ly) - y_min)
        scale = 2 * (18.0 * math.sqrt(len(members)) + 10.0) / extent if extent > 0 else 0.0
        for v, cx, cy in zip(members, lx, ly, strict=True):
            xs[v], ys[v], comp_of[v] = (cx - x_min) * scale, (cy - y_min) * scale, ci
        boxes.append((members, (max(lx) - x_min) * scale, (max(ly) - y_min) * scale))
    height = max((h for _, _, h in boxes), default=0.0)
    x0 = 0.0
    for members, w, h in boxes:  # side by side, each centred on the middle line
        for v in members:
            xs[v] += x0
            ys[v] += (height - h) / 2
        x0 += w + _GAP
    return ForestLayout(example.papers, tuple(xs), tuple(ys), tuple(comp_of), max(x0 - _GAP, 0.0), height)


def _hover(cid: int, meta: ShownPaper | None) -> str:
    if meta is None:
        return f"paper {cid} (no metadata: snapshot not found)"
    date = meta.publication_date.isoformat() if meta.publication_date else (str(meta.year) if meta.year else "no date")
    authors = ", ".join(meta.authors) or "no authors listed"
    return f"{meta.title}\n{authors}\n{date} · corpus id {cid}"


def forest_data(example: Example, layout: ForestLayout, meta: Mapping[int, ShownPaper], path: Sequence[int]) -> dict[str, object]:
    """What the page draws the forest from (``forestSvg`` in view.js builds the SVG): coloured components,
    arrowheads citing → cited, s and t marked, the path in red, a paper's title, authors and date on hover.

    Papers are numbered by their index in ``layout.papers``: ``x``/``y`` (padded, 0.1 px), ``component``,
    ``ids`` (corpus ids), ``hover``; ``edges`` is flat ``[citing, cited, citing, cited, ...]``; ``path``
    the papers of the highlighted path in order; ``marks`` ``[paper, label]`` pairs. The page draws it,
    rather than receiving the SVG, because writing a thousand elements is a third of a page's build
    in Python and nothing in a browser."""
    index = {p: i for i, p in enumerate(layout.papers)}
    letters = option_letters(len(example.targets), False) if example.task == "mc" else "T"
    # A list example's targets are its whole answer (every reachable paper): only the source is marked.
    marks = {example.source: "S"} | ({} if example.task == "list" else {t: letters[i] for i, t in enumerate(example.targets)})
    return {
        "width": round(layout.width + 2 * _PAD, 1),
        "height": round(layout.height + 2 * _PAD, 1),
        "node_r": _NODE_R,
        "mark_r": _MARK_R,
        "x": np.round(np.asarray(layout.x) + _PAD, 1).tolist(),
        "y": np.round(np.asarray(layout.y) + _PAD, 1).tolist(),
        "component": list(layout.component),
        "ids": list(layout.papers),
        "edges": [index[p] for edge in example.edges for p in edge],
        "path": [index[p] for p in path],
        "marks": [[index[p], label] for p, label in marks.items() if p in index],
        "hover": [_hover(p, meta.get(p)) for p in layout.papers],
    }


def forest_caption(example: Example, path: Sequence[int], metadata: bool = True) -> str:
    """What the forest of ``example`` shows, in the words of its task.

    Parameters
    ----------
    example : Example
        The example drawn.
    path : sequence of int
        Its highlighted path (:func:`highlighted_path`), empty when no target is reachable.
    metadata : bool
        Whether the papers' titles are known (the snapshot was found).

    Returns
    -------
    str
        One paragraph: the marks, what the answer is on this drawing, and how to read it.

    Notes
    -----
    Each task names what its answer is on the forest: a path to the target (YES) or its absence
    (NO), the right candidate or none of them (multiple choice), the papers counted (counting),
    the papers listed (list; every other paper of the source's component is reachable).
    """
    n, task = len(example.papers), example.task
    edges = "arrows point from the citing to the cited paper"
    head = f"{n} papers; each colour is one component; {edges}. "
    if task == "yesno":
        what = ("S = source, T = target. The answer is YES: the red path "
                f"({len(path)} papers) joins the source to the target."
                if path else
                "S = source, T = target. The answer is NO: the target lies in another component, so no path joins the two.")
    elif task == "mc":
        letters = option_letters(len(example.targets), False)
        span = f"{letters[0]}–{letters[-1]}" if len(letters) > 1 else letters
        what = (f"S = source, {span} = the candidates. The answer is {example.answer}: the red path ({len(path)} papers) "
                f"joins the source to candidate {example.answer}; the other candidates lie in other components."
                if path else
                f"S = source, {span} = the candidates. The answer is {example.answer} (none of these): every candidate "
                "lies in another component than the source.")
    elif task == "count":
        what = (f"S = source. The answer, {example.answer}, counts the papers of the source's component other than the "
                "source; the other components are distractors.")
    else:
        what = (f"S = source. The answer lists the {len(example.targets)} papers reachable from the source (every other "
                "paper of its component); the other components are distractors. Choose a run to colour each paper by "
                "what it listed.")
    tail = " Hover a node for its title, authors and date."
    if not metadata:
        tail += " (Snapshot not found: papers are shown by corpus id.)"
    return head + what + tail
