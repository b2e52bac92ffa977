"""The synthetic scholarly world behind the demo release: papers, citations, authors, venues, and
how each of them appears, changes and disappears across consecutive releases.

``generate`` builds the world (``build_world``) and the state of every release (``release_states``),
and ``serialize`` writes them as S2AG JSON lines; ``calibration`` checks the citation model below
against its targets.

Everything here is vectorised numpy driven by one ``numpy.random.Generator``; nothing loops over
citations in Python. The world is built once for the *newest* release and every earlier release
is a view of it (a paper is in release r iff it was indexed by that release's date and not yet
deleted), so diffs between releases are exact by construction.

Citation model (calibrated to behave like S2AG's post-cutoff window; docs/demo-release.md)
-----------------------------------------------------------------------------------------
Each paper has a topic (inside a field of study), a date, an attractiveness (*fitness*) and a
log-normal number of references (median 7, as in real S2AG records). Each reference is independently

* unresolved (``citedcorpusid`` null, ``P_NULL`` = 20 %, as in real S2AG rows),
* *in-window*: a post-cutoff paper strictly older than the citing paper, with probability
  ``IN_WINDOW_SCALE * pace(field) ** 0.5 * (1 - exp(-age/50 d)) * g`` where ``age`` is the citing
  paper's distance from the cutoff and ``g`` a per-paper Gamma factor (about 0.85 in-window
  citations per post-cutoff paper: most references point to older work), or
* *older*: a pre-cutoff paper strictly older than the citing paper.

The target is drawn from the citing paper's topic (95 %; topics are tight communities), its field
(4 %) or anywhere (1 %), with probability proportional to ``fitness * exp(day / tau)`` (aging).
Fitness is 1 for most papers and ``HUB_BOOST * Pareto(FITNESS_EXPONENT)`` (capped) for the
``HUB_SHARE`` hubs. That two-class law is what makes the in-degree distribution over degrees >= 1
look like S2AG's as the paper's select-alpha sees it (measured on the default demo by
bench/demo_release.py: 0.67 at 1, 0.19 at 2, 0.10 at 3-9, 0.04 at 10 and above, max 81; the
ranges are calibration.TARGETS); a single Pareto or log-normal fitness puts too much mass at 3-9 and
select-alpha then prefers a large alpha. ``ISLAND_SHARE`` of the papers form *islands*: closed
communities of 20-1,500 papers whose first reference stays in the island (later ones rarely) and
which nobody else cites, so they become large but thin components; they are what the biconnected
pruning bound removes (a fringe attached to the giant's 2-connected core can never be removed by a
sound bound, since a path can always continue into the core).

The recency kernel is separable (``exp((t_j - t_i)/tau)`` =
``exp(t_j/tau) * exp(-t_i/tau)``), so the draw for *every* reference at once is one cumulative
sum over papers sorted by (group, day) and two ``searchsorted`` calls: the candidates of a
reference are a contiguous slice of that order (its group, days strictly before the citing day).
Because only a modest share of references stays inside the window and targets concentrate in
topics, the post-cutoff graph has a giant component with long simple paths, many small components
and isolates, medium islands, and is sparse enough (mean in-degree ~0.85) to be locally tree-like.

Invariant (citations never point forward): a target is taken from positions ``[start, end)``
where ``end`` is the first position of the group whose day is >= the citing day; the clip of
``pos`` into that range guards against floating-point rounding at the boundary, so every cited
paper has ``day < citing day`` (internally, also for papers whose published date is only a year).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.ingest.demo_release import vocabulary as V

DEMO_CUTOFF = dt.date(2026, 4, 1)  # the project's default cutoff; the window the demo graph is built around
# The version of the world a seed generates, recorded in release.json: a demo release of another
# version is generated again by the refresh (2: papers have arXiv ids and preprint DOIs that can
# predate the cutoff). Increase it whenever a seed's releases change.
WORLD_VERSION = 2
PRE_START = dt.date(2023, 1, 1)  # oldest papers in the demo release
RELEASE_INTERVAL_DAYS = 7  # S2AG publishes releases about weekly
PRE_SHARE = 0.20  # share of papers published before the cutoff (only reference targets: kept small, the window is what matters)
P_NULL = 0.20  # unresolved references (real S2AG rows: 23 % in the 2022 sample, 25 % in a 2024 diff)
P_NO_REFS = 0.10  # papers without any parsed reference
P_YEAR_ONLY = 0.04  # papers whose date is only a year
# S2 fields of study (docs/demo-release.md): in the real S2AG sample (2022, 100 papers records)
# 34 records list s2fieldsofstudy and 20 list two or more distinct categories. A second entry is
# drawn uniformly among the fields and dropped when it repeats the first (1 in len(FIELDS)), so it
# is drawn with (20/34) / (1 - 1/len(FIELDS)).
P_FIELDS = 0.34
P_SECOND_FIELD_DRAW = (20 / 34) / (1 - 1 / len(V.FIELDS))
# Preprints (docs/demo-release.md, measured by bench/preprint_shares.py): in the real S2AG sample
# (2022, 100 papers records) no record has an arXiv id or a preprint DOI; each share is the centre
# of its 95 % Wilson interval [0, 3.7 %], the estimate inside what the sample allows.
P_ARXIV = 0.0185  # papers with an arXiv id
P_PREPRINT_DOI = 0.0185  # papers with a bioRxiv/medRxiv or Preprints.org DOI (none has both kinds)
P_ARXIV_ONLY = 0.45  # arXiv papers whose only version is the arXiv one (venue arXiv.org)
# Mean days from a preprint to the version of record (exponential). Not measured (the sample has
# no preprint); a choice that gives the preprint guard pre-cutoff preprints to drop.
PREPRINT_LAG_DAYS = 120.0
P_SAME_TOPIC, P_SAME_FIELD = 0.95, 0.04  # rest: any topic (tight communities, so distractor components block locally)
TAU_PRE, TAU_POST = 300.0, 45.0  # recency kernels (days) for older and in-window targets (aging)
HUB_SHARE, HUB_BOOST = 0.04, 11.0  # papers far more attractive than the rest, and by how much at least
FITNESS_EXPONENT, FITNESS_CAP = 1.5, 7.0  # Pareto tail of a hub's extra attractiveness, and its cap
# probability that a reference of a post-cutoff paper stays in the window is
# IN_WINDOW_SCALE * pace(field) ** PACE_EXPONENT * (1 - exp(-age / 50 d)) * Gamma(IN_WINDOW_SHAPE)
# per paper: about 0.85 in-window citations per post-cutoff paper. Pace differences are flattened
# (exponent 0.5): with the raw paces (x14 between fields) the in-degree of ordinary papers spreads
# so much that in-degrees 3-9 get twice S2AG's share.
IN_WINDOW_SCALE = 0.36
IN_WINDOW_SHAPE = 2.0
PACE_EXPONENT = 0.5
ISLAND_SHARE = 0.05  # share of papers in islands: closed communities that cite only each other
ISLAND_MIN, ISLAND_MAX, ISLAND_SIZE_EXPONENT = 20, 1500, 1.0  # island sizes: Pareto, clipped
ISLAND_EXTRA_EDGE = 0.03  # chance that a later reference of an island paper also stays in the island
PAPERS_PER_TOPIC = 2500
P_DUP_TITLE, P_GENERIC_TITLE, P_MATHML, P_HTML = 0.0006, 0.0006, 0.003, 0.004
P_NO_AUTHORS = 0.012
P_NO_VENUE, P_JOURNAL_NULL, P_JOURNAL_EMPTY = 0.12, 0.08, 0.06
P_CONTEXTS, P_INFLUENTIAL = 0.37, 0.06  # real S2AG sample: 37 % of rows with contexts, 6 % influential
INTENT_SHARES = (0.79, 0.18, 0.03)  # background, methodology, result (real S2AG sample)
P_DUP_ROW = 0.002  # citation rows written twice (in two shards) in a release
P_DELETE_PAPER = 0.001  # per step, of the release size
P_PAPER_REVISION, P_ROW_LATE, P_ROW_RETRACT, P_ROW_REVISION, P_VENUE_REVISION = 0.015, 0.004, 0.0005, 0.01, 0.05
CORPUSID_BASE, CITATIONID_BASE, AUTHORID_BASE = 254_000_000, 4_860_000_000, 1_000_000

REV_NONE, REV_DATE, REV_DOI, REV_VENUE = 0, 1, 2, 3
JOURNAL_NORMAL, JOURNAL_NULL, JOURNAL_EMPTY = 0, 1, 2


def _day(d: dt.date) -> int:
    return (d - dt.date(1970, 1, 1)).days


def _date(day: int) -> dt.date:
    return dt.date(1970, 1, 1) + dt.timedelta(days=int(day))


@dataclass(frozen=True)
class Timeline:
    release_ids: tuple[str, ...]
    release_days: np.ndarray  # int64, oldest first
    cutoff_day: int
    pre_start_day: int

    @property
    def newest_day(self) -> int:
        return int(self.release_days[-1])

    @property
    def steps(self) -> int:
        return len(self.release_ids) - 1


def make_timeline(first_release: dt.date, releases: int) -> Timeline:
    days = np.array([_day(first_release) + RELEASE_INTERVAL_DAYS * i for i in range(releases)], dtype=np.int64)
    ids = tuple(_date(d).isoformat() for d in days)
    return Timeline(ids, days, _day(DEMO_CUTOFF), _day(PRE_START))


@dataclass(frozen=True)
class Papers:
    """Paper attributes, one entry per paper of any release, in publication-day order."""

    day: np.ndarray  # int64 internal publication day (also for year-only papers)
    year_only: np.ndarray  # bool: ``publicationdate`` null, ``year`` set
    field: np.ndarray  # int16 index into vocabulary.FIELDS
    topic: np.ndarray  # int32
    indexed: np.ndarray  # int64 day the paper first appears in S2
    deleted_at: np.ndarray  # int16 first release index without the paper (= releases: never)
    rev_step: np.ndarray  # int16 release index where a metadata fix lands (= releases: never)
    rev_kind: np.ndarray  # int8 REV_*
    corpusid: np.ndarray  # int64
    titles: list[str]
    title_kind: np.ndarray  # int8: 0 plain, 1 planted duplicate, 2 generic, 3 MathML, 4 HTML
    venue: np.ndarray  # int32 index into Venues (-1: none)
    journal_venue: np.ndarray  # int32 venue named in ``journal`` (kept when ``venue`` is blank)
    journal_kind: np.ndarray  # int8 JOURNAL_*
    volume: np.ndarray  # int32 (0: none)
    first_page: np.ndarray  # int32 (0: no pages)
    n_pages: np.ndarray  # int32
    arxiv: list[str | None]
    doi: list[str | None]
    pubmed: np.ndarray  # int64 (0: none)
    open_access: np.ndarray  # bool
    pubtype: np.ndarray  # int8 0 none,1 JournalArticle,2 Conference,3 Review
    second_field: np.ndarray  # int16 (-1: none) extra s2fieldsofstudy entry from an external source
    has_fields: np.ndarray  # bool: the record lists s2fieldsofstudy at all (else null)
    url_hash: list[str]
    updated_sec: np.ndarray  # int64 seconds jitter for "updated" stamps (legacy)

    def __len__(self) -> int:
        return len(self.day)


@dataclass(frozen=True)
class Citations:
    citing: np.ndarray  # int64 paper index
    cited: np.ndarray  # int64 paper index, -1 = unresolved (null)
    citationid: np.ndarray  # int64
    influential: np.ndarray  # bool
    context: np.ndarray  # int32 index into the context bank (-1: no contexts)
    late_step: np.ndarray  # int16 row appears no earlier than this release (0: as soon as possible)
    retract_step: np.ndarray  # int16 row removed from this release on (= releases: never)
    rev_step: np.ndarray  # int16 contexts filled in from this release on (= releases: never)
    dup: np.ndarray  # bool: written twice in a release
    null_rank: np.ndarray  # int32 rank among the unresolved rows of the same citing paper (-1 if resolved)
    first_day: np.ndarray  # int64 day the row first appears (for "updated" stamps)

    def __len__(self) -> int:
        return len(self.citing)


@dataclass(frozen=True)
class Authors:
    authorid: np.ndarray  # int64 (-1: author of no paper, never written)
    names: list[str]
    alias: list[str | None]  # a second spelling, or None
    dblp: np.ndarray  # bool: has a DBLP name
    first_seen: np.ndarray  # int64 day the author's first paper was indexed
    paper_offsets: np.ndarray  # int64, len = papers + 1: author list of paper i is flat[off[i]:off[i+1]]
    paper_authors: np.ndarray  # int64 author indices

    def __len__(self) -> int:
        return len(self.authorid)


@dataclass(frozen=True)
class Venues:
    venues: tuple[V.Venue, ...]
    field: np.ndarray  # int16 (-1: arXiv)
    ids: tuple[str, ...]
    issn: tuple[str | None, ...]
    urls: tuple[str, ...]
    rev_step: np.ndarray  # int16 release where the venue's url is first filled in (= releases: never)

    def __len__(self) -> int:
        return len(self.venues)


@dataclass(frozen=True)
class World:
    timeline: Timeline
    papers: Papers
    citations: Citations
    authors: Authors
    venues: Venues
    contexts: tuple[tuple[tuple[str, ...], tuple[str | None, ...]], ...]  # (sentences, intents) per bank entry


@dataclass(frozen=True)
class ReleaseState:
    """Which records a release holds and the values that change between releases."""

    index: int
    paper_present: np.ndarray  # bool per paper
    row_present: np.ndarray  # bool per citation row
    author_present: np.ndarray  # bool per author
    referencecount: np.ndarray  # int64 per paper
    citationcount: np.ndarray
    influentialcount: np.ndarray
    papercount: np.ndarray  # int64 per author
    author_citations: np.ndarray
    hindex: np.ndarray
    paper_changed_at: np.ndarray  # int16 last release index where the record changed (-1: never)
    row_changed_at: np.ndarray
    author_changed_at: np.ndarray


# ----------------------------------------------------------------------------------------- world


def build_world(rng: np.random.Generator, n_papers: int, timeline: Timeline) -> World:
    """Generate every record of every release; ``n_papers`` is the size of the newest release."""
    R = len(timeline.release_ids)
    n_del_step = max(1, round(P_DELETE_PAPER * n_papers)) if R > 1 else 0
    M = n_papers + n_del_step * (R - 1)
    day, field, topic, topic_field, n_topics, n_regular = _dates_and_topics(rng, M, timeline)
    year_only = rng.random(M) < P_YEAR_ONLY
    indexed = _indexing_days(rng, day, timeline)
    deleted_at = _deletions(rng, indexed, timeline, n_del_step)
    corpusid = _increasing_ids(rng, indexed, CORPUSID_BASE, 40)
    venues = _venues(rng, R)
    contexts = _context_bank(rng, min(40_000, 2 * M + 64))
    citations = _citations(rng, day, field, topic, topic_field, n_topics, n_regular, indexed, timeline, len(contexts))
    papers = _papers(rng, day, year_only, field, topic, indexed, deleted_at, corpusid, venues, timeline)
    authors = _authors(rng, papers, n_topics, topic_field[:n_regular])
    return World(timeline, papers, citations, authors, venues, contexts)


def _dates_and_topics(
    rng: np.random.Generator, M: int, tl: Timeline
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int16], npt.NDArray[np.int64], npt.NDArray[np.int16], int, int]:
    """Publication day, field and topic of every paper (sorted by day), each topic's field, topic counts (all, regular)."""
    pre = rng.random(M) < PRE_SHARE
    day = np.where(
        pre,
        rng.integers(tl.pre_start_day, tl.cutoff_day, M),
        rng.integers(tl.cutoff_day, tl.newest_day + 1, M),
    )
    order = np.argsort(day, kind="stable")
    day = day[order].astype(np.int64)
    shares = np.array([f.share for f in V.FIELDS])
    shares /= shares.sum()
    field = rng.choice(len(V.FIELDS), size=M, p=shares).astype(np.int16)
    # topics: each field gets ~share*M/PAPERS_PER_TOPIC topics with Zipf-like sizes
    per_field = [max(2, round(s * M / PAPERS_PER_TOPIC)) for s in shares]
    starts = np.concatenate([[0], np.cumsum(per_field)]).astype(np.int64)
    topic = np.empty(M, dtype=np.int64)
    for f, k in enumerate(per_field):
        sel = np.flatnonzero(field == f)
        w = 1.0 / (np.arange(k) + 1.5)
        topic[sel] = starts[f] + rng.choice(k, size=len(sel), p=w / w.sum())
    topic_field = np.repeat(np.arange(len(V.FIELDS)), per_field).astype(np.int16)
    n_regular = int(starts[-1])
    # islands: small closed communities (topic ids after the regular ones) whose papers cite only
    # each other and are cited by nobody else; sizes are heavy-tailed between ISLAND_MIN and ISLAND_MAX
    n_island = round(ISLAND_SHARE * M)
    sizes: list[int] = []
    while sum(sizes) < n_island:
        sizes.append(int(min(ISLAND_MAX, ISLAND_MIN * (1.0 - rng.random()) ** (-1.0 / ISLAND_SIZE_EXPONENT))))
    if sizes:
        sizes[-1] -= sum(sizes) - n_island
        sizes = [k for k in sizes if k > 0]
        members = rng.permutation(M)[:n_island]
        island = np.repeat(np.arange(len(sizes)), sizes)
        first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        island_field = field[members[first]]
        topic[members] = n_regular + island
        field[members] = island_field[island]
        topic_field = np.concatenate([topic_field, island_field.astype(np.int16)])
    return day, field, topic, topic_field, n_regular + len(sizes), n_regular


def _indexing_days(rng: np.random.Generator, day: np.ndarray, tl: Timeline) -> np.ndarray:
    """Day a paper first shows up in S2: usually days after publication, sometimes months."""
    M = len(day)
    lag = np.where(rng.random(M) < 0.8, rng.exponential(10.0, M), rng.uniform(20, 200, M)).astype(np.int64)
    idx = day + lag
    late = idx > tl.newest_day
    # still in the newest release: re-draw the lag inside the time that is left
    idx[late] = day[late] + (rng.random(int(late.sum())) * (tl.newest_day - day[late] + 1)).astype(np.int64)
    return idx


def _deletions(rng: np.random.Generator, indexed: np.ndarray, tl: Timeline, per_step: int) -> np.ndarray:
    R = len(tl.release_ids)
    deleted_at = np.full(len(indexed), R, dtype=np.int16)
    for s in range(1, R):
        cand = np.flatnonzero((indexed <= tl.release_days[s - 1]) & (deleted_at == R))
        pick = rng.choice(cand, size=min(per_step, len(cand)), replace=False)
        deleted_at[pick] = s
    return deleted_at


def _increasing_ids(rng: np.random.Generator, order_key: np.ndarray, base: int, max_gap: int) -> np.ndarray:
    """Unique ids that grow with ``order_key`` (S2 ids grow with ingestion time)."""
    order = np.argsort(order_key, kind="stable")
    ids = np.empty(len(order_key), dtype=np.int64)
    ids[order] = base + np.cumsum(rng.integers(1, max_gap + 1, len(order_key)))
    return ids


def _citations(
    rng: np.random.Generator, day: npt.NDArray[np.int64], field: npt.NDArray[np.int16], topic: npt.NDArray[np.int64], topic_field: npt.NDArray[np.int16], n_topics: int, n_regular: int,
    indexed: npt.NDArray[np.int64], tl: Timeline, bank_size: int,
) -> Citations:
    M = len(day)
    post = day >= tl.cutoff_day
    citing, is_null, inwin = _reference_rows(rng, day, field, topic, n_regular, tl)
    tt = _target_topics(rng, citing, topic, field, topic_field, n_regular)
    cited, keep = _draw_targets(rng, citing, is_null, inwin, tt, day, post, topic, n_topics, tl)
    citing, cited = citing[keep], cited[keep]
    # one row per (citing, cited) pair; unresolved rows are all kept
    pair = np.where(cited >= 0, citing * M + cited, -1 - np.arange(len(cited)))
    _, first = np.unique(pair, return_index=True)
    first.sort()
    citing, cited = citing[first], cited[first]
    n = len(citing)

    resolved = cited >= 0
    first_day = np.maximum(indexed[citing], np.where(resolved, indexed[np.maximum(cited, 0)], 0))
    context, late_step, retract_step, rev_step = _row_changes(rng, first_day, tl, bank_size)
    return Citations(
        citing=citing,
        cited=cited,
        citationid=_increasing_ids(rng, first_day, CITATIONID_BASE, 300),
        influential=rng.random(n) < P_INFLUENTIAL,
        context=context,
        late_step=late_step,
        retract_step=retract_step,
        rev_step=rev_step,
        dup=rng.random(n) < P_DUP_ROW,
        null_rank=_null_ranks(citing, resolved),
        first_day=first_day,
    )


def _reference_rows(
    rng: np.random.Generator, day: npt.NDArray[np.int64], field: npt.NDArray[np.int16], topic: npt.NDArray[np.int64], n_regular: int, tl: Timeline,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """One row per reference (its citing paper), whether it is unresolved, and whether it stays in the window."""
    M = len(day)
    post = day >= tl.cutoff_day
    # heavy-tailed reference counts, mean ~10 among papers with references
    m = 1 + np.floor(np.exp(rng.normal(1.9, 0.85, M))).astype(np.int64)
    m[rng.random(M) < P_NO_REFS] = 0
    np.minimum(m, 400, out=m)
    pace = np.array([f.pace for f in V.FIELDS])[field] ** PACE_EXPONENT
    age = np.maximum(day - tl.cutoff_day, 0)
    q = IN_WINDOW_SCALE * pace * (1.0 - np.exp(-age / 50.0)) * rng.gamma(IN_WINDOW_SHAPE, 1 / IN_WINDOW_SHAPE, M)
    q = np.where(post, np.minimum(q, 0.9), 0.0)

    citing = np.repeat(np.arange(M, dtype=np.int64), m)
    n = len(citing)
    is_null = rng.random(n) < P_NULL
    inwin = (~is_null) & (rng.random(n) < q[citing])
    # an island paper's first reference cites an earlier paper of its island (a few more do too), so
    # an island is a forest of trees with a few extra edges: components that are large but thin
    in_island = topic[citing] >= n_regular
    first_ref = np.concatenate([[True], citing[1:] != citing[:-1]]) if n else np.zeros(0, dtype=bool)
    island_inwin = (~is_null) & post[citing] & (first_ref | (rng.random(n) < ISLAND_EXTRA_EDGE))
    inwin = np.where(in_island, island_inwin, inwin)
    return citing, is_null, inwin


def _target_topics(
    rng: np.random.Generator, citing: npt.NDArray[np.int64], topic: npt.NDArray[np.int64], field: npt.NDArray[np.int16], topic_field: npt.NDArray[np.int16], n_regular: int,
) -> npt.NDArray[np.int64]:
    """The topic each reference's target is drawn from (regular topics only: nobody outside an island cites into it)."""
    n = len(citing)
    in_island = topic[citing] >= n_regular
    u = rng.random(n)
    tt = topic[citing].copy()
    fs = np.concatenate([[0], np.cumsum(np.bincount(topic_field[:n_regular], minlength=len(V.FIELDS)))])
    cf = field[citing]
    same_field = (u >= P_SAME_TOPIC) & (u < P_SAME_TOPIC + P_SAME_FIELD) & ~in_island
    span = fs[cf + 1] - fs[cf]
    tt[same_field] = fs[cf][same_field] + (rng.random(int(same_field.sum())) * span[same_field]).astype(np.int64)
    anyt = (u >= P_SAME_TOPIC + P_SAME_FIELD) & ~in_island
    tt[anyt] = rng.integers(0, n_regular, int(anyt.sum()))
    return tt


def _draw_targets(
    rng: np.random.Generator, citing: npt.NDArray[np.int64], is_null: npt.NDArray[np.bool_], inwin: npt.NDArray[np.bool_], tt: npt.NDArray[np.int64],
    day: npt.NDArray[np.int64], post: npt.NDArray[np.bool_], topic: npt.NDArray[np.int64], n_topics: int, tl: Timeline,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The cited paper of every reference (-1: unresolved) and which references found a candidate.

    The recency kernel is separable, so every target is one draw from a cumulative sum over papers
    sorted by (window class, topic, day); the candidates of a reference are a contiguous slice of it.
    """
    M = len(day)
    n = len(citing)
    # candidate slices: papers sorted by (window class, topic, day)
    gkey = post.astype(np.int64) * n_topics + topic
    order = np.lexsort((day, gkey))
    SPAN = 1 << 20
    keys = gkey[order] * SPAN + (day[order] - tl.pre_start_day)
    tau = np.where(post, TAU_POST, TAU_PRE)
    hub = rng.random(M) < HUB_SHARE
    fitness = np.where(hub, HUB_BOOST * np.minimum((1.0 - rng.random(M)) ** (-1.0 / FITNESS_EXPONENT), FITNESS_CAP), 1.0)
    w = np.exp(np.minimum((day - tl.newest_day) / tau, 0.0)) * fitness
    cw = np.concatenate([[0.0], np.cumsum(w[order])])
    g = inwin.astype(np.int64) * n_topics + tt
    start = np.searchsorted(keys, g * SPAN, "left")
    end = np.searchsorted(keys, g * SPAN + (day[citing] - tl.pre_start_day), "left")
    ok = end > start
    x = cw[start] + rng.random(n) * (cw[end] - cw[start])
    pos = np.clip(np.searchsorted(cw, x, "right") - 1, start, np.maximum(end - 1, start))
    cited = np.where(is_null, -1, order[np.minimum(pos, M - 1)])
    return cited, is_null | ok


def _row_changes(
    rng: np.random.Generator, first_day: npt.NDArray[np.int64], tl: Timeline, bank_size: int,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16], npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """Per citation row: its context-bank entry, and the releases where it appears late, is retracted or revised.

    A row that appears late moves ``first_day`` (in place) to the day it is resolved.
    """
    n = len(first_day)
    R = len(tl.release_ids)
    late_step = np.zeros(n, dtype=np.int16)
    retract_step = np.full(n, R, dtype=np.int16)
    rev_step = np.full(n, R, dtype=np.int16)
    context = np.where(rng.random(n) < P_CONTEXTS, rng.integers(0, bank_size, n), -1).astype(np.int32)
    if R > 1:
        late = rng.random(n) < P_ROW_LATE
        late_step[late] = rng.integers(1, R, int(late.sum()))
        resolved_at = tl.release_days[late_step[late]] - rng.integers(0, RELEASE_INTERVAL_DAYS, int(late.sum()))
        first_day[late] = np.maximum(first_day[late], resolved_at)
        ret = rng.random(n) < P_ROW_RETRACT
        retract_step[ret] = rng.integers(1, R, int(ret.sum()))
        rv = (rng.random(n) < P_ROW_REVISION) & (context >= 0)
        rev_step[rv] = rng.integers(1, R, int(rv.sum()))
    return context, late_step, retract_step, rev_step


def _null_ranks(citing: npt.NDArray[np.int64], resolved: npt.NDArray[np.bool_]) -> npt.NDArray[np.int32]:
    """Rank of each unresolved row among the unresolved rows of its citing paper (-1 if resolved)."""
    n = len(citing)
    null_rank = np.full(n, -1, dtype=np.int32)
    nul = np.flatnonzero(~resolved)  # rows are ordered by citing paper
    if len(nul):
        c = citing[nul]
        grp_start = np.concatenate([[True], c[1:] != c[:-1]])
        idx = np.arange(len(nul))
        null_rank[nul] = idx - np.maximum.accumulate(np.where(grp_start, idx, 0))
    return null_rank


# ------------------------------------------------------------------------------------ metadata


_SLOT_SIZES = {"T": 5, "SUB": len(V.SUBTITLES), "A": len(V.ADJECTIVES), "C": len(V.COUNTRIES), "K": 5000, "Y": 300, "X": 100_000}
_RICH = 200_000  # templates with fewer combinations always get an ending from vocabulary.SUFFIXES


@functools.cache
def _combinations(template: str, f: V.Field) -> int:
    sizes = {**_SLOT_SIZES, "M": len(f.methods), "N": len(f.tasks), "S": len(f.settings), "P": len(f.properties)}
    n = 1
    for slot in re.findall(r"\{(\w+)\}", template):
        n *= sizes[slot]
    return n


@functools.cache
def _endings(f: V.Field, template: str) -> tuple[str, ...]:
    """Endings that fit a template: no slot used twice, one colon at most, nothing after a '?'."""
    used = set(re.findall(r"\{(\w+)\}", template))
    out = []
    for e in V.SUFFIXES[f.name]:
        if used & set(re.findall(r"\{(\w+)\}", e)) or (e.startswith(" in ") and " in {" in template):
            continue
        if e.startswith("^"):
            if ":" in template:
                continue
        elif (":" in e and ":" in template) or template.endswith("?"):
            continue
        out.append(e)
    if not out and "{X}" not in template and ":" not in template:
        out.append("^{X}: ")
    return tuple(out)


def _draw_titles(
    rng: np.random.Generator, field: np.ndarray, topic: np.ndarray, topic_tasks: list[tuple[str, ...]], tag: bool = False
) -> list[str]:
    """One title per paper; the random draws are vectorised, only the string assembly is a loop.

    ``tag=True`` adds an invented acronym (as a prefix, or in parentheses after a subtitle), which
    makes a title practically unique; it is used only for the few titles that keep colliding.
    """
    n = len(field)
    if n == 0:
        return []
    u = rng.random((n, 16))
    n_parts = rng.integers(2, 4, n)
    parts = rng.integers(0, len(V.ACRONYM_PARTS), (n, 3))
    y1 = rng.integers(2000, 2021, n)
    y2 = y1 + rng.integers(3, 6, n)
    k = np.round(np.exp(rng.uniform(np.log(12), np.log(25_000), n))).astype(np.int64)
    out = []
    for i in range(n):
        f = V.FIELDS[field[i]]
        ui = u[i]

        def pick(xs: Sequence[str], j: int, ui: npt.NDArray[np.float64] = ui) -> str:
            return xs[int(ui[j] * len(xs))]

        tasks = topic_tasks[topic[i]] if ui[0] < 0.75 else f.tasks
        acr = "".join(V.ACRONYM_PARTS[p] for p in parts[i, : n_parts[i]])
        if ui[1] < 0.5:
            acr = acr.upper()
        slots = dict(
            A=pick(V.ADJECTIVES, 2), M=pick(f.methods, 3), T=pick(tasks, 4), N=pick(f.tasks, 5),
            S=pick(f.settings, 6), P=pick(f.properties, 7), X=acr, SUB=pick(V.SUBTITLES, 8),
            C=pick(V.COUNTRIES, 9), K=f"{k[i]:,}", Y=f"{y1[i]}\u2013{y2[i]}",
        )
        tpl = pick(f.templates, 10)
        endings = _endings(f, tpl)
        if endings and (ui[11] < 0.3 or _combinations(tpl, f) < _RICH):
            end = pick(endings, 12)
            tpl = end[1:] + tpl if end.startswith("^") else tpl + end
        t = tpl.format(**slots)
        if tag and acr not in t:
            t = f"{t} ({acr})" if ":" in t else f"{acr}: {t}"
        out.append(t)
    return out


def _titles(rng: np.random.Generator, field: np.ndarray, topic: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Distinct realistic titles, then a few planted exact duplicates, generic titles and markup."""
    topic_tasks = _topic_tasks(rng, field, topic)
    titles = _draw_titles(rng, field, topic, topic_tasks)
    _redraw_repeats(rng, titles, field, topic, topic_tasks)
    return titles, _plant_title_kinds(rng, titles)


def _topic_tasks(rng: np.random.Generator, field: np.ndarray, topic: np.ndarray) -> list[tuple[str, ...]]:
    """Up to five tasks of its field per topic: the tasks its titles mostly name."""
    n_topics = int(topic.max()) + 1 if len(field) else 0
    topic_field = np.zeros(n_topics, dtype=np.int64)
    topic_field[topic] = field
    topic_tasks = []
    for tp in range(n_topics):
        tasks = V.FIELDS[topic_field[tp]].tasks
        k = min(len(tasks), 5)
        topic_tasks.append(tuple(tasks[i] for i in rng.choice(len(tasks), size=k, replace=False)))
    return topic_tasks


def _redraw_repeats(
    rng: np.random.Generator, titles: list[str], field: np.ndarray, topic: np.ndarray, topic_tasks: list[tuple[str, ...]]
) -> None:
    """Re-draw (in place) every title that repeats an earlier one until all are distinct."""
    seen: set[str] = set()
    clash = []
    for i, t in enumerate(titles):
        if t in seen:
            clash.append(i)
        else:
            seen.add(t)
    rounds = 0
    while clash:  # re-draw accidental repeats (a few per thousand); later rounds add an acronym tag
        ci = np.array(clash)
        still = []
        for i, t in zip(clash, _draw_titles(rng, field[ci], topic[ci], topic_tasks, tag=rounds >= 2), strict=True):
            if t in seen:
                still.append(i)
            else:
                seen.add(t)
                titles[i] = t
        clash = still
        rounds += 1
        if rounds > 100:  # ~1e5 acronyms per template make this unreachable in practice
            raise RuntimeError(f"could not draw distinct titles for {len(clash)} papers")


def _plant_title_kinds(rng: np.random.Generator, titles: list[str]) -> np.ndarray:
    """Turn a few titles (in place) into exact duplicates, generic titles, or titles with MathML or HTML; returns each title's kind."""
    M = len(titles)
    kind = np.zeros(M, dtype=np.int8)
    u = rng.random(M)
    edges = np.cumsum([P_DUP_TITLE, P_GENERIC_TITLE, P_MATHML, P_HTML])
    kind[u < edges[3]] = 4
    kind[u < edges[2]] = 3
    kind[u < edges[1]] = 2
    kind[u < edges[0]] = 1
    plain = np.flatnonzero(kind == 0)
    for x in np.flatnonzero(kind > 0):
        if kind[x] == 1 and len(plain):
            titles[x] = titles[int(plain[rng.integers(0, len(plain))])]
        elif kind[x] == 2:
            titles[x] = V.GENERIC_TITLES[int(rng.integers(0, len(V.GENERIC_TITLES)))]
        elif kind[x] == 3:
            titles[x] = f"{titles[x]} in {V.MATHML_SNIPPETS[int(rng.integers(0, len(V.MATHML_SNIPPETS)))]}"
        elif kind[x] == 4:
            titles[x] = f"{V.HTML_SNIPPETS[int(rng.integers(0, len(V.HTML_SNIPPETS)))]} {titles[x]}"
    return kind


def _venues(rng: np.random.Generator, R: int) -> Venues:
    vs: list[V.Venue] = [V.ARXIV_VENUE]
    fields = [-1]
    for fi, f in enumerate(V.FIELDS):
        for v in f.venues:
            vs.append(v)
            fields.append(fi)
    ids: list[str] = []
    issn: list[str | None] = []
    urls: list[str] = []
    for v in vs:
        ids.append(str(uuid.UUID(bytes=rng.bytes(16), version=4)))
        if v.kind == "journal":
            d = [int(x) for x in rng.integers(0, 10, 7)]
            s = sum(di * w for di, w in zip(d, range(8, 1, -1), strict=True))
            c = (11 - s % 11) % 11
            issn.append(f"{''.join(map(str, d[:4]))}-{''.join(map(str, d[4:]))}{'X' if c == 10 else c}")
        else:
            issn.append(None)
        slug = "".join(ch for ch in (v.abbreviations[0] if v.abbreviations else v.name).lower() if ch.isalnum())
        urls.append(f"https://www.{slug or 'venue'}.example.org/")
    rev = np.full(len(vs), R, dtype=np.int16)
    if R > 1:
        sel = rng.random(len(vs)) < P_VENUE_REVISION
        rev[sel] = rng.integers(1, R, int(sel.sum()))
    return Venues(tuple(vs), np.array(fields, dtype=np.int16), tuple(ids), tuple(issn), tuple(urls), rev)


def _papers(
    rng: np.random.Generator, day: npt.NDArray[np.int64], year_only: npt.NDArray[np.bool_], field: npt.NDArray[np.int16], topic: npt.NDArray[np.int64], indexed: npt.NDArray[np.int64], deleted_at: npt.NDArray[np.int16],
    corpusid: npt.NDArray[np.int64], venues: Venues, tl: Timeline,
) -> Papers:
    M = len(day)
    titles, title_kind = _titles(rng, field, topic)
    pre = _preprints(rng, day, year_only, field)
    has_arxiv = pre.has_arxiv
    d64 = day.astype("datetime64[D]")
    arxiv = _arxiv_ids(rng, pre.arxiv_day.astype("datetime64[D]"), has_arxiv)
    venue, journal_venue = _paper_venues(rng, field, pre.arxiv_only, venues)
    u = rng.random(M)
    journal_kind = np.where(u < P_JOURNAL_NULL, JOURNAL_NULL, np.where(u < P_JOURNAL_NULL + P_JOURNAL_EMPTY, JOURNAL_EMPTY, JOURNAL_NORMAL)).astype(np.int8)
    volume = np.where(rng.random(M) < 0.75, rng.integers(1, 140, M), 0).astype(np.int32)
    first_page = np.where(rng.random(M) < 0.6, rng.integers(1, 3000, M), 0).astype(np.int32)
    n_pages = rng.integers(4, 30, M).astype(np.int32)
    has_doi, doi = _dois(rng, field, venue, arxiv, d64.astype("datetime64[Y]").astype(np.int64) + 1970, pre.doi)
    fp = np.array([f.pubmed for f in V.FIELDS])[field]
    pubmed = np.where(rng.random(M) < fp, 36_000_000 + rng.permutation(M) * 7 + rng.integers(0, 7, M), 0).astype(np.int64)
    open_access = np.where(has_arxiv | pre.has_doi, rng.random(M) < 0.95, rng.random(M) < 0.4)
    pubtype = np.zeros(M, dtype=np.int8)
    has_type = rng.random(M) < 0.7
    is_conf = np.array([v.kind == "conference" for v in venues.venues])[np.maximum(venue, 0)] & (venue > 0)
    pubtype[has_type] = np.where(is_conf[has_type], 2, 1)
    pubtype[has_type & (rng.random(M) < 0.05)] = 3
    second_field = np.where(rng.random(M) < P_SECOND_FIELD_DRAW, rng.integers(0, len(V.FIELDS), M), -1).astype(np.int16)
    second_field[second_field == field] = -1
    # From a child generator: every later draw of the world (and so its graph and titles) is unchanged.
    has_fields = rng.spawn(1)[0].random(M) < P_FIELDS
    hexs = rng.bytes(20 * M).hex()
    url_hash = [hexs[40 * i : 40 * i + 40] for i in range(M)]
    rev_step, rev_kind = _paper_revisions(rng, tl, indexed, deleted_at, year_only, has_doi, venue)
    return Papers(
        day=day, year_only=year_only, field=field, topic=topic, indexed=indexed, deleted_at=deleted_at,
        rev_step=rev_step, rev_kind=rev_kind, corpusid=corpusid, titles=titles, title_kind=title_kind,
        venue=venue, journal_venue=journal_venue, journal_kind=journal_kind, volume=volume, first_page=first_page, n_pages=n_pages,
        arxiv=arxiv, doi=doi, pubmed=pubmed, open_access=open_access, pubtype=pubtype,
        second_field=second_field, has_fields=has_fields, url_hash=url_hash, updated_sec=rng.integers(0, 86_400_000, M),
    )


@dataclass(frozen=True)
class _Preprints:
    """Which papers were preprints first, and where: an arXiv id (dated ``arxiv_day``), or a
    bioRxiv/medRxiv or Preprints.org DOI (``doi``, None for the others)."""

    has_arxiv: npt.NDArray[np.bool_]
    arxiv_only: npt.NDArray[np.bool_]  # the arXiv version is the only one (venue arXiv.org, no lag)
    arxiv_day: npt.NDArray[np.int64]  # the day the arXiv id was assigned (its month names the id)
    has_doi: npt.NDArray[np.bool_]
    doi: list[str | None]


def _preprints(rng: np.random.Generator, day: npt.NDArray[np.int64], year_only: npt.NDArray[np.bool_], field: npt.NDArray[np.int16]) -> _Preprints:
    """arXiv papers (``P_ARXIV`` of all papers, spread over the fields in proportion to their
    ``Field.arxiv``) and preprint-DOI papers (``P_PREPRINT_DOI``, among the others; bioRxiv for
    biology, medRxiv for medicine, Preprints.org for the other fields). A preprint that is not
    the paper's only version was posted ``PREPRINT_LAG_DAYS`` (exponential mean) before the
    version of record, so papers published soon after the cutoff may have pre-cutoff preprints.
    """
    M = len(day)
    dated = ~year_only
    fa = np.array([f.arxiv for f in V.FIELDS])[field]
    scale = P_ARXIV * M / max(float(fa[dated].sum()), 1e-12)
    has_arxiv = (rng.random(M) < fa * scale) & dated
    arxiv_only = has_arxiv & (rng.random(M) < P_ARXIV_ONLY)
    lag = np.rint(rng.exponential(PREPRINT_LAG_DAYS, M)).astype(np.int64)
    others = dated & ~has_arxiv
    has_doi = (rng.random(M) < P_PREPRINT_DOI * M / max(int(others.sum()), 1)) & others
    posted = day - lag
    doi: list[str | None] = [None] * M
    life = {V.FIELDS.index(V.BIO), V.FIELDS.index(V.MED)}
    d64 = posted.astype("datetime64[D]")
    for rank, i in enumerate(np.flatnonzero(has_doi).tolist()):
        date = str(d64[i])  # YYYY-MM-DD
        if int(field[i]) in life:  # bioRxiv/medRxiv: the posting day and a six-digit number
            doi[i] = f"10.1101/{date.replace('-', '.')}.{100_000 + rank:06d}"
        else:  # Preprints.org: the posting month, a four-digit number, the version
            doi[i] = f"10.20944/preprints{date[:4]}{date[5:7]}.{rank:04d}.v1"
    return _Preprints(has_arxiv, arxiv_only, np.where(arxiv_only, day, posted), has_doi, doi)


def _arxiv_ids(rng: np.random.Generator, d64: np.ndarray, has_arxiv: npt.NDArray[np.bool_]) -> list[str | None]:
    """arXiv ids YYMM.NNNNN, unique per month and numbered in submission order (None: no arXiv id)."""
    month = d64.astype("datetime64[M]").astype(np.int64)  # months since 1970-01
    arxiv: list[str | None] = [None] * len(d64)
    arx_idx = np.flatnonzero(has_arxiv)
    for mo in np.unique(month[arx_idx]):
        sel = arx_idx[month[arx_idx] == mo]
        hi = max(30_000, 2 * len(sel))
        nums = np.sort(rng.choice(np.arange(1, hi), size=len(sel), replace=False))
        y, mm = divmod(int(mo), 12)
        prefix = f"{(1970 + y) % 100:02d}{mm + 1:02d}."
        for i, num in zip(sel.tolist(), nums.tolist(), strict=True):
            arxiv[i] = f"{prefix}{num:05d}" if num < 100_000 else f"{prefix}{num}"
    return arxiv


def _paper_venues(
    rng: np.random.Generator, field: npt.NDArray[np.int16], preprint: npt.NDArray[np.bool_], venues: Venues
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Each paper's venue (-1: none) and the venue its ``journal`` names (kept when the venue is blanked).

    Preprint-only arXiv papers (``preprint``) carry arXiv.org; the others a venue of their field, the first ones likelier.
    """
    M = len(field)
    venue = np.full(M, -1, dtype=np.int32)
    venue[preprint] = 0
    for fi in range(len(V.FIELDS)):
        sel = np.flatnonzero((field == fi) & ~preprint)
        cands = np.flatnonzero(venues.field == fi)
        w = 1.0 / (np.arange(len(cands)) + 1.0)
        venue[sel] = cands[rng.choice(len(cands), size=len(sel), p=w / w.sum())]
    journal_venue = venue.copy()
    venue[rng.random(M) < P_NO_VENUE] = -1
    return venue, journal_venue


def _dois(
    rng: np.random.Generator, field: npt.NDArray[np.int16], venue: npt.NDArray[np.int32], arxiv: list[str | None], years: npt.NDArray[np.int64],
    preprint_doi: list[str | None],
) -> tuple[npt.NDArray[np.bool_], list[str | None]]:
    """Which papers have a DOI, and the DOIs: unique suffixes; arXiv preprints get their DataCite DOI,
    papers with a preprint DOI (``_preprints``) that one."""
    M = len(field)
    fd = np.array([f.doi for f in V.FIELDS])[field]
    has_preprint_doi = np.array([d is not None for d in preprint_doi], dtype=bool)
    has_doi = (rng.random(M) < fd) | has_preprint_doi
    doi: list[str | None] = [None] * M
    serial = rng.permutation(M) + 10_000
    for i in np.flatnonzero(has_doi).tolist():
        if has_preprint_doi[i]:
            doi[i] = preprint_doi[i]
        elif venue[i] == 0 and arxiv[i] is not None:
            doi[i] = f"10.48550/arXiv.{arxiv[i]}"
        else:
            reg = 1000 + 17 * max(int(venue[i]), 0) + int(field[i])
            style = i % 3
            if style == 0:
                doi[i] = f"10.{reg}/s{41000 + int(field[i]) * 7}-{years[i] % 100:02d}-{serial[i]:07d}-{serial[i] % 10}"
            elif style == 1:
                doi[i] = f"10.{reg}/j.{field[i]}.{years[i]}.{serial[i]:07d}"
            else:
                doi[i] = f"10.{reg}/{years[i]}.{serial[i]}"
    return has_doi, doi


def _paper_revisions(
    rng: np.random.Generator, tl: Timeline, indexed: npt.NDArray[np.int64], deleted_at: npt.NDArray[np.int16], year_only: npt.NDArray[np.bool_],
    has_doi: npt.NDArray[np.bool_], venue: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int8]]:
    """Metadata fixes landing in a later release (a date, a DOI or a venue missing before): their release and kind."""
    M = len(indexed)
    R = len(tl.release_ids)
    rev_step = np.full(M, R, dtype=np.int16)
    rev_kind = np.zeros(M, dtype=np.int8)
    if R > 1:
        cand_step = rng.integers(1, R, M).astype(np.int16)
        present_before = (indexed <= tl.release_days[cand_step - 1]) & (deleted_at > cand_step)
        kind = rng.integers(1, 4, M).astype(np.int8)
        applicable = np.where(kind == REV_DATE, ~year_only, np.where(kind == REV_DOI, has_doi, venue >= 0))
        sel = (rng.random(M) < P_PAPER_REVISION) & present_before & applicable
        rev_step[sel] = cand_step[sel]
        rev_kind[sel] = kind[sel]
    return rev_step, rev_kind


def _authors(rng: np.random.Generator, papers: Papers, n_topics: int, topic_field: np.ndarray) -> Authors:
    M = len(papers)
    topic_size = np.bincount(papers.topic, minlength=n_topics)
    pool = np.maximum(8, (topic_size * 1.1).astype(np.int64))
    pool_start = np.concatenate([[0], np.cumsum(pool)])
    A = int(pool_start[-1])
    k = 1 + rng.negative_binomial(2, 0.4, M)
    k[rng.random(M) < P_NO_AUTHORS] = 0
    np.minimum(k, 60, out=k)
    paper = np.repeat(np.arange(M, dtype=np.int64), k)
    t = papers.topic[paper].copy()
    elsewhere = rng.random(len(paper)) < 0.12
    fs = np.concatenate([[0], np.cumsum(np.bincount(topic_field, minlength=len(V.FIELDS)))])
    f = papers.field[paper][elsewhere]
    t[elsewhere] = fs[f] + (rng.random(int(elsewhere.sum())) * (fs[f + 1] - fs[f])).astype(np.int64)
    local = (pool[t] * rng.random(len(paper)) ** 2.5).astype(np.int64)
    author = pool_start[t] + np.minimum(local, pool[t] - 1)
    # distinct authors per paper, keeping the drawn order
    _, first = np.unique(paper * A + author, return_index=True)
    first.sort()
    paper, author = paper[first], author[first]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(paper, minlength=M))]).astype(np.int64)
    # ids grow with the author's first appearance; authors of no paper get none
    first_seen = np.full(A, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first_seen, author, papers.indexed[paper])
    used = first_seen < np.iinfo(np.int64).max
    authorid = np.full(A, -1, dtype=np.int64)
    ui = np.flatnonzero(used)
    authorid[ui] = _increasing_ids(rng, first_seen[ui], AUTHORID_BASE, 2000)
    fi = rng.integers(0, len(V.FIRST_NAMES), A)
    mi = rng.integers(0, 26, A)
    li = rng.integers(0, len(V.LAST_NAMES), A)
    style = rng.random(A)
    names, alias = [], []
    for a in range(A):
        first_n, last_n = V.FIRST_NAMES[fi[a]], V.LAST_NAMES[li[a]]
        full = f"{first_n} {last_n}"
        if style[a] < 0.7:
            names.append(full)
            alias.append(None if style[a] < 0.55 else f"{first_n[0]}. {last_n}")
        elif style[a] < 0.9:
            names.append(f"{first_n[0]}. {last_n}")
            alias.append(full)
        else:
            names.append(f"{first_n} {chr(65 + mi[a])}. {last_n}")
            alias.append(full)
    return Authors(authorid, names, alias, rng.random(A) < 0.3, first_seen, offsets, author)


def _context_bank(rng: np.random.Generator, size: int) -> tuple[tuple[tuple[str, ...], tuple[str | None, ...]], ...]:
    bank = []
    for _ in range(size):
        f = V.FIELDS[int(rng.integers(0, len(V.FIELDS)))]
        n = 1 + int(rng.random() < 0.35) + int(rng.random() < 0.15)
        sents, intents = [], []
        for _ in range(n):
            tpl = V.CONTEXT_TEMPLATES[int(rng.integers(0, len(V.CONTEXT_TEMPLATES)))]
            marker = f"[{int(rng.integers(1, 80))}]" if rng.random() < 0.6 else f"({V.LAST_NAMES[int(rng.integers(0, len(V.LAST_NAMES)))]} et al., {int(rng.integers(2019, 2027))})"

            def pick(xs: Sequence[str]) -> str:
                return xs[int(rng.integers(0, len(xs)))]

            sents.append(tpl.format(T=pick(f.tasks), M=pick(f.methods), S=pick(f.settings), P=pick(f.properties).lower(), N=pick(f.tasks), c=marker))
            intents.append(None if rng.random() < 0.15 else V.INTENTS[int(rng.choice(3, p=INTENT_SHARES))])
        bank.append((tuple(sents), tuple(intents)))
    return tuple(bank)


# ---------------------------------------------------------------------------------- releases


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
