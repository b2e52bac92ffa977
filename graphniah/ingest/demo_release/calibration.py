"""Calibration targets of the demo release's citation process, and the statistics that check them.

The demo release stands in for S2AG, so its post-cutoff citation graph must behave like S2AG's
where the method looks at it: the in-degree law (select-alpha compares generated forests with it),
the components and blocks (pruning), and room for many disjoint components (distractors). Each
:class:`Target` names a statistic, the range the generator must hit, and where the range comes
from; ``docs/demo-release.md`` explains them at length. Two kinds of statistics:

* :func:`reference_statistics` — reference lists as written in the newest release (from the
  generated world, so no files are needed): lengths, unresolved share, in-window share, contexts,
  intents. Ranges around the real S2AG sample records where those apply.
* :func:`graphniah.graph.measures.graph_statistics` — the snapshot graph the pipeline sees
  (eligible post-cutoff papers and the citations between them): in-degree law over degrees >= 1,
  never-cited share, sparsity, components, clustering, and what pruning removes with the
  biconnected bound per depth. It belongs to the graph stage, which the ingest stage does not import.

:func:`check` returns the violated targets (empty when calibrated); the tests and
``bench/demo_release.py`` use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from graphniah.ingest.demo_release import vocabulary as V
from graphniah.ingest.demo_release.records import World

__all__ = ["TARGETS", "Target", "check", "reference_statistics"]

_PAPER = "GraphNIAH paper, appendix B (S(0.1) = 0.0089 on S2AG)"
_SAMPLE = "real S2AG sample records (shared/fixtures/s2ag-samples: 2022 release sample, 2024-06-25 citations diff)"


@dataclass(frozen=True)
class Target:
    """A statistic, the closed range it must lie in, and where the range comes from."""

    name: str
    low: float
    high: float
    source: str

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high


TARGETS: tuple[Target, ...] = (
    # --- reference lists (reference_statistics) ---
    Target("references_median", 5, 9, f"{_SAMPLE}: median reference count 7 among papers with references"),
    Target("references_q75", 9, 15, f"{_SAMPLE}: upper quartile 11"),
    Target("references_none_share", 0.05, 0.15, "modern post-cutoff papers mostly have parsed references (generator: 10 %)"),
    Target("unresolved_share", 0.15, 0.30, f"{_SAMPLE}: 23 % (2022) and 25 % (2024 diff) of rows have a null citedcorpusid"),
    Target("contexts_share", 0.30, 0.45, f"{_SAMPLE}: 37 % of rows carry citation contexts"),
    Target("intent_background_share", 0.70, 0.88, f"{_SAMPLE}: 79 % of intent labels are 'background' (18 % methodology, 3 % result)"),
    Target("in_window_share", 0.05, 0.30, "a post-cutoff paper cites mostly older work: only a few references point into the 6-month window"),
    # --- the snapshot graph (graphniah.graph.measures.graph_statistics) ---
    Target(
        "in_degree_1",
        0.63,
        0.74,
        f"{_PAPER}: S2AG's in-degree law over degrees >= 1 is that of alpha = 0.1 forests, "
        "which put 0.66-0.70 of their papers at in-degree 1 on every calibrated graph",
    ),
    Target("in_degree_2", 0.14, 0.22, f"{_PAPER}: alpha = 0.1 forests put 0.18-0.21 at in-degree 2 (backbone papers between two citers)"),
    Target("in_degree_3_to_9", 0.05, 0.13, f"{_PAPER}: alpha = 0.1 forests put only 0.07-0.09 at in-degrees 3-9 (children pile onto few papers)"),
    Target("in_degree_10_plus", 0.02, 0.07, f"{_PAPER}: alpha = 0.1 forests put 0.03-0.045 at in-degree >= 10 (a heavy tail)"),
    Target("never_cited_share", 0.60, 0.85, "most post-cutoff papers are not cited by another post-cutoff paper within six months"),
    Target("mean_in_degree", 0.6, 1.3, "sparse window: about one in-window citation per paper, so the graph is locally tree-like"),
    Target("giant_share", 0.35, 0.70, "a giant component with most of the cited papers, beside isolates and small components"),
    Target("medium_component_share", 0.005, 0.08, "islands: closed communities of 20-2,000 papers outside the giant component"),
    Target("transitivity", 0.0, 0.05, "locally tree-like: few triangles"),
    Target("bound_removed_depth_8", 1, float("inf"), "on S2AG the biconnected bound removes papers (paper appendix A.2.1 uses it)"),
    Target("bound_removed_depth_16", 1, float("inf"), "on S2AG the biconnected bound removes papers at depth 16 too"),
    Target("bound_removed_depth_32", 1, float("inf"), "on S2AG the biconnected bound removes papers at depth 32 too"),
)


def check(stats: Mapping[str, float], targets: Sequence[Target] = TARGETS) -> list[str]:
    """The targets that ``stats`` misses, one line each (statistics absent from ``stats`` are skipped)."""
    return [
        f"{t.name} = {stats[t.name]:.4g} outside [{t.low:g}, {t.high:g}] ({t.source})"
        for t in targets
        if t.name in stats and not t.holds(stats[t.name])
    ]


def reference_statistics(world: World) -> dict[str, float]:
    """Reference lists of the post-cutoff papers of the newest release (rows present in it)."""
    P, C = world.papers, world.citations
    tl = world.timeline
    last = len(tl.release_ids) - 1
    present = (P.indexed <= tl.newest_day) & (P.deleted_at > last)
    post = present & (P.day >= tl.cutoff_day)
    resolved = C.cited >= 0
    cited = np.maximum(C.cited, 0)
    row = post[C.citing] & (~resolved | present[cited]) & (C.late_step <= last) & (C.retract_step > last)
    refs = np.bincount(C.citing[row], minlength=len(P))[post]
    with_refs = refs[refs > 0]
    inwin = row & resolved & (P.day[cited] >= tl.cutoff_day)
    labels = [i for k in C.context[row & (C.context >= 0)] for i in world.contexts[int(k)][1] if i is not None]
    return {
        "references_median": float(np.median(with_refs)),
        "references_q75": float(np.percentile(with_refs, 75)),
        "references_none_share": float(np.mean(refs == 0)),
        "unresolved_share": float(np.mean(~resolved[row])),
        "contexts_share": float(np.mean(C.context[row] >= 0)),
        "intent_background_share": labels.count(V.INTENTS[0]) / max(1, len(labels)),
        "in_window_share": float(inwin.sum() / max(1, (row & resolved).sum())),
    }
