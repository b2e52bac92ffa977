"""The records of the synthetic world behind the demo release, and its timeline of releases.

``Papers``, ``Citations``, ``Authors`` and ``Venues`` hold one numpy array per attribute, one entry per
record of any release; ``World`` bundles them with the ``Timeline``, and ``ReleaseState`` says which
records one release holds and what changed. They are built by :mod:`.world` (``build_world``,
``release_states``) from the parts in :mod:`.citations` and :mod:`.metadata`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from graphniah.ingest.demo_release import vocabulary as V

DEMO_CUTOFF = dt.date(2026, 4, 1)  # the project's default cutoff; the window the demo graph is built around
PRE_START = dt.date(2023, 1, 1)  # oldest papers in the demo release
RELEASE_INTERVAL_DAYS = 7  # S2AG publishes releases about weekly

REV_NONE, REV_DATE, REV_DOI, REV_VENUE = 0, 1, 2, 3
JOURNAL_NORMAL, JOURNAL_NULL, JOURNAL_EMPTY = 0, 1, 2


def day_of(d: dt.date) -> int:
    return (d - dt.date(1970, 1, 1)).days


def date_of(day: int) -> dt.date:
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
    days = np.array([day_of(first_release) + RELEASE_INTERVAL_DAYS * i for i in range(releases)], dtype=np.int64)
    ids = tuple(date_of(d).isoformat() for d in days)
    return Timeline(ids, days, day_of(DEMO_CUTOFF), day_of(PRE_START))


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


def increasing_ids(rng: np.random.Generator, order_key: np.ndarray, base: int, max_gap: int) -> np.ndarray:
    """Unique ids that grow with ``order_key`` (S2 ids grow with ingestion time)."""
    order = np.argsort(order_key, kind="stable")
    ids = np.empty(len(order_key), dtype=np.int64)
    ids[order] = base + np.cumsum(rng.integers(1, max_gap + 1, len(order_key)))
    return ids
