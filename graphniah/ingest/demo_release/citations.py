"""How the demo world's papers cite each other: dates, topics and islands, indexing and deletion, and the
citation rows with their changes across releases.

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

import numpy as np
import numpy.typing as npt

from graphniah.ingest.demo_release import vocabulary as V
from graphniah.ingest.demo_release.records import RELEASE_INTERVAL_DAYS, Citations, Timeline, increasing_ids

PRE_SHARE = 0.20  # share of papers published before the cutoff (only reference targets: kept small, the window is what matters)
P_NULL = 0.20  # unresolved references (real S2AG rows: 23 % in the 2022 sample, 25 % in a 2024 diff)
P_NO_REFS = 0.10  # papers without any parsed reference
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
P_CONTEXTS, P_INFLUENTIAL = 0.37, 0.06  # real S2AG sample: 37 % of rows with contexts, 6 % influential
P_DUP_ROW = 0.002  # citation rows written twice (in two shards) in a release
P_ROW_LATE, P_ROW_RETRACT, P_ROW_REVISION = 0.004, 0.0005, 0.01
CITATIONID_BASE = 4_860_000_000


def dates_and_topics(
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


def indexing_days(rng: np.random.Generator, day: np.ndarray, tl: Timeline) -> np.ndarray:
    """Day a paper first shows up in S2: usually days after publication, sometimes months."""
    M = len(day)
    lag = np.where(rng.random(M) < 0.8, rng.exponential(10.0, M), rng.uniform(20, 200, M)).astype(np.int64)
    idx = day + lag
    late = idx > tl.newest_day
    # still in the newest release: re-draw the lag inside the time that is left
    idx[late] = day[late] + (rng.random(int(late.sum())) * (tl.newest_day - day[late] + 1)).astype(np.int64)
    return idx


def deletions(rng: np.random.Generator, indexed: np.ndarray, tl: Timeline, per_step: int) -> np.ndarray:
    R = len(tl.release_ids)
    deleted_at = np.full(len(indexed), R, dtype=np.int16)
    for s in range(1, R):
        cand = np.flatnonzero((indexed <= tl.release_days[s - 1]) & (deleted_at == R))
        pick = rng.choice(cand, size=min(per_step, len(cand)), replace=False)
        deleted_at[pick] = s
    return deleted_at


def draw_citations(
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
        citationid=increasing_ids(rng, first_day, CITATIONID_BASE, 300),
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
