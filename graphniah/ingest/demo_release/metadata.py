"""What the demo world's records say besides citations: titles, venues, dates shown, preprints, DOIs,
revisions, authors, and the bank of citation contexts.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.ingest.demo_release import vocabulary as V
from graphniah.ingest.demo_release.records import (
    JOURNAL_EMPTY,
    JOURNAL_NORMAL,
    JOURNAL_NULL,
    REV_DATE,
    REV_DOI,
    Authors,
    Papers,
    Timeline,
    Venues,
    increasing_ids,
)

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
P_DUP_TITLE, P_GENERIC_TITLE, P_MATHML, P_HTML = 0.0006, 0.0006, 0.003, 0.004
P_NO_AUTHORS = 0.012
P_NO_VENUE, P_JOURNAL_NULL, P_JOURNAL_EMPTY = 0.12, 0.08, 0.06
INTENT_SHARES = (0.79, 0.18, 0.03)  # background, methodology, result (real S2AG sample)
P_PAPER_REVISION, P_VENUE_REVISION = 0.015, 0.05
AUTHORID_BASE = 1_000_000

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


@functools.cache
def _ending_rule(field: int, template: str) -> tuple[tuple[str, ...], bool]:
    """The endings that fit a template of field ``V.FIELDS[field]``, and whether the template has so few
    combinations that it always takes one. Cached by the field's index: a cache keyed by the
    :class:`~vocabulary.Field` itself hashed all its vocabulary on every title (a tenth of the titles' time)."""
    f = V.FIELDS[field]
    return _endings(f, template), _combinations(template, f) < _RICH


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
        endings, few = _ending_rule(int(field[i]), tpl)
        if endings and (ui[11] < 0.3 or few):
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


def draw_venues(rng: np.random.Generator, R: int) -> Venues:
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


def draw_papers(
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


def draw_authors(rng: np.random.Generator, papers: Papers, n_topics: int, topic_field: np.ndarray) -> Authors:
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
    authorid[ui] = increasing_ids(rng, first_seen[ui], AUTHORID_BASE, 2000)
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


def context_bank(rng: np.random.Generator, size: int) -> tuple[tuple[tuple[str, ...], tuple[str | None, ...]], ...]:
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
