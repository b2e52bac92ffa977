"""What the viewer's pages are built from: examples, every run's counted answer, and paper metadata.

Examples are read with :func:`graphniah.formats.examples.iter_examples`, journals with
:func:`graphniah.formats.journal.read_journal`, and which record of an example counts, and whether it
is right, with :mod:`graphniah.scoring` (``split_runs`` → ``counted_records`` → ``score_record``),
so the viewer shows exactly the answers every accuracy in the project is computed from.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from graphniah.errors import GraphNIAHError
from graphniah.formats.dataset import design_fields
from graphniah.formats.examples import Example, PaperMeta, clean_text, papers_from_table
from graphniah.formats.journal import RunRecord, read_journal
from graphniah.formats.snapshot import Snapshot, find_snapshot_by_hash, read_papers
from graphniah.layout import journals_in
from graphniah.scoring import ListScore, counted_records, run_labels, score_record, split_runs

__all__ = ["Answer", "Outcome", "PaperCard", "PaperLookup", "RunView", "ShownPaper", "example_facts", "load_answers", "outcome_of"]

_ID = re.compile(r"^[A-Za-z0-9_.-]{1,200}$")


@dataclass(frozen=True, slots=True)
class RunView:
    """One run (a model at one settings hash); ``label`` follows the report's rule, so report links match."""

    label: str
    model: str
    settings_hash: str
    journal: Path


@dataclass(frozen=True, slots=True)
class Answer:
    """A run's counted record of one example, scored by the current rule."""

    status: str  # ok | failed
    extracted: str | None
    correct: bool
    response: str | None
    reasoning: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning_tokens: int | None
    cost_usd: float | None
    response_time_s: float | None
    attempts: int
    error: str | None  # the last error of a failed call (already redacted by the runner)
    listing: ListScore | None = None  # a list answer's match against the truth (F1, precision, recall)
    raw: str | None = None  # the answer block's content (a list answer's lines, classified per paper by the page data)

    @property
    def shown(self) -> str | None:
        """The answer as the pages show it: the extracted answer, or a list answer's F1, precision and recall."""
        if self.listing is not None and self.extracted is not None:
            s = self.listing
            return f"F1 {s.f1:.2f} (precision {s.precision:.2f}, recall {s.recall:.2f})"
        return self.extracted


Outcome = str  # "correct" | "wrong" | "failed" | "none" (the run has no record of the example)


def outcome_of(answer: Answer | None) -> Outcome:
    if answer is None:
        return "none"
    if answer.status != "ok":
        return "failed"
    return "correct" if answer.correct else "wrong"


def check_id(example_id: str, where: str) -> str:
    """Example ids name files of the site, so they must be plain (the sampler's are ``task-hex``)."""
    if not _ID.match(example_id) or example_id.startswith("."):
        raise GraphNIAHError(f"{where}: example id {example_id!r} cannot name a file (letters, digits, '-', '_', '.' only)")
    return example_id


def _answer(r: RunRecord) -> Answer:
    s = score_record(r)
    u = r.usage
    return Answer(
        status=r.status,
        extracted=s.extracted,
        correct=s.correct,
        response=r.response,
        reasoning=r.reasoning,
        prompt_tokens=u.prompt_tokens if u else None,
        completion_tokens=u.completion_tokens if u else None,
        reasoning_tokens=u.reasoning_tokens if u else None,
        cost_usd=r.cost_usd,
        response_time_s=r.response_time_s,
        attempts=r.attempts,
        error=r.errors[-1].message if r.status != "ok" and r.errors else None,
        listing=s.listing,
        raw=s.raw,
    )


def load_answers(runs_dir: str | os.PathLike[str] | None) -> tuple[tuple[RunView, ...], dict[tuple[str, int], Answer]]:
    """Every run in ``runs_dir/*.jsonl`` and its counted answer per example: ``{(example id, run index): Answer}``."""
    if runs_dir is None:
        return (), {}
    d = Path(runs_dir)
    if not d.is_dir():
        raise GraphNIAHError(f"--runs {d}: not a folder of run journals")
    keys: list[tuple[str, str]] = []
    journal_of: dict[tuple[str, str], Path] = {}
    records: dict[tuple[str, str], list[RunRecord]] = {}
    for path in journals_in(d):
        for key, recs in split_runs(read_journal(path)).items():
            if key not in records:
                keys.append(key)
                journal_of[key] = path
                records[key] = []
            records[key].extend(recs)
    efforts = {k: next((r.reasoning_effort for r in records[k] if r.reasoning_effort), None) for k in keys}
    runs = tuple(RunView(label, k[0], k[1], journal_of[k]) for label, k in zip(run_labels(keys, efforts), keys, strict=True))
    answers = {(eid, i): _answer(r) for i, k in enumerate(keys) for eid, r in counted_records(records[k]).items()}
    return runs, answers


def example_facts(example: Example) -> dict[str, object]:
    """The design variables the index filters on (:func:`graphniah.formats.dataset.design_fields`, the
    one reader of them; the index has no "none of these" filter) and the answer as the example's label."""
    facts: dict[str, object] = {k: v for k, v in design_fields(example).items() if k != "none_option"}
    label = f"{len(example.targets)} papers" if example.task == "list" else example.answer  # a list answer is long
    return facts | {"label": label}


class ShownPaper(Protocol):
    """What a page shows of a paper (a :class:`PaperCard`, or a full ``PaperMeta``)."""

    @property
    def title(self) -> str: ...

    @property
    def authors(self) -> tuple[str, ...]: ...

    @property
    def publication_date(self) -> dt.date | None: ...

    @property
    def year(self) -> int | None: ...


class PaperCard(NamedTuple):
    """A paper's title, authors and date, cleaned as ``PaperMeta`` cleans them (``clean_text``); a
    named tuple, which a page's few hundred are built faster as than as a frozen dataclass."""

    title: str
    authors: tuple[str, ...]
    publication_date: dt.date | None
    year: int | None


def _cleaned(values: list[str | None]) -> list[str | None]:
    """``clean_text`` of each value; when none needs it (the common case), each as it is (None for an
    empty one), without a scan per value. What clean_text changes is whitespace other than single
    spaces inside a value; every whitespace character but the space is unprintable (Unicode
    categories Cc, Zs, Zl, Zp), so one ``isprintable`` and a few substring tests over all the values
    joined by ``|`` rule it out (another unprintable character, or a ``|`` beside a space inside a
    value, only sends them all the slow way)."""
    blob = "|".join(v for v in values if v)
    if blob.isprintable() and "  " not in blob and " |" not in blob and "| " not in blob and not blob.startswith(" ") and not blob.endswith(" "):
        return [v or None for v in values]
    return [clean_text(v) for v in values]


def _int64s(table: pa.Table) -> np.ndarray:
    """The ``corpusid`` column of a one-chunk table as an int64 array, read from its buffer (not through
    ``np.asarray``, which imports pandas)."""
    col = table.column("corpusid").cast(pa.int64())
    if col.num_chunks == 0:
        return np.zeros(0, dtype=np.int64)
    chunk = col.chunk(0)
    if chunk.null_count:
        raise GraphNIAHError("a papers table has a paper without a corpus id")
    return np.frombuffer(chunk.buffers()[1], dtype=np.int64, count=len(chunk), offset=chunk.offset * 8)


class PaperLookup:
    """Paper metadata of examples from the snapshots they were sampled from (found by the recipe's hash).

    Each snapshot's ``papers.parquet`` is read once (only the columns asked for: the pages need
    five of the eight :meth:`meta` reads); a snapshot that is not under ``root`` gives no metadata
    (the pages then show corpus ids) and is listed in ``missing``.
    """

    _COLUMNS = ("corpusid", "title", "authors", "venue", "journal", "publication_date", "year", "arxiv_id")
    _CARD_COLUMNS = ("corpusid", "title", "authors", "publication_date", "year")

    def __init__(self, root: str | os.PathLike[str] | None):
        self.root = Path(root) if root is not None else None
        self._snapshots: dict[str, Snapshot | None] = {}
        self._tables: dict[tuple[str, tuple[str, ...]], tuple[np.ndarray, pa.Table]] = {}
        self.missing: set[str] = set()

    def _snapshot(self, snapshot_hash: str) -> Snapshot | None:
        if snapshot_hash not in self._snapshots:
            snap = None
            if self.root is not None and self.root.is_dir():
                try:
                    snap = find_snapshot_by_hash(self.root, snapshot_hash)
                except GraphNIAHError:
                    snap = None
            if snap is None:
                self.missing.add(snapshot_hash)
            else:
                _ = snap.papers_path  # checked against its manifest now, even when every page is cached
            self._snapshots[snapshot_hash] = snap
        return self._snapshots[snapshot_hash]

    def _table(self, snapshot_hash: str, columns: tuple[str, ...]) -> tuple[np.ndarray, pa.Table] | None:
        snap = self._snapshot(snapshot_hash)
        if snap is None:
            return None
        if (snapshot_hash, columns) not in self._tables:
            t = read_papers(snap, columns).combine_chunks()
            ids = _int64s(t)
            if ids.size > 1 and not bool((np.diff(ids) > 0).all()):  # snapshots write papers sorted; sort if not
                t = t.sort_by("corpusid").combine_chunks()
                ids = _int64s(t)
            self._tables[snapshot_hash, columns] = (ids, t)
        return self._tables[snapshot_hash, columns]

    def available(self, snapshot_hash: str) -> bool:
        """Whether the snapshot with this hash is under ``root`` (its metadata can be shown)."""
        return self._snapshot(snapshot_hash) is not None

    def _rows(self, example: Example, columns: tuple[str, ...], extra: Iterable[int] = ()) -> pa.Table | None:
        """The rows of the example's papers in its snapshot (None when the snapshot is not available)."""
        found = self._table(example.recipe.snapshot_hash, columns)
        if found is None:
            return None
        ids, table = found
        want = np.unique(np.asarray([*example.papers, *extra], dtype=np.int64))
        pos = np.searchsorted(ids, want)
        ok = (pos < ids.size) & (ids[np.minimum(pos, ids.size - 1)] == want)
        if not ok.all():
            raise GraphNIAHError(f"example {example.id}: papers {want[~ok][:5].tolist()} are not in its snapshot "
                                 f"{example.recipe.snapshot_hash[:12]} under {self.root}")
        # The indices wrap the numpy buffer: pa.array() would first import pandas (pyarrow's check for
        # pandas input; also behind np.asarray of an Arrow column), a third of a second of a build for nothing.
        return table.take(pa.Array.from_buffers(pa.int64(), len(pos), [None, pa.py_buffer(pos.astype(np.int64))]))

    def meta(self, example: Example, extra: Iterable[int] = ()) -> dict[int, PaperMeta] | None:
        """``{corpusid: PaperMeta}`` of the example's papers, or None when its snapshot is not available."""
        rows = self._rows(example, self._COLUMNS, extra)
        return None if rows is None else papers_from_table(rows)

    def cards(self, example: Example) -> dict[int, PaperCard] | None:
        """``{corpusid: PaperCard}`` of the example's papers (what its page shows), or None when its snapshot
        is not available: :meth:`meta`'s titles, authors and dates, read column by column (a fifth of the time)."""
        rows = self._rows(example, self._CARD_COLUMNS)
        if rows is None:
            return None
        authors = rows.column("authors")
        # null author entries give null names; cleaning gives None for those and for empty ones, dropped below
        names = _cleaned(pc.struct_field(pc.list_flatten(authors), "name").to_pylist())
        counts = [n or 0 for n in pc.list_value_length(authors).to_pylist()]  # a null list has no authors (fill_null would import pandas)
        out: dict[int, PaperCard] = {}
        at = 0
        for cid, title, n, date, year in zip(rows.column("corpusid").to_pylist(), _cleaned(rows.column("title").to_pylist()), counts,
                                             rows.column("publication_date").to_pylist(), rows.column("year").to_pylist(), strict=True):
            if title is None:
                raise GraphNIAHError(f"example {example.id}: paper {cid} has an empty title in snapshot {example.recipe.snapshot_hash[:12]}")
            out[cid] = PaperCard(title, tuple(filter(None, names[at : at + n])), date, year)
            at += n
        return out
