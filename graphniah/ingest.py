"""Snapshot building: S2AG release (or release store) → papers.parquet, edges.parquet, manifest.json.

Two entry points, one query:

- ``ingest_release`` reads a release folder straight from its gzip JSON shards into a scratch
  DuckDB database (normalising SQL of ``graphniah.s2ag.read``), then runs the snapshot query.
- ``snapshot_from_store`` runs the same snapshot query over a ``ReleaseStore`` that was loaded
  with a release and moved forward with diffs.

Both end in ``_build_snapshot``, which classifies every paper and citation row with the rules of
DESIGN.md §1 and writes the tables with ``COPY ... TO``. Because the store keeps exactly one row
per primary key chosen by the same content order the snapshot query uses to drop duplicates,
ingest(release N+1) and store(N) + diff(N→N+1) produce the same rows (tested on demo releases).

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphniah import __version__
from graphniah.errors import GraphNIAHError
from graphniah.io import atomic_dir, sha256_file, write_json
from graphniah.s2ag.read import CITATIONS, PAPER_ROW_ORDER, PAPERS, TABLES, VENUES, fetch_one, load_release_tables, sql_str
from graphniah.snapshot import EDGES_FILE, EDGES_SCHEMA, MANIFEST_FILE, PAPERS_FILE, PAPERS_SCHEMA, parse_cutoff

if TYPE_CHECKING:
    from graphniah.s2ag.store import ReleaseStore

MANIFEST_FORMAT = 1

# An HTML/XML/MathML tag: "<i>", "</sub>", "<mml:math xmlns:mml=...>", "<br/>". A lone "<" or
# "a < b > c" (space after "<") is not a tag, so ordinary comparisons in titles survive.
MARKUP_PATTERN = r"</?[A-Za-z][A-Za-z0-9._-]*(?::[A-Za-z][A-Za-z0-9._-]*)?(?:\s[^<>]*)?/?>"

# Drop reasons, in the order they are tested: a row is counted under the first that applies.
PAPER_DROP_REASONS = (
    "missing_corpusid",
    "duplicate_corpusid",  # more rows with one corpusid: one is kept (content order), others dropped
    "no_publication_date",  # publicationdate null (year only, or nothing)
    "invalid_publication_date",  # publicationdate not a complete YYYY-MM-DD date
    "before_cutoff",
    "empty_title",  # null or only white space
    "markup_title",  # MathML/HTML tags in the title
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
        # Invariant: each input row is classified exactly once.
        assert self.read == self.kept + sum(self.dropped.values()), (self.read, self.kept, dict(self.dropped))

    def to_json(self) -> dict[str, Any]:
        return {"read": self.read, "kept": self.kept, "dropped": dict(self.dropped)}


@dataclass(frozen=True)
class SnapshotCounts:
    papers: RowCounts  # paper records → eligible papers
    edges: RowCounts  # citation records → edges


# --------------------------------------------------------------------------------------------
# The snapshot query (shared by both paths)
# --------------------------------------------------------------------------------------------


def _paper_counts(con: duckdb.DuckDBPyConnection, cutoff: dt.date) -> RowCounts:
    papers = TABLES[PAPERS]
    reason = f"""CASE
        WHEN corpusid IS NULL THEN 'missing_corpusid'
        WHEN _rank > 1 THEN 'duplicate_corpusid'
        WHEN publicationdate IS NULL THEN 'no_publication_date'
        WHEN _pdate IS NULL THEN 'invalid_publication_date'
        WHEN _pdate < DATE {sql_str(cutoff.isoformat())} THEN 'before_cutoff'
        WHEN title IS NULL OR title = '' THEN 'empty_title'
        WHEN regexp_matches(title, {sql_str(MARKUP_PATTERN)}) THEN 'markup_title'
    END"""
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _classified AS
        SELECT *, {reason} AS _reason FROM (
            SELECT *,
                   TRY_CAST(publicationdate AS DATE) AS _pdate,
                   row_number() OVER (PARTITION BY corpusid ORDER BY {PAPER_ROW_ORDER}) AS _rank
            FROM {papers})
    """)
    rows = dict(con.execute("SELECT coalesce(_reason, ''), count(*) FROM _classified GROUP BY ALL").fetchall())
    kept = rows.pop("", 0)
    return RowCounts(kept + sum(rows.values()), kept, {r: rows.get(r, 0) for r in PAPER_DROP_REASONS})


def _eligible_papers(con: duckdb.DuckDBPyConnection) -> None:
    """``_snap_papers``: the eligible papers in the output schema, sorted by corpusid.

    venue = the record's venue, else its journal name, else the name of its publication venue.
    """
    venues = TABLES[VENUES]
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _snap_papers AS
        SELECT p.corpusid, p.title, p.authors,
               COALESCE(p.venue, p.journal, v.name) AS venue,
               p.journal,
               p._pdate AS publication_date,
               CAST(COALESCE(p.year, year(p._pdate)) AS INTEGER) AS year,
               p.arxiv_id, p.doi
        FROM _classified p
        LEFT JOIN (SELECT id, min(name) AS name FROM {venues} WHERE id IS NOT NULL GROUP BY id) v
               ON v.id = p.publicationvenueid
        WHERE p._reason IS NULL
        ORDER BY p.corpusid
    """)
    con.execute("DROP TABLE _classified")


def _edges(con: duckdb.DuckDBPyConnection) -> RowCounts:
    """``_snap_edges``: distinct (citing, cited) pairs between eligible papers, no self-loops."""
    citations = TABLES[CITATIONS]
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _snap_edges AS
        SELECT citing, cited, count(*) AS n
        FROM {citations}
        WHERE citing <> cited
          AND citing IN (SELECT corpusid FROM _snap_papers)
          AND cited IN (SELECT corpusid FROM _snap_papers)
        GROUP BY citing, cited
        ORDER BY citing, cited
    """)
    read, null_citing, null_cited, self_loop = fetch_one(con, f"""
        SELECT count(*),
               count(*) FILTER (WHERE citing IS NULL),
               count(*) FILTER (WHERE citing IS NOT NULL AND cited IS NULL),
               count(*) FILTER (WHERE citing = cited)
        FROM {citations}
    """)  # type: ignore[misc]
    kept, between_eligible = fetch_one(con, "SELECT count(*), coalesce(sum(n), 0) FROM _snap_edges")  # type: ignore[misc]
    dropped = {
        "null_citing": null_citing,
        "null_cited": null_cited,
        "self_loop": self_loop,
        # Rows with two non-null, distinct ends that did not survive the eligibility semi-joins.
        "endpoint_not_eligible": read - null_citing - null_cited - self_loop - int(between_eligible),
        "duplicate": int(between_eligible) - kept,
    }
    return RowCounts(read, kept, dropped)


def _update_with_strings(h: hashlib._Hash, arr: pa.Array) -> None:
    """Feed the bytes of a string array (no nulls) to ``h`` without making Python strings."""
    if not pa.types.is_string(arr.type):
        arr = arr.cast(pa.string())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    if len(offsets) > 1:
        h.update(memoryview(arr.buffers()[2])[offsets[0] : offsets[-1]])


_PAPER_COLUMNS = ", ".join(PAPERS_SCHEMA.names)
_HASH_PREFIX = b"graphniah-snapshot-v1\n"
_BATCH = 1 << 17


def _write_and_hash(con: duckdb.DuckDBPyConnection, folder: Path) -> str:
    """Write papers.parquet and edges.parquet from the result tables and return the snapshot hash.

    The files are written with pyarrow in exactly ``PAPERS_SCHEMA``/``EDGES_SCHEMA`` (DuckDB's own
    Parquet writer marks columns without nulls as required and names list items differently, so
    the schema a reader sees would depend on the data).

    The hash is taken from the canonical row data in the same pass, so it is independent of the
    Parquet bytes: each paper contributes one JSON line (DuckDB ``to_json`` of the row, columns in
    schema order), sorted by corpusid; each edge its (citing, cited) pair as little-endian int64,
    sorted. Equal tables give equal hashes whatever the writer did.
    """
    h = hashlib.sha256(_HASH_PREFIX + b"papers\n")
    fields = ", ".join(f"{c} := {c}" for c in PAPERS_SCHEMA.names)
    reader = con.sql(f"SELECT {_PAPER_COLUMNS}, to_json(struct_pack({fields})) || chr(10) AS _line FROM _snap_papers ORDER BY corpusid").to_arrow_reader(_BATCH)
    with pq.ParquetWriter(folder / PAPERS_FILE, PAPERS_SCHEMA, compression="zstd") as w:
        for batch in reader:
            _update_with_strings(h, batch.column(len(PAPERS_SCHEMA)))
            w.write_table(pa.Table.from_batches([batch]).drop_columns(["_line"]).cast(PAPERS_SCHEMA))
    h.update(b"edges\n")
    reader = con.sql("SELECT citing, cited FROM _snap_edges ORDER BY citing, cited").to_arrow_reader(_BATCH * 8)
    with pq.ParquetWriter(folder / EDGES_FILE, EDGES_SCHEMA, compression="zstd") as w:
        for batch in reader:
            pairs = np.column_stack([batch.column(0).to_numpy(), batch.column(1).to_numpy()]).astype("<i8")
            h.update(pairs.tobytes())
            w.write_table(pa.Table.from_batches([batch]).cast(EDGES_SCHEMA))
    return h.hexdigest()


@dataclass(frozen=True)
class _Built:
    counts: SnapshotCounts
    snapshot_hash: str
    files: dict[str, Any]


def _build_snapshot(con: duckdb.DuckDBPyConnection, cutoff: dt.date, folder: Path) -> _Built:
    """Classify, write Parquet, hash. Reads tables ``papers``, ``citations``, ``venues`` on ``con``."""
    try:
        papers = _paper_counts(con, cutoff)
        _eligible_papers(con)
        edges = _edges(con)
        digest = _write_and_hash(con, folder)
    finally:
        for t in ("_classified", "_snap_papers", "_snap_edges"):
            con.execute(f"DROP TABLE IF EXISTS {t}")
    files = {
        name: {"rows": rows, "bytes": (folder / name).stat().st_size, "sha256": sha256_file(folder / name)}
        for name, rows in ((PAPERS_FILE, papers.kept), (EDGES_FILE, edges.kept))
    }
    return _Built(SnapshotCounts(papers, edges), digest, files)


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
    try:
        with atomic_dir(out, replace=replace) as tmp:
            yield tmp
    except FileExistsError:  # created by someone else between the check and the build
        raise GraphNIAHError(f"snapshot {out} already exists; pass --replace (replace=True) to rebuild it") from None


@contextmanager
def scratch_duckdb(near: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB database whose spill files go to a temporary folder beside ``near``."""
    near.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".duckdb-spill.", dir=near) as spill:
        con = duckdb.connect(":memory:", config={"temp_directory": spill, "preserve_insertion_order": True})
        try:
            yield con
        finally:
            con.close()


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _manifest(built: _Built, *, release_id: str, cutoff: dt.date, synthetic: bool, source: dict[str, Any], inputs: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    return {
        "format": MANIFEST_FORMAT,
        "release_id": release_id,
        "cutoff": cutoff.isoformat(),
        "synthetic": synthetic,
        "source": source,
        "inputs": inputs,
        "rows": {"papers": built.counts.papers.to_json(), "edges": built.counts.edges.to_json()},
        "eligibility": {"markup_pattern": MARKUP_PATTERN, "paper_drop_reasons": list(PAPER_DROP_REASONS), "edge_drop_reasons": list(EDGE_DROP_REASONS)},
        "files": built.files,
        "snapshot_hash": built.snapshot_hash,
        "package_version": __version__,
        "duckdb_version": duckdb.__version__,
        "created_at": _now(),
        "build_seconds": round(seconds, 3),
    }


def ingest_release(release_dir: Path, cutoff: dt.date, out: Path, *, replace: bool = False) -> Path:
    """Build the snapshot of ``release_dir`` for papers published on or after ``cutoff`` into ``out``.

    ``out`` is the snapshot folder itself (e.g. ``snapshots/2026-10-06/cutoff=2026-04-01``). It is
    written under a temporary name and renamed at the end; if it exists, ``replace=False`` refuses
    and ``replace=True`` swaps the new folder in atomically. Returns ``out``.
    """
    t0 = time.perf_counter()
    cutoff = _as_date(cutoff)
    release_dir, out = Path(release_dir), Path(out)
    with _snapshot_folder(out, replace) as tmp, scratch_duckdb(out.parent) as con:
        info, inputs = load_release_tables(con, release_dir, dedup=False)
        built = _build_snapshot(con, cutoff, tmp)
        manifest = _manifest(
            built,
            release_id=info.release_id,
            cutoff=cutoff,
            synthetic=info.synthetic,
            source={"type": "release", "release_dir": str(release_dir.resolve())},
            inputs=[f.to_json() for f in inputs],
            seconds=time.perf_counter() - t0,
        )
        write_json(tmp / MANIFEST_FILE, manifest)
    return out


def snapshot_from_store(store: ReleaseStore, cutoff: dt.date, out: Path, *, replace: bool = False) -> Path:
    """Build the snapshot of the release a ``ReleaseStore`` currently holds (same rules and layout).

    The manifest's ``source`` names the base release and every diff applied since, with their
    input files; ``inputs`` lists all of them.
    """
    t0 = time.perf_counter()
    cutoff = _as_date(cutoff)
    out = Path(out)
    state = store.state
    if state is None:
        raise GraphNIAHError(f"release store {store.path} is empty; load a release first (`graphniah store load`)")
    with _snapshot_folder(out, replace) as tmp:
        built = _build_snapshot(store.connection, cutoff, tmp)
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
            seconds=time.perf_counter() - t0,
        )
        write_json(tmp / MANIFEST_FILE, manifest)
    return out
