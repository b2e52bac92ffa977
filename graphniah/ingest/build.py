"""Snapshot building: S2AG release (or release store) → papers.parquet, edges.parquet, manifest.json.

Three entry points, one query:

- ``ingest_release`` reads a release folder straight from its gzip JSON shards (CRC-verified,
  see ``graphniah.ingest.s2ag.read``) into tables of a scratch DuckDB database (citations: only the two
  columns the snapshot needs) and runs the snapshot query on them.
- ``snapshot_from_store`` runs the same snapshot query over a ``ReleaseStore`` that was loaded
  with a release and moved forward with diffs.
- ``ingest_openalex`` reads an OpenAlex works folder into the same tables
  (``graphniah.ingest.openalex.read``: one record per work, ``referenced_works`` as citation rows)
  and runs the same query; its preprint dates come from the ids its locations name.

The snapshot query (``_classify``) counts every paper and citation row under the first drop
reason of docs/architecture.md that applies (titles: ``graphniah.ingest.s2ag.titles`` — MathML titles are
dropped, inline tags removed from the others; preprints: ``graphniah.ingest.s2ag.preprints`` — a paper
whose arXiv id or preprint DOI dates it before the cutoff is dropped, counted per source), and
selects the eligible papers (with their ``earliest_public_date``) and the edges;
``_write`` streams them, sorted, into Parquet files and hashes their content on the way. What
the rules derive from a paper row whatever the cutoff (parsed date, rendered title, MathML flag,
earliest public date and its source: ``derived_papers_sql``) is computed once per row — by the
direct ingest while it reads the papers — so the counts, the eligible ids and the output only
read stored columns instead of running the regular expressions three times.

Memory is bounded whatever the release size (``graphniah.ingest.s2ag.limits``): DuckDB works
within its ``memory_limit`` and spills tables, aggregates and sorts to a temporary folder beside
the snapshot, and Python only ever holds a few record batches. The store keeps exactly one row per primary key,
chosen by the same content order the snapshot query uses to drop duplicate rows, so
ingest(release N+1) and store(N) + diff(N→N+1) give the same rows (tested on demo releases).

The snapshot folder is built under a temporary name and renamed into place (``atomic_dir``), so
an interrupted run never leaves a visible partial snapshot and a re-run either refuses or swaps
the complete new folder in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import tempfile
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graphniah import __version__
from graphniah.atomic import atomic_dir, remove_stale_temps, sha256_file, temp_prefix
from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import (
    EDGES_FILE,
    EDGES_SCHEMA,
    MANIFEST_FILE,
    PAPERS_FILE,
    PAPERS_SCHEMA,
    parse_cutoff,
    write_snapshot_manifest,
)
from graphniah.ingest.s2ag import preprints, titles
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, READ_DATASETS, VENUES, read_release_info, release_sources
from graphniah.ingest.s2ag.limits import Limits, out_of_memory, spilled_bytes
from graphniah.ingest.s2ag.read import VerifiedRead, require_papers
from graphniah.ingest.s2ag.sql import TABLES, citations_sql, duplicate_losers_sql, fetch_row, papers_sql, sql_str, venues_sql

if TYPE_CHECKING:
    from graphniah.ingest.s2ag.store import ReleaseStore

MANIFEST_FORMAT = 3  # format_version of graphniah.formats.snapshot.SnapshotManifest

# Drop reasons, in the order they are tested: a row is counted under the first that applies.
PAPER_DROP_REASONS = (
    "missing_corpusid",
    "duplicate_corpusid",  # more rows with one corpusid: one is kept (content order), others dropped
    "no_publication_date",  # publicationdate null (year only, or nothing)
    "invalid_publication_date",  # publicationdate not a complete YYYY-MM-DD date
    "before_cutoff",
    # an arXiv id or preprint DOI dates the paper before the cutoff (graphniah.ingest.s2ag.preprints)
    "preprint_before_cutoff",
    "empty_title",  # null, only white space, or nothing left once inline tags are removed
    "mathml_title",  # MathML in the title (graphniah.ingest.s2ag.titles); other markup is rendered
)
EDGE_DROP_REASONS = (
    "null_citing",
    "null_cited",
    "self_loop",
    "endpoint_not_eligible",  # citing or cited paper is not an eligible paper
    "duplicate",  # another row for the same (citing, cited) pair was kept
)


@dataclass(frozen=True)
class RowCounts:
    """Rows read, rows kept, and rows dropped per reason (every read row is kept or dropped once)."""

    read: int
    kept: int
    dropped: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Invariant: each input row is classified exactly once (kept, or dropped for one reason).
        if self.read != self.kept + sum(self.dropped.values()):
            raise RuntimeError(f"internal error: row counts do not add up: read {self.read}, kept {self.kept}, dropped {dict(self.dropped)}")

    def to_json(self) -> dict[str, Any]:
        return {"read": self.read, "kept": self.kept, "dropped": dict(self.dropped)}


@dataclass(frozen=True)
class PaperCounts(RowCounts):
    """Paper rows, plus how many kept papers have a title that the title rule changed, the
    ``preprint_before_cutoff`` rows per preprint source (``preprints.SOURCES``), and the
    earliest and latest earliest-public-date of the kept papers (None when none is kept)."""

    titles_cleaned: int = 0
    preprint_sources: Mapping[str, int] = field(default_factory=dict)
    earliest_public: tuple[dt.date | None, dt.date | None] = (None, None)

    def __post_init__(self) -> None:
        super().__post_init__()
        # Invariant: every preprint drop is attributed to exactly one source.
        if sum(self.preprint_sources.values()) != self.dropped.get("preprint_before_cutoff", 0):
            raise RuntimeError(f"internal error: preprint drops per source {dict(self.preprint_sources)} do not add up to {self.dropped.get('preprint_before_cutoff', 0)}")

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "titles_cleaned": self.titles_cleaned, "preprint_before_cutoff_by_source": dict(self.preprint_sources)}


@dataclass(frozen=True)
class SnapshotCounts:
    papers: PaperCounts  # paper records → eligible papers
    edges: RowCounts  # citation records → edges


# --------------------------------------------------------------------------------------------
# The snapshot query (shared by both paths)
# --------------------------------------------------------------------------------------------


def derived_papers_sql(source: str, source_dates: Mapping[str, str] | None = None) -> str:
    """The rows of ``source`` (normalised papers) with the columns the paper rules derive from a
    row whatever the cutoff: ``_pdate`` (the parsed publication date), ``_title`` (the title as
    rendered by the title rule, ``graphniah.ingest.s2ag.titles``), ``_mathml`` (a MathML title),
    ``_epd`` (the earliest public date, ``graphniah.ingest.s2ag.preprints``) and ``_epd_source``
    (the preprint source whose date equals ``_epd``, first in ``preprints.SOURCES`` on ties; NULL
    when none does). ``source_dates``: each preprint source's date expression over ``source``
    (default: those of the ``arxiv_id``/``doi`` columns; OpenAlex works name several ids, see
    ``graphniah.ingest.openalex.read.source_dates_sql``).

    Computed once per row: the direct ingest stores them in its papers table as it reads (the
    counts, the eligible ids and the output then only read them); the store's table holds only
    the normalised columns, so there they are computed inside the snapshot query. The title
    rule runs only on titles containing ``<`` or ``&``.
    """
    marked = titles.has_markup_sql("title")
    sources = dict(source_dates) if source_dates is not None else preprints.source_dates_sql("arxiv_id", "doi")
    dated = ", ".join(f"{sql} AS _{name}_date" for name, sql in sources.items())
    columns = {name: f"_{name}_date" for name in sources}
    epd = preprints.earliest_sql([*columns.values(), preprints.record_date_sql("_pdate", "year")])
    return f"""SELECT * EXCLUDE (_marked, _unescaped, {", ".join(columns.values())}),
               {preprints.earliest_source_sql(columns, "_epd")} AS _epd_source
        FROM (
        SELECT *, CASE WHEN _marked THEN {titles.render_sql("_unescaped")} ELSE title END AS _title,
               _marked AND {titles.is_mathml_sql("_unescaped")} AS _mathml, {epd} AS _epd
        FROM (
            SELECT *, TRY_CAST(publicationdate AS DATE) AS _pdate, {dated},
                   {marked} AS _marked, CASE WHEN {marked} THEN {titles.unescape_sql("title")} END AS _unescaped
            FROM {source}))"""


def _classified_papers_sql(cutoff: dt.date, *, has_duplicates: bool, derived: bool) -> str:
    """Every paper row with the derived columns (``derived_papers_sql``; ``derived``: the papers
    table holds them already), ``_reason`` (NULL = eligible) and ``_preprint`` (the source that
    dropped a ``preprint_before_cutoff`` row, else NULL).

    Rows that lose to another row with the same corpusid (``duplicate_losers_sql``, the rule the
    store applies too) are in ``_dup_losers``; when there are none the lookup is skipped.
    """
    duplicate = "rowid IN (SELECT _rid FROM _dup_losers)" if has_duplicates else "false"
    rows = f"(SELECT *, {duplicate} AS _duplicate FROM {TABLES[PAPERS]})"
    if not derived:
        rows = f"({derived_papers_sql(rows)})"
    cut = f"DATE {sql_str(cutoff.isoformat())}"
    reason = f"""CASE
        WHEN corpusid IS NULL THEN 'missing_corpusid'
        WHEN _duplicate THEN 'duplicate_corpusid'
        WHEN publicationdate IS NULL THEN 'no_publication_date'
        WHEN _pdate IS NULL THEN 'invalid_publication_date'
        WHEN _pdate < {cut} THEN 'before_cutoff'
        WHEN _epd < {cut} THEN 'preprint_before_cutoff'
        WHEN _title IS NULL OR _title = '' THEN 'empty_title'
        WHEN _mathml THEN 'mathml_title'
    END"""
    return f"""SELECT *, CASE WHEN _reason = 'preprint_before_cutoff' THEN _epd_source END AS _preprint
        FROM (SELECT *, {reason} AS _reason FROM {rows})"""


def _papers(con: duckdb.DuckDBPyConnection, cutoff: dt.date, *, derived: bool) -> tuple[PaperCounts, str]:
    """Count paper rows per drop reason (and eligible papers with a cleaned title), create
    ``_eligible`` (their corpusids), and return the query that yields the eligible papers in the
    output schema, sorted by corpusid.

    venue = the record's venue, else its journal name, else the name of its publication venue.
    """
    papers, venues = TABLES[PAPERS], TABLES[VENUES]
    con.execute(f"CREATE OR REPLACE TEMP TABLE _dup_losers AS {duplicate_losers_sql(PAPERS, papers)}")
    has_duplicates = fetch_row(con, "SELECT count(*) FROM _dup_losers")[0] > 0
    classified = _classified_papers_sql(cutoff, has_duplicates=has_duplicates, derived=derived)
    groups = con.execute(f"""
        SELECT coalesce(_reason, ''), _preprint, count(*), count(*) FILTER (WHERE _title IS DISTINCT FROM title), min(_epd), max(_epd)
        FROM ({classified}) GROUP BY ALL""").fetchall()
    rows = {r: (n, c) for r, src, n, c, _, _ in groups if src is None}
    by_source = {src: n for _, src, n, _, _, _ in groups if src is not None}
    earliest = next(((lo, hi) for r, _, _, _, lo, hi in groups if r == ""), (None, None))
    con.execute(f"CREATE OR REPLACE TEMP TABLE _eligible AS SELECT corpusid FROM ({classified}) WHERE _reason IS NULL")
    output = f"""
        SELECT p.corpusid, p._title AS title,
               list_transform(p.authors, lambda a: struct_pack(id := a.authorId, name := a.name)) AS authors,
               COALESCE(p.venue, p.journal, v.name) AS venue,
               p.journal,
               p._pdate AS publication_date,
               CAST(COALESCE(p.year, year(p._pdate)) AS INTEGER) AS year,
               p.arxiv_id, p.doi,
               p._epd AS earliest_public_date,
               p.fields_of_study
        FROM ({classified}) p
        LEFT JOIN (SELECT id, min(name) AS name FROM {venues} WHERE id IS NOT NULL GROUP BY id) v
               ON v.id = p.publicationvenueid
        WHERE p._reason IS NULL
        ORDER BY p.corpusid
    """
    kept, cleaned = rows.pop("", (0, 0))
    dropped = {r: rows.get(r, (0, 0))[0] for r in PAPER_DROP_REASONS}
    dropped["preprint_before_cutoff"] = sum(by_source.values())
    sources = {s: by_source.get(s, 0) for s in preprints.SOURCES}
    counts = PaperCounts(kept + sum(dropped.values()), kept, dropped, titles_cleaned=cleaned, preprint_sources=sources, earliest_public=earliest)
    return counts, output


def _edges(con: duckdb.DuckDBPyConnection, citations: str) -> tuple[RowCounts, str]:
    """Count citation rows per drop reason and return the query of the edges sorted by
    (citing, cited): distinct pairs between eligible papers, without self-loops.

    Two cheap scans instead of one that classifies every row: a filtered GROUP BY over the rows
    between eligible papers (its ``n`` > 1 marks duplicates) and a plain aggregate for the null
    and self-loop counts; endpoint_not_eligible is what remains. (Classifying all rows with
    CASE … IN and grouping them was slower when measured with ``bench/ingest.py``.)
    """
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _cit_groups AS
        SELECT citing, cited, count(*) AS n
        FROM {citations}
        WHERE citing <> cited
          AND citing IN (SELECT corpusid FROM _eligible)
          AND cited IN (SELECT corpusid FROM _eligible)
        GROUP BY citing, cited
    """)
    read, null_citing, null_cited, self_loop = fetch_row(con, f"""
        SELECT count(*),
               count(*) FILTER (WHERE citing IS NULL),
               count(*) FILTER (WHERE citing IS NOT NULL AND cited IS NULL),
               count(*) FILTER (WHERE citing = cited)
        FROM {citations}
    """)
    kept, between_eligible = fetch_row(con, "SELECT count(*), coalesce(sum(n), 0) FROM _cit_groups")
    between_eligible = int(between_eligible)
    dropped = {
        "null_citing": null_citing,
        "null_cited": null_cited,
        "self_loop": self_loop,
        # Rows with two non-null, distinct ends that did not survive the eligibility semi-joins.
        "endpoint_not_eligible": read - null_citing - null_cited - self_loop - between_eligible,
        "duplicate": between_eligible - kept,
    }
    return RowCounts(read, kept, dropped), "SELECT citing, cited FROM _cit_groups ORDER BY citing, cited"


def _offsets(arr: pa.Array) -> np.ndarray:
    """The n+1 value offsets of a string or list array (any offset width), as int64."""
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_list(arr.type)
    raw = np.frombuffer(arr.buffers()[1], dtype="<i8" if wide else "<i4") if len(arr) else np.zeros(1, "<i4")
    return raw[arr.offset : arr.offset + len(arr) + 1].astype("<i8")


def _int64_bytes(arr: pa.Array) -> bytes:
    values: npt.NDArray[np.int64] = pc.fill_null(arr, 0).to_numpy().astype("<i8")
    return values.tobytes()


class _ArrayHasher:
    """A canonical, streamable digest of one column (or nested child) of an Arrow schema.

    Each node keeps separate sha256 streams: the positions of its nulls (counted from the first
    row it was fed), and its values — integers and dates as little-endian int64 (nulls as 0);
    strings as their byte lengths and, in a second stream, their bytes (nulls as ""); lists as
    their lengths (nulls as 0) with the flattened values fed to a child node; structs field by
    field to one child node each. Feeding the rows in any number of batches appends the same
    bytes to every stream as feeding them at once, so the digest depends only on the logical
    values — not on batch boundaries, buffer layout, slicing or chunking. For a fixed schema the
    streams determine the values (lengths delimit the bytes, positions the nulls), so different
    columns give different digests. Everything is vectorised; no Python object is made per row.
    """

    def __init__(self, t: pa.DataType) -> None:
        self.type = t
        self.rows = 0
        self.null_count = 0
        self.nulls = hashlib.sha256()
        self.values = hashlib.sha256()
        self.data = hashlib.sha256()  # string bytes
        if pa.types.is_struct(t):
            self.children = [_ArrayHasher(t.field(i).type) for i in range(t.num_fields)]
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            self.children = [_ArrayHasher(t.value_type)]
        elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t) or pa.types.is_date32(t):
            self.children = []
        else:  # pragma: no cover - the snapshot schemas use only the types above
            raise TypeError(f"no canonical form for Arrow type {t}")

    def update(self, arr: pa.Array) -> None:
        valid: np.ndarray | None = None
        if arr.null_count:
            valid = arr.is_valid().to_numpy(zero_copy_only=False)
            self.nulls.update((np.flatnonzero(~valid) + self.rows).astype("<i8").tobytes())
            self.null_count += arr.null_count
        self.rows += len(arr)
        t = self.type
        if pa.types.is_struct(t):
            for i, child in enumerate(self.children):
                child.update(pc.struct_field(arr, [i]))
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            if valid is not None:
                arr = pc.fill_null(arr, "")  # null slots may legally span bytes; make them empty
            offsets = _offsets(arr)
            self.values.update(np.diff(offsets).tobytes())
            if offsets[-1] > offsets[0]:
                self.data.update(memoryview(arr.buffers()[2])[offsets[0] : offsets[-1]])
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            offsets = _offsets(arr)
            lengths = np.diff(offsets)
            if valid is None:
                self.values.update(lengths.tobytes())
                self.children[0].update(arr.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0])))
            else:  # null slots count as empty lists; list_flatten skips whatever they span
                self.values.update((lengths * valid).tobytes())
                self.children[0].update(pc.list_flatten(arr))
        elif pa.types.is_date32(t):
            self.values.update(_int64_bytes(arr.cast(pa.int32())))
        else:
            self.values.update(_int64_bytes(arr))

    def digest(self) -> bytes:
        h = hashlib.sha256(f"{self.type}\0{self.rows}\0{self.null_count}\0".encode())
        for stream in (self.nulls, self.values, self.data):
            h.update(stream.digest())
        for child in self.children:
            h.update(child.digest())
        return h.digest()


class ContentHasher:
    """sha256 of a table's logical content, fed batch by batch (see ``_ArrayHasher``).

    Computed from the data that is written, not from Parquet bytes (which depend on the writer's
    version and settings), so the same rows always give the same hash, however they are batched.
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self._columns = [_ArrayHasher(f.type) for f in schema]

    def update(self, batch: pa.RecordBatch) -> None:
        for hasher, col in zip(self._columns, batch.columns, strict=True):
            hasher.update(col)

    def hexdigest(self) -> str:
        h = hashlib.sha256(b"graphniah-table-v2\0")
        for field_, hasher in zip(self.schema, self._columns, strict=True):
            h.update(field_.name.encode() + b"\0" + hasher.digest())
        return h.hexdigest()


def table_content_hash(table: pa.Table) -> str:
    """The content hash of a whole table (``ContentHasher`` over its batches)."""
    hasher = ContentHasher(table.schema)
    for batch in table.to_batches():
        hasher.update(batch)
    return hasher.hexdigest()


# Parquet settings: dictionaries only where values repeat, statistics where readers filter. Each
# streamed batch becomes one row group.
_PAPERS_PARQUET = {"compression": "zstd", "use_dictionary": ["venue", "journal"], "write_statistics": ["corpusid", "publication_date", "year", "earliest_public_date"]}
_EDGES_PARQUET = {"compression": "zstd"}
_PAPERS_BATCH = 1 << 15  # ~10 MB of papers in Arrow
_EDGES_BATCH = 1 << 18  # 4 MB of edges


def snapshot_hash(papers_sha256: str, edges_sha256: str) -> str:
    """The snapshot's content hash, over the content hashes of its two tables."""
    return hashlib.sha256(f"graphniah-snapshot-v3\npapers {papers_sha256}\nedges {edges_sha256}\n".encode()).hexdigest()


def _stream_parquet(con: duckdb.DuckDBPyConnection, sql: str, schema: pa.Schema, path: Path, batch_rows: int, options: dict[str, Any]) -> tuple[int, str]:
    """Run ``sql`` and write its rows to ``path`` (exactly ``schema``) batch by batch, hashing
    them on the way; returns (rows, content hash). Memory: a few batches, whatever the table size.

    The writer thread writes batch i while this thread hashes it and DuckDB produces batch i+1
    (pyarrow and hashlib release the GIL).
    """
    hasher = ContentHasher(schema)
    rows = 0
    reader = con.sql(sql).to_arrow_reader(batch_rows)
    with pq.ParquetWriter(path, schema, **options) as writer, ThreadPoolExecutor(1, thread_name_prefix="write-parquet") as pool:
        pending: Future[None] | None = None
        for batch in reader:
            batch = batch.cast(schema)
            if pending is not None:
                pending.result()
            pending = pool.submit(writer.write_batch, batch)
            hasher.update(batch)
            rows += batch.num_rows
        if pending is not None:
            pending.result()
    return rows, hasher.hexdigest()


@dataclass(frozen=True)
class _Built:
    counts: SnapshotCounts
    snapshot_hash: str
    files: dict[str, Any]


class _Stages:
    """Wall and CPU time per stage, recorded in the manifest (where the time of a build goes), and
    the largest size of DuckDB's spill files seen at the end of a stage (``watch``)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.spilled = 0
        self._con: duckdb.DuckDBPyConnection | None = None

    def watch(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t, c = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.seconds[name] = round(time.perf_counter() - t, 3)
            self.cpu[name] = round(time.process_time() - c, 3)
        if self._con is not None:  # only after a stage that succeeded (the connection is usable)
            self.spilled = max(self.spilled, spilled_bytes(self._con))

    def to_json(self) -> dict[str, Any]:
        return {"wall": {**self.seconds, "total": round(time.perf_counter() - self.start, 3)}, "cpu": self.cpu}


@dataclass(frozen=True)
class _Classified:
    papers: PaperCounts
    papers_sql: str  # the eligible papers in output order (see _papers)
    edges: RowCounts
    edges_sql: str  # the edges in output order (see _edges)


_SCRATCH = ("_dup_losers", "_eligible", "_cit_groups")


def _classify(con: duckdb.DuckDBPyConnection, cutoff: dt.date, stage: _Stages, *, derived: bool) -> _Classified:
    """The snapshot query of both paths: classify papers (table ``papers``, with ``venues``;
    ``derived``: it holds the columns of ``derived_papers_sql``) and citation rows (table
    ``citations``)."""
    with stage("papers"):
        papers, papers_query = _papers(con, cutoff, derived=derived)
    with stage("edges"):
        edges, edges_query = _edges(con, TABLES[CITATIONS])
    return _Classified(papers, papers_query, edges, edges_query)


def _write(con: duckdb.DuckDBPyConnection, c: _Classified, folder: Path, stage: _Stages) -> _Built:
    """Stream both Parquet files (pyarrow, exactly ``PAPERS_SCHEMA``/``EDGES_SCHEMA``) and hash them.

    pyarrow rather than DuckDB's ``COPY``: DuckDB marks columns without nulls as required, so
    the schema a reader sees would depend on the data.
    """
    with stage("write"):
        n_papers, papers_sha = _stream_parquet(con, c.papers_sql, PAPERS_SCHEMA, folder / PAPERS_FILE, _PAPERS_BATCH, _PAPERS_PARQUET)
        n_edges, edges_sha = _stream_parquet(con, c.edges_sql, EDGES_SCHEMA, folder / EDGES_FILE, _EDGES_BATCH, _EDGES_PARQUET)
    if (n_papers, n_edges) != (c.papers.kept, c.edges.kept):  # pragma: no cover - the counts and the output share their queries
        raise RuntimeError(f"internal error: wrote {n_papers} papers and {n_edges} edges, counted {c.papers.kept} and {c.edges.kept}")
    files = {
        name: {"rows": rows, "bytes": (folder / name).stat().st_size, "sha256": sha256_file(folder / name), "content_sha256": content}
        for name, rows, content in ((PAPERS_FILE, n_papers, papers_sha), (EDGES_FILE, n_edges, edges_sha))
    }
    return _Built(SnapshotCounts(c.papers, c.edges), snapshot_hash(papers_sha, edges_sha), files)


@contextmanager
def _scratch_tables(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    try:
        yield
    finally:
        for t in _SCRATCH:
            con.execute(f"DROP TABLE IF EXISTS {t}")


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def _as_date(cutoff: dt.date | str) -> dt.date:
    if isinstance(cutoff, dt.datetime):
        return cutoff.date()
    if isinstance(cutoff, dt.date):
        return cutoff
    return parse_cutoff(cutoff)


@contextmanager
def _snapshot_folder(out: Path, replace: bool) -> Iterator[Path]:
    """``atomic_dir`` with a user-facing error when the snapshot exists and ``replace`` is off."""
    out = Path(out)
    if out.exists() and not replace:
        raise GraphNIAHError(f"snapshot {out} already exists; pass --replace (replace=True) to rebuild it")
    # No ``except FileExistsError`` around the body: it would also relabel errors of the build itself.
    with atomic_dir(out, replace=replace) as tmp:
        yield tmp


@contextmanager
def scratch_duckdb(near: Path, limits: Limits | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB database within ``limits`` whose spill files go to a temporary folder
    beside ``near`` (DuckDB evicts in-memory tables to it too, so a release larger than memory
    fits). A DuckDB out-of-memory error becomes a ``GraphNIAHError`` naming the limit."""
    limits = limits or Limits.resolve()
    near.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(near, "duckdb-spill")  # the spill folder of a killed run
    with tempfile.TemporaryDirectory(prefix=temp_prefix("duckdb-spill"), suffix=".tmp", dir=near) as spill:
        con = duckdb.connect(":memory:")
        try:
            limits.configure(con, Path(spill))
            yield con
        except duckdb.OutOfMemoryException as e:
            raise out_of_memory(e, limits) from None
        finally:
            con.close()


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _manifest(built: _Built, *, release_id: str, cutoff: dt.date, synthetic: bool, source: dict[str, Any], inputs: list[dict[str, Any]], stage: _Stages, limits: Limits) -> dict[str, Any]:
    return {
        "format_version": MANIFEST_FORMAT,
        "release_id": release_id,
        "cutoff": cutoff.isoformat(),
        "synthetic": synthetic,
        "source": source,
        "inputs": inputs,
        "rows": {"papers": built.counts.papers.to_json(), "edges": built.counts.edges.to_json()},
        "earliest_public_date": dict(zip(("min", "max"), built.counts.papers.earliest_public, strict=True)),
        "eligibility": {"titles": titles.rule_json(), "earliest_public_date": preprints.rule_json(), "paper_drop_reasons": list(PAPER_DROP_REASONS), "edge_drop_reasons": list(EDGE_DROP_REASONS)},
        "files": built.files,
        "snapshot_hash": built.snapshot_hash,
        "package_version": __version__,
        "duckdb_version": duckdb.__version__,
        "created_at": _now(),
        "timings": stage.to_json(),
        # Spill files at stage ends (a lower bound of the peak: a sort's runs vanish with it).
        "resources": {**limits.to_json(), "spilled_bytes_at_stage_ends": stage.spilled},
    }


def ingest_release(
    release_dir: Path,
    cutoff: dt.date,
    out: Path,
    *,
    replace: bool = False,
    release_id: str | None = None,
    limits: Limits | None = None,
) -> Path:
    """Build the snapshot of ``release_dir`` for papers published on or after ``cutoff`` into ``out``.

    ``out`` is the snapshot folder itself (e.g. ``snapshots/2026-10-06/cutoff=2026-04-01``). It is
    written under a temporary name and renamed at the end; if it exists, ``replace=False`` refuses
    and ``replace=True`` swaps the new folder in atomically. The release id comes from the
    folder's ``release.json``, else ``release_id``, else the folder name (``read_release_info``);
    the manifest's ``source.release_id_from`` says which. DuckDB runs within ``limits`` (default:
    ``Limits.resolve()``). Returns ``out``.
    """
    stage = _Stages()
    cutoff = _as_date(cutoff)
    limits = limits or Limits.resolve()
    release_dir, out = Path(release_dir), Path(out)
    info = read_release_info(release_dir, release_id)
    sources = release_sources(release_dir)
    with _snapshot_folder(out, replace) as tmp, scratch_duckdb(out.parent, limits) as con:
        stage.watch(con)
        with VerifiedRead(con, [s for ds in READ_DATASETS for s in sources[ds]]) as vr:
            with stage("read"):
                # Papers with their derived columns, computed as they are read (once per row).
                con.execute(f"CREATE TABLE {TABLES[PAPERS]} AS {derived_papers_sql(f'({papers_sql(vr.scan(sources[PAPERS]))})')}")
                con.execute(f"CREATE TABLE {TABLES[VENUES]} AS {venues_sql(vr.scan(sources[VENUES]))}")
                require_papers(con, release_dir)
            with stage("read_citations"):  # only the two columns the snapshot needs
                con.execute(f"CREATE TABLE {TABLES[CITATIONS]} AS SELECT citing, cited FROM ({citations_sql(vr.scan(sources[CITATIONS]))})")
        classified = _classify(con, cutoff, stage, derived=True)
        built = _write(con, classified, tmp, stage)
        manifest = _manifest(
            built,
            release_id=info.release_id,
            cutoff=cutoff,
            synthetic=info.synthetic,
            source={"type": "release", "release_dir": str(release_dir.resolve()), "release_id_from": info.release_id_from},
            inputs=[f.to_json() for f in vr.inputs],
            stage=stage,
            limits=limits,
        )
        write_snapshot_manifest(tmp / MANIFEST_FILE, manifest)
    return out


def ingest_openalex(
    release_dir: Path,
    cutoff: dt.date,
    out: Path,
    *,
    replace: bool = False,
    release_id: str | None = None,
    limits: Limits | None = None,
) -> Path:
    """Build the snapshot of an OpenAlex works folder (either snapshot layout, or what
    ``graphniah openalex fetch`` wrote) for papers published on or after ``cutoff`` into ``out``.

    The works are read into the tables of the S2AG path (``graphniah.ingest.openalex.read``) and
    go through the same snapshot query and writer, so the snapshot is the same format; its
    manifest's ``source`` says ``openalex`` and counts the records read, superseded by a newer
    record of the same work, merged away, and the works of type ``preprint``. Same folder rules as
    ``ingest_release``. Returns ``out``.
    """
    from graphniah.ingest.openalex.layout import open_works
    from graphniah.ingest.openalex.read import PREPRINT_URL_PATTERNS, load_works, preprint_type_kept, source_dates_sql

    stage = _Stages()
    cutoff = _as_date(cutoff)
    limits = limits or Limits.resolve()
    out = Path(out)
    folder = open_works(release_dir, release_id)
    dates = source_dates_sql()
    with _snapshot_folder(out, replace) as tmp, scratch_duckdb(out.parent, limits) as con:
        stage.watch(con)
        with stage("read"):
            works, inputs = load_works(con, folder, lambda rows: derived_papers_sql(rows, dates))
        classified = _classify(con, cutoff, stage, derived=True)
        kept_preprints = preprint_type_kept(con)
        built = _write(con, classified, tmp, stage)
        source = {"name": "openalex", "type": "openalex", "release_dir": str(folder.root.resolve()), "layout": folder.layout,
                  "release_id_from": folder.release_id_from, **works.to_json(kept_preprints),
                  "preprint_identifiers": PREPRINT_URL_PATTERNS}  # how locations name preprints (the dates: eligibility)
        manifest = _manifest(built, release_id=folder.release_id, cutoff=cutoff, synthetic=folder.synthetic, source=source,
                             inputs=[f.to_json() for f in inputs], stage=stage, limits=limits)
        write_snapshot_manifest(tmp / MANIFEST_FILE, manifest)
    return out


def snapshot_from_store(store: ReleaseStore, cutoff: dt.date, out: Path, *, replace: bool = False) -> Path:
    """Build the snapshot of the release a ``ReleaseStore`` currently holds (same rules and layout),
    within the store's limits (``ReleaseStore.open(path, limits)``).

    The manifest's ``source`` names the base release and every diff applied since (with where
    their ids came from), ``inputs`` lists all their files.
    """
    stage = _Stages()
    cutoff = _as_date(cutoff)
    out = Path(out)
    state = store.state
    if state is None:
        raise GraphNIAHError(f"release store {store.path} is empty; load a release first (`graphniah store load`)")
    con = store.connection
    stage.watch(con)
    try:
        with _snapshot_folder(out, replace) as tmp, _scratch_tables(con):
            built = _write(con, _classify(con, cutoff, stage, derived=False), tmp, stage)
            manifest = _manifest(
                built,
                release_id=state.release_id,
                cutoff=cutoff,
                synthetic=state.synthetic,
                source={
                    "type": "store",
                    "store": str(Path(store.path).resolve()),
                    # Provenance without the file lists (those are in "inputs", tagged with their origin).
                    "base_release": {k: v for k, v in state.base.to_json().items() if k != "inputs"},
                    "diffs": [{k: v for k, v in d.to_json().items() if k != "inputs"} for d in state.diffs],
                },
                inputs=state.all_inputs(),
                stage=stage,
                limits=store.limits,
            )
            write_snapshot_manifest(tmp / MANIFEST_FILE, manifest)
    except duckdb.OutOfMemoryException as e:
        raise out_of_memory(e, store.limits) from None
    return out
