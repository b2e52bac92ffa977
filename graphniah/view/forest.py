"""The sampled forest of an example, laid out with igraph and drawn as SVG.

The layout is computed here, in Python, so the page only shows it: every component of the
example's forest (``Example.papers``/``Example.edges``) is laid out on its own with igraph's
Reingold–Tilford layout in its circular form (a component is a tree, so this is a true tree
drawing), rooted at the source in the source's component and at a target or the best-connected
paper elsewhere; the components are then placed side by side, each scaled with the square root of
its size so that larger components get more room but a 250-paper component never dwarfs the rest.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import igraph as ig

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, PaperMeta, option_letters

__all__ = ["PALETTE", "ForestLayout", "forest_layout", "forest_svg", "highlighted_path"]

#: Component colours (colour-blind safe, after Okabe & Ito), reused cyclically.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#7F7F7F")
_NODE_R = 3.2
_MARK_R = 7.0
_GAP = 40.0


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


def _graph(example: Example) -> tuple[ig.Graph, dict[int, int]]:
    index = {p: i for i, p in enumerate(example.papers)}
    if len(index) != len(example.papers):
        raise GraphNIAHError(f"example {example.id}: a paper is listed twice in papers")
    try:
        edges = [(index[a], index[b]) for a, b in example.edges]
    except KeyError as err:
        raise GraphNIAHError(f"example {example.id}: edge names paper {err.args[0]} that is not in papers") from None
    return ig.Graph(n=len(index), edges=edges, directed=True), index


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
    two papers of one component is unique, so the shortest undirected path is *the* path.
    """
    t = _correct_target(example)
    if t is None:
        return ()
    g, index = _graph(example)
    if example.source not in index or t not in index:
        raise GraphNIAHError(f"example {example.id}: source or target is not among its papers")
    path = g.get_shortest_paths(index[example.source], to=index[t], mode="all", output="vpath")[0]
    if not path:
        raise GraphNIAHError(f"example {example.id}: the answer says the target is reachable, but no path joins them")
    return tuple(example.papers[i] for i in path)


def forest_layout(example: Example) -> ForestLayout:
    """Reingold–Tilford (circular) per component, components side by side (see the module docstring)."""
    g, index = _graph(example)
    comps = [list(c) for c in g.connected_components(mode="weak")]
    src = index.get(example.source)
    targets = [index[t] for t in example.targets if t in index]
    comps.sort(key=lambda c: (src not in c, min(c)))
    xs = [0.0] * g.vcount()
    ys = [0.0] * g.vcount()
    comp_of = [0] * g.vcount()
    x0, height = 0.0, 0.0
    for ci, members in enumerate(comps):
        sub = g.subgraph(members).as_undirected()
        local = {v: i for i, v in enumerate(members)}
        if src in local:
            root = local[src]
        elif any(t in local for t in targets):
            root = local[next(t for t in targets if t in local)]
        else:
            root = max(range(len(members)), key=lambda i: (sub.degree(i), -i))
        if len(members) > 1:
            # The radial tree puts a hub's many leaves on one small circle; Kamada–Kawai started from it
            # keeps the tree's arrangement and spreads them out (deterministic: no random start).
            tree = sub.layout_reingold_tilford_circular(mode="all", root=[root])
            coords = sub.layout_kamada_kawai(seed=tree.coords, maxiter=50 * len(members)).coords
        else:
            coords = [(0.0, 0.0)]
        reach = max((math.hypot(cx, cy) for cx, cy in coords), default=0.0) or 1.0
        radius = 18.0 * math.sqrt(len(members)) + 10.0
        for v, (cx, cy) in zip(members, coords, strict=True):
            xs[v] = x0 + radius + cx / reach * radius
            ys[v] = radius + cy / reach * radius
            comp_of[v] = ci
        x0 += 2 * radius + _GAP
        height = max(height, 2 * radius)
    return ForestLayout(example.papers, tuple(xs), tuple(ys), tuple(comp_of), max(x0 - _GAP, 0.0), height)


def _hover(cid: int, meta: PaperMeta | None) -> str:
    if meta is None:
        return f"paper {cid} (no metadata: snapshot not found)"
    date = meta.publication_date.isoformat() if meta.publication_date else (str(meta.year) if meta.year else "no date")
    authors = ", ".join(meta.authors) or "no authors listed"
    return f"{meta.title}\n{authors}\n{date} · corpus id {cid}"


def forest_svg(example: Example, layout: ForestLayout, meta: Mapping[int, PaperMeta], path: Sequence[int]) -> str:
    """The forest as an SVG element: coloured components, arrowheads citing → cited, s and t marked, path in red."""
    e = html.escape
    pad = 14.0
    on_path = set(zip(path, path[1:], strict=False)) | set(zip(path[1:], path, strict=False))
    path_set = set(path)
    pos = {p: (x + pad, y + pad) for p, x, y in zip(layout.papers, layout.x, layout.y, strict=True)}
    comp = dict(zip(layout.papers, layout.component, strict=True))
    letters = option_letters(len(example.targets), False) if example.task == "mc" else "T"
    # A list example's targets are its whole answer (every reachable paper): only the source is marked.
    marks = {example.source: "S"} | ({} if example.task == "list" else {t: letters[i] for i, t in enumerate(example.targets)})
    w, h = layout.width + 2 * pad, layout.height + 2 * pad
    out = [f'<svg class="forest" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.1f} {h:.1f}" '
           f'data-nodes="{len(layout.papers)}" data-edges="{len(example.edges)}" role="img" '
           f'aria-label="citation forest of {len(layout.papers)} papers">',
           '<defs><marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="5" markerHeight="5" orient="auto">'
           '<path d="M0,0L10,5L0,10z" fill="#777"/></marker>'
           '<marker id="arr-path" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="5" markerHeight="5" orient="auto">'
           '<path d="M0,0L10,5L0,10z" fill="#d00"/></marker></defs><g class="edges">']
    for a, b in example.edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        r = (_MARK_R if b in marks else _NODE_R) + 1.0  # stop at the cited paper's rim so the arrowhead shows
        x2e, y2e = x2 - (x2 - x1) / d * r, y2 - (y2 - y1) / d * r
        hot = (a, b) in on_path
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2e:.1f}" y2="{y2e:.1f}" class="{"e path" if hot else "e"}" '
                   f'marker-end="url(#{"arr-path" if hot else "arr"})"/>')
    out.append('</g><g class="nodes">')
    for p in layout.papers:
        x, y = pos[p]
        colour = PALETTE[comp[p] % len(PALETTE)]
        cls = "node" + (" path" if p in path_set else "") + (" mark" if p in marks else "")
        r = _MARK_R if p in marks else _NODE_R
        out.append(f'<circle class="{cls}" data-id="{p}" cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}">'
                   f"<title>{e(_hover(p, meta.get(p)))}</title></circle>")
        if p in marks:
            out.append(f'<text class="mark" x="{x:.1f}" y="{y + 3.5:.1f}">{e(marks[p])}</text>')
    out.append("</g></svg>")
    return "".join(out)
