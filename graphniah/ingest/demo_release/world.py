"""The synthetic scholarly world behind the demo release: papers, citations, authors, venues, and
how each of them appears, changes and disappears across consecutive releases.

``generate`` builds the world (``build_world``) and the state of every release (``release_states``),
and ``serialize`` writes them as S2AG JSON lines; ``calibration`` checks the citation model (:mod:`.citations`)
against its targets.

Everything here is vectorised numpy driven by one ``numpy.random.Generator``; nothing loops over
citations in Python. The world is built once for the *newest* release and every earlier release
is a view of it (a paper is in release r iff it was indexed by that release's date and not yet
deleted), so diffs between releases are exact by construction.

The parts: :mod:`.records` (the record types and the timeline), :mod:`.citations` (the citation
model), :mod:`.metadata` (titles, venues, preprints, authors, contexts); this module puts them
together (``build_world``) and derives each release's state (``release_states``).
"""

from __future__ import annotations

import numpy as np

from graphniah.ingest.demo_release.citations import dates_and_topics, deletions, draw_citations, indexing_days
from graphniah.ingest.demo_release.metadata import context_bank, draw_authors, draw_papers, draw_venues
from graphniah.ingest.demo_release.records import ReleaseState, Timeline, World, increasing_ids

# The version of the world a seed generates, recorded in release.json: a demo release of another
# version is generated again by the refresh (2: papers have arXiv ids and preprint DOIs that can
# predate the cutoff). Increase it whenever a seed's releases change.
WORLD_VERSION = 2
P_YEAR_ONLY = 0.04  # papers whose date is only a year
P_DELETE_PAPER = 0.001  # per step, of the release size
CORPUSID_BASE = 254_000_000


def build_world(rng: np.random.Generator, n_papers: int, timeline: Timeline) -> World:
    """Generate every record of every release; ``n_papers`` is the size of the newest release."""
    R = len(timeline.release_ids)
    n_del_step = max(1, round(P_DELETE_PAPER * n_papers)) if R > 1 else 0
    M = n_papers + n_del_step * (R - 1)
    day, field, topic, topic_field, n_topics, n_regular = dates_and_topics(rng, M, timeline)
    year_only = rng.random(M) < P_YEAR_ONLY
    indexed = indexing_days(rng, day, timeline)
    deleted_at = deletions(rng, indexed, timeline, n_del_step)
    corpusid = increasing_ids(rng, indexed, CORPUSID_BASE, 40)
    venues = draw_venues(rng, R)
    contexts = context_bank(rng, min(40_000, 2 * M + 64))
    citations = draw_citations(rng, day, field, topic, topic_field, n_topics, n_regular, indexed, timeline, len(contexts))
    papers = draw_papers(rng, day, year_only, field, topic, indexed, deleted_at, corpusid, venues, timeline)
    authors = draw_authors(rng, papers, n_topics, topic_field[:n_regular])
    return World(timeline, papers, citations, authors, venues, contexts)


def release_states(world: World) -> list[ReleaseState]:
    """The state of every release, oldest first, with per-record 'last changed' markers."""
    tl, P, C, A = world.timeline, world.papers, world.citations, world.authors
    M, NA = len(P), len(A)
    states: list[ReleaseState] = []
    prev: ReleaseState | None = None
    pa_paper = np.repeat(np.arange(M, dtype=np.int64), np.diff(A.paper_offsets))
    pa_author = A.paper_authors
    for r, rday in enumerate(tl.release_days):
        pp = (P.indexed <= rday) & (P.deleted_at > r)
        resolved = C.cited >= 0
        cited0 = np.maximum(C.cited, 0)
        rp = pp[C.citing] & (~resolved | pp[cited0]) & (C.late_step <= r) & (C.retract_step > r)
        refc = np.bincount(C.citing[rp], minlength=M)
        rr = rp & resolved
        citc = np.bincount(C.cited[rr], minlength=M)
        inflc = np.bincount(C.cited[rr & C.influential], minlength=M)
        live = pp[pa_paper]
        ap = np.bincount(pa_author[live], minlength=NA) > 0
        papc = np.bincount(pa_author[live], minlength=NA)
        autc = np.bincount(pa_author[live], weights=citc[pa_paper[live]], minlength=NA).astype(np.int64)
        hidx = _hindex(pa_author[live], citc[pa_paper[live]], NA)
        if prev is None:
            pch = np.full(M, -1, dtype=np.int16)
            rch = np.full(len(C), -1, dtype=np.int16)
            ach = np.full(NA, -1, dtype=np.int16)
        else:
            both = pp & prev.paper_present
            changed = both & (
                (refc != prev.referencecount) | (citc != prev.citationcount) | (inflc != prev.influentialcount) | (P.rev_step == r)
            )
            pch = np.where(changed, r, prev.paper_changed_at).astype(np.int16)
            rchg = rp & prev.row_present & (C.rev_step == r)
            rch = np.where(rchg, r, prev.row_changed_at).astype(np.int16)
            achg = ap & prev.author_present & ((papc != prev.papercount) | (autc != prev.author_citations) | (hidx != prev.hindex))
            ach = np.where(achg, r, prev.author_changed_at).astype(np.int16)
        st = ReleaseState(r, pp, rp, ap, refc, citc, inflc, papc, autc, hidx, pch, rch, ach)
        states.append(st)
        prev = st
    return states


def _hindex(author: np.ndarray, cites: np.ndarray, n_authors: int) -> np.ndarray:
    """h-index per author: sorted by (author, citations desc), h = #rows whose rank <= citations.

    Within one author the citation counts are non-increasing in rank, so ``count >= rank`` holds
    exactly on a prefix of that author's rows, and the prefix length is the h-index.
    """
    if len(author) == 0:
        return np.zeros(n_authors, dtype=np.int64)
    order = np.lexsort((-cites, author))
    a, c = author[order], cites[order]
    starts = np.concatenate([[True], a[1:] != a[:-1]])
    idx = np.arange(len(a))
    rank = idx - np.maximum.accumulate(np.where(starts, idx, 0)) + 1
    return np.bincount(a, weights=(c >= rank), minlength=n_authors).astype(np.int64)
