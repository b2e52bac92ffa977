"""Statistics of a snapshot's citation graph: its in-degree law, components, clustering and what pruning removes.

The demo release is calibrated on these (:mod:`graphniah.ingest.demo_release.calibration` holds the
target ranges; ``bench/demo_release.py`` and the calibration test measure a generated release with
:func:`graph_statistics`). They are computed on the graph the pipeline sees: the eligible
post-cutoff papers of a snapshot and the citations between them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.prune import prune

__all__ = ["graph_statistics"]


def graph_statistics(g: CitationGraph, depths: Sequence[int] = (8, 16, 32)) -> dict[str, float]:
    """In-degree law over degrees >= 1, never-cited share, sparsity, components, clustering, and the
    papers pruning removes per depth (by the biconnected bound and as small components)."""
    indeg = np.bincount(g.cited, minlength=g.n)
    cited = indeg[indeg > 0]
    # components and transitivity (3 * triangles / connected triples) of the undirected simple
    # graph, by the graph's own igraph view
    sizes = np.asarray(g.graph.connected_components().sizes(), dtype=np.int64)
    giant = int(sizes.max(initial=0))
    medium = sizes[(sizes >= 20) & (sizes <= 2000) & (sizes < giant)]
    out = {
        "in_degree_1": float(np.mean(cited == 1)),
        "in_degree_2": float(np.mean(cited == 2)),
        "in_degree_3_to_9": float(np.mean((cited >= 3) & (cited <= 9))),
        "in_degree_10_plus": float(np.mean(cited >= 10)),
        "max_in_degree": float(indeg.max(initial=0)),
        "never_cited_share": float(np.mean(indeg == 0)),
        "mean_in_degree": float(indeg.mean()) if g.n else 0.0,
        "giant_share": giant / max(1, g.n),
        "medium_component_share": float(medium.sum() / max(1, g.n)),
        "transitivity": float(g.graph.transitivity_undirected(mode="zero")),  # 0 without connected triples
    }
    for k in depths:
        r = prune(g, k)
        out[f"bound_removed_depth_{k}"] = float(r.removed_by_bound)
        out[f"small_removed_depth_{k}"] = float(r.removed_small_components)
    return out
