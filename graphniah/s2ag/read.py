"""Reading raw S2AG release and diff folders with DuckDB, without ever trusting a damaged file.

Layout (shared with the demo generator and the API downloader)::

    <release_dir>/release.json                 {"release_id": ..., "synthetic": ...}
    <release_dir>/<dataset>/*.gz               gzip JSON-lines shards, any file names
    <diff_dir>/diff.json                       {"from_release": ..., "to_release": ..., "synthetic": ...}
    <diff_dir>/<dataset>/update_files/*.gz     complete new records (upserted by primary key)
    <diff_dir>/<dataset>/delete_files/*.gz     objects holding at least the primary key

**One normalising query per dataset.** ``papers_sql``/``citations_sql``/``venues_sql`` turn raw
records of either S2AG format into the same typed columns: ids that are JSON strings (legacy) or
integers (current) both become ``BIGINT``; ``journal`` may be null or a struct; fields we do not
use (``intents`` flat or nested, ``contexts``, ``updated``) are not read at all. The direct ingest
path and the release store both use exactly these queries, so they cannot disagree.

**Integrity.** DuckDB notices a gzip stream that stops early, but it does not check the gzip CRC,
so a flipped byte inside a member can decode to silently different records (measured with DuckDB
2.0). Every input file is therefore streamed once through ISA-L inflate, which verifies each
member's CRC-32 and length, while the same pass computes the file's sha256 for the manifest. That
pass runs in a thread *concurrently* with the DuckDB read (both release the GIL), so it costs
little wall time; when it finds damage it interrupts DuckDB. Errors are located precisely only
on the failure path: the damaged file is re-inflated with ``zlib`` (whose state can be copied)
to find the exact byte offset, and a JSON error is re-parsed in Python to find the exact line.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import zlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import duckdb
from isal import isal_zlib

from graphniah.errors import GraphNIAHError
from graphniah.io import read_json

PAPERS = "papers"
CITATIONS = "citations"
VENUES = "publication-venues"
AUTHORS = "authors"
DATASETS = (PAPERS, CITATIONS, VENUES, AUTHORS)
REQUIRED_DATASETS = (PAPERS, CITATIONS)
# Datasets the snapshot needs (authors are embedded in paper records, so the authors dataset is not read).
READ_DATASETS = (PAPERS, CITATIONS, VENUES)
RELEASE_FILE = "release.json"
DIFF_FILE = "diff.json"
UPDATE_FILES = "update_files"
DELETE_FILES = "delete_files"

Role = Literal["release", "update", "delete"]

_CHUNK = 1 << 19
_GZIP_WBITS = 31  # zlib: gzip wrapper, 32 KiB window, verifies CRC-32 and ISIZE


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseInfo:
    """What ``release.json`` says about a release folder."""

    release_id: str
    synthetic: bool
    path: Path


@dataclass(frozen=True)
class DiffInfo:
    """What ``diff.json`` says about a diff folder (one step between consecutive releases)."""

    from_release: str
    to_release: str
    synthetic: bool
    path: Path

    @property
    def name(self) -> str:
        return f"{self.from_release}_to_{self.to_release}"


def _read_descriptor(path: Path, what: str) -> dict[str, Any]:
    if not path.parent.is_dir():
        raise GraphNIAHError(f"{what} folder {path.parent} does not exist")
    if not path.is_file():
        raise GraphNIAHError(f"{path.parent} is not an S2AG {what} folder: {path.name} is missing")
    try:
        obj = read_json(path)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GraphNIAHError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(obj, dict):
        raise GraphNIAHError(f"{path} must hold a JSON object, not {type(obj).__name__}")
    return obj


def _field(obj: dict[str, Any], key: str, path: Path, kind: type) -> Any:
    value = obj.get(key)
    if not isinstance(value, kind) or (kind is str and not value):
        raise GraphNIAHError(f"{path}: field {key!r} must be a {'non-empty string' if kind is str else kind.__name__}, got {value!r}")
    return value


def read_release_info(release_dir: Path) -> ReleaseInfo:
    """Read ``release.json``; a missing or malformed descriptor is an error that names the file."""
    release_dir = Path(release_dir)
    path = release_dir / RELEASE_FILE
    obj = _read_descriptor(path, "release")
    return ReleaseInfo(_field(obj, "release_id", path, str), bool(obj.get("synthetic", False)), release_dir)


def read_diff_info(diff_dir: Path) -> DiffInfo:
    """Read ``diff.json`` (from/to release ids, synthetic flag)."""
    diff_dir = Path(diff_dir)
    path = diff_dir / DIFF_FILE
    obj = _read_descriptor(path, "diff")
    return DiffInfo(
        _field(obj, "from_release", path, str),
        _field(obj, "to_release", path, str),
        bool(obj.get("synthetic", False)),
        diff_dir,
    )


def shard_files(folder: Path) -> tuple[Path, ...]:
    """The gzip shards of one dataset folder, in name order (``*.gz`` covers ``*.jsonl.gz`` too).

    Hidden files (``.name``, e.g. a downloader's temporary file) are not shards.
    """
    return tuple(sorted(p for p in Path(folder).glob("*.gz") if p.is_file() and not p.name.startswith(".")))


@dataclass(frozen=True)
class Source:
    """One input shard: which dataset it belongs to, its role, and its path relative to its folder."""

    dataset: str
    role: Role
    path: Path
    relpath: str


@dataclass(frozen=True)
class InputFile:
    """A verified input shard as recorded in manifests: relative path, size in bytes, sha256."""

    dataset: str
    role: Role
    path: str
    size: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "role": self.role, "path": self.path, "size": self.size, "sha256": self.sha256}


def release_sources(release_dir: Path) -> dict[str, tuple[Source, ...]]:
    """Shards of each dataset the snapshot reads; ``papers`` and ``citations`` must be present and non-empty."""
    release_dir = Path(release_dir)
    out: dict[str, tuple[Source, ...]] = {}
    for ds in READ_DATASETS:
        folder = release_dir / ds
        if not folder.is_dir():
            if ds in REQUIRED_DATASETS:
                raise GraphNIAHError(f"release {release_dir} has no {ds}/ dataset folder (expected {folder}/*.gz)")
            out[ds] = ()
            continue
        files = shard_files(folder)
        if not files and ds in REQUIRED_DATASETS:
            raise GraphNIAHError(f"release {release_dir} is empty: {folder}/ holds no .gz shard files")
        out[ds] = tuple(Source(ds, "release", p, p.relative_to(release_dir).as_posix()) for p in files)
    return out


def diff_sources(diff_dir: Path) -> dict[tuple[str, Role], tuple[Source, ...]]:
    """Update and delete shards per dataset of a diff folder.

    ``papers/`` and ``citations/`` must exist (a missing one means an incomplete download); their
    ``update_files/`` or ``delete_files/`` sub-folders may be absent or empty (nothing changed).
    """
    diff_dir = Path(diff_dir)
    out: dict[tuple[str, Role], tuple[Source, ...]] = {}
    for ds in READ_DATASETS:
        folder = diff_dir / ds
        if not folder.is_dir() and ds in REQUIRED_DATASETS:
            raise GraphNIAHError(f"diff {diff_dir} has no {ds}/ dataset folder (expected {folder}/{UPDATE_FILES}/ and {DELETE_FILES}/)")
        for role, sub in (("update", UPDATE_FILES), ("delete", DELETE_FILES)):
            files = shard_files(folder / sub) if (folder / sub).is_dir() else ()
            out[(ds, role)] = tuple(Source(ds, role, p, p.relative_to(diff_dir).as_posix()) for p in files)  # type: ignore[misc]
    return out


# --------------------------------------------------------------------------------------------
# gzip integrity
# --------------------------------------------------------------------------------------------


def _inflate_all(path: Path, stop: threading.Event | None) -> tuple[int, str, str | None]:
    """Stream ``path`` once: (size, sha256, problem or None). ISA-L inflate checks CRC and length.

    Gzip files may hold several members back to back; each member's trailer is checked, and
    the stream must end exactly at a member boundary (otherwise the file is truncated). Output
    is discarded chunk by chunk, so memory stays at one chunk times the compression ratio.
    """
    sha = hashlib.sha256()
    size = 0
    d = isal_zlib.decompressobj(_GZIP_WBITS)
    in_member = False
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            if stop is not None and stop.is_set():
                return size, "", "cancelled"
            sha.update(chunk)
            size += len(chunk)
            data = chunk
            try:
                while data:
                    in_member = True
                    d.decompress(data)
                    if not d.eof:
                        break
                    # Member complete (its CRC and length verified); the rest starts the next one.
                    data = d.unused_data
                    d = isal_zlib.decompressobj(_GZIP_WBITS)
                    in_member = False
            except isal_zlib.error as e:
                return size, "", str(e)
    if size == 0:
        return 0, "", "file is empty (0 bytes), not a gzip stream"
    return size, sha.hexdigest(), "truncated" if in_member else None


def _locate_gzip_damage(path: Path) -> tuple[int, str]:
    """Exact byte offset and zlib's reason for the first damage in ``path`` (failure path only).

    Streams the file through ``zlib`` in 64 KiB pieces, keeping a copy of the inflate state from
    before each piece; when a piece fails, the saved state is fed that piece one byte at a time,
    so the offset reported is the first byte at which inflate (or the CRC/length check of the
    trailer) rejects the stream; for a damaged gzip header it is where that member begins. A
    stream that simply stops yields the file size as the offset.
    """
    d = zlib.decompressobj(_GZIP_WBITS)
    base = 0  # absolute offset of pending[0]
    member_start = 0  # where the current member's header begins (reported for header damage)
    member_open = False
    pending = b""
    with open(path, "rb") as f:
        while True:
            if not pending:
                pending = f.read(1 << 16)
                if not pending:
                    break
            saved = d.copy()
            try:
                d.decompress(pending)
            except zlib.error:
                d = saved
                for i in range(len(pending)):
                    try:
                        d.decompress(pending[i : i + 1])
                    except zlib.error as e:
                        reason = _zlib_reason(e)
                        return (member_start if "header" in reason else base + i), reason
                    if d.eof:  # a member ended before the damage: continue with the next one
                        break
                else:  # pragma: no cover - zlib is deterministic, so the byte-wise replay fails too
                    return base, "corrupt gzip data"
                base, pending = base + i + 1, pending[i + 1 :]
                d, member_open, member_start = zlib.decompressobj(_GZIP_WBITS), False, base
                continue
            member_open = True
            if d.eof:
                used = len(pending) - len(d.unused_data)
                base, pending = base + used, d.unused_data
                d, member_open, member_start = zlib.decompressobj(_GZIP_WBITS), False, base
            else:
                base, pending = base + len(pending), b""
    if member_open:
        return base, "truncated: the gzip stream stops inside a member"
    return base, "no damage found"


def _zlib_reason(e: zlib.error) -> str:
    msg = str(e)
    return msg.split(": ", 1)[1] if ": " in msg else msg


def verify_gzip(path: Path, stop: threading.Event | None = None) -> tuple[int, str]:
    """(size, sha256) of a gzip shard after checking every member's CRC; else a ``GraphNIAHError``.

    The error names the file and the byte offset of the damage (a truncated download, a flipped
    byte, trailing garbage), so the user knows which shard to fetch again.
    """
    path = Path(path)
    size, digest, problem = _inflate_all(path, stop)
    if problem is None:
        return size, digest
    if problem == "cancelled":
        raise _Cancelled()
    if size == 0:
        raise GraphNIAHError(f"{path}: {problem}")
    offset, reason = _locate_gzip_damage(path)
    if reason.startswith("truncated"):
        raise GraphNIAHError(f"{path}: truncated gzip file: the stream ends inside a member at byte offset {offset:,} (file size {size:,}); download it again")
    if reason == "no damage found":  # pragma: no cover - ISA-L and zlib disagree
        reason, offset = problem, 0
    raise GraphNIAHError(f"{path}: corrupt gzip data at byte offset {offset:,} ({reason}); download it again")


class _Cancelled(Exception):
    """The reader was abandoned (another error came first)."""


# --------------------------------------------------------------------------------------------
# JSON diagnosis (failure path)
# --------------------------------------------------------------------------------------------

# Fields whose type the normalising SQL casts: integer ids (or digit strings in the legacy format).
_ID_FIELDS = {
    PAPERS: ("corpusid",),
    CITATIONS: ("citationid", "citingcorpusid", "citedcorpusid"),
    VENUES: (),
}
_DIGITS = re.compile(r"[0-9]+")


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw line) of a gzip JSON-lines file; assumes the gzip stream is sound."""
    d = zlib.decompressobj(_GZIP_WBITS)
    pending = b""
    lineno = 0
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            data = chunk
            while data:
                out = d.decompress(data)
                if d.eof:
                    data = d.unused_data
                    d = zlib.decompressobj(_GZIP_WBITS)
                else:
                    data = b""
                pending += out
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    lineno += 1
                    yield lineno, line
    if pending:
        yield lineno + 1, pending


def find_bad_record(path: Path, dataset: str) -> str | None:
    """The first line of ``path`` that the normalising SQL cannot read, described; None if all are fine."""
    id_fields = _ID_FIELDS.get(dataset, ())
    for lineno, raw in _iter_lines(Path(path)):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            return f"{path}, line {lineno}: not valid JSON ({e}): {_preview(raw)}"
        if not isinstance(obj, dict):
            return f"{path}, line {lineno}: expected a JSON object, got {type(obj).__name__}: {_preview(raw)}"
        for key in id_fields:
            v = obj.get(key)
            ok = v is None or (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and _DIGITS.fullmatch(v))
            if not ok:
                return f"{path}, line {lineno}: field {key!r} must be an integer id, got {v!r}"
    return None


def _preview(raw: bytes, n: int = 80) -> str:
    text = raw.decode("utf-8", errors="replace")
    return repr(text[:n] + ("…" if len(text) > n else ""))


# --------------------------------------------------------------------------------------------
# Normalising SQL (shared by the direct ingest and the release store)
# --------------------------------------------------------------------------------------------

# Raw S2AG columns we read, with explicit types. DuckDB casts digit strings to BIGINT, so both
# formats land in the same types; unknown keys in a record are ignored.
PAPERS_RAW = {
    "corpusid": "BIGINT",
    "title": "VARCHAR",
    "authors": "STRUCT(authorId VARCHAR, name VARCHAR)[]",
    "venue": "VARCHAR",
    "publicationvenueid": "VARCHAR",
    "year": "INTEGER",
    "publicationdate": "VARCHAR",
    "journal": "STRUCT(name VARCHAR)",
    "externalids": "STRUCT(ArXiv VARCHAR, DOI VARCHAR)",
}
CITATIONS_RAW = {"citationid": "BIGINT", "citingcorpusid": "BIGINT", "citedcorpusid": "BIGINT"}
VENUES_RAW = {"id": "VARCHAR", "name": "VARCHAR"}
RAW_COLUMNS = {PAPERS: PAPERS_RAW, CITATIONS: CITATIONS_RAW, VENUES: VENUES_RAW}

# Primary keys (layout contract). Citations: citationid when present, else the (citing, cited) pair.
KEY_COLUMNS = {
    PAPERS: {"corpusid": "BIGINT"},
    CITATIONS: CITATIONS_RAW,
    VENUES: {"id": "VARCHAR"},
}

_AUTHOR = "STRUCT(id VARCHAR, name VARCHAR)"
# Leading/trailing white space including Unicode separators (DuckDB's trim() strips only ' ').
_EDGE_SPACE = r"'^[\s\p{Z}]+|[\s\p{Z}]+$'"


def _clean(expr: str) -> str:
    """Trim white space; an empty string becomes NULL."""
    return f"NULLIF(regexp_replace({expr}, {_EDGE_SPACE}, '', 'g'), '')"


def fetch_one(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...] | None:
    """The first row of ``sql`` (or None), with the result fully consumed so the connection is free."""
    rows = con.execute(sql).fetchall()
    return rows[0] if rows else None


def sql_str(s: str | Path) -> str:
    """A SQL string literal."""
    return "'" + str(s).replace("'", "''") + "'"


def _scan(files: Sequence[Path], columns: dict[str, str]) -> str:
    """A table expression over gzip JSON-lines ``files`` with the given raw columns (empty if no files)."""
    if not files:
        cols = ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in columns.items())
        return f"(SELECT {cols} WHERE false)"
    col_spec = ", ".join(f"{c}: {sql_str(t)}" for c, t in columns.items())
    file_list = "[" + ", ".join(sql_str(p) for p in files) + "]"
    return (
        f"read_json({file_list}, format='newline_delimited', compression='gzip', ignore_errors=false, "
        f"maximum_object_size=268435456, columns={{{col_spec}}})"
    )


def papers_sql(files: Sequence[Path]) -> str:
    """Normalised paper rows: one per input record (duplicates kept; the snapshot query counts them).

    Columns: corpusid BIGINT, title (trimmed, '' kept so it can be counted as empty), authors
    list<{id, name}> ([] for null), venue / journal / publicationvenueid / arxiv_id / doi (trimmed,
    '' → NULL), year INTEGER, publicationdate VARCHAR (validated by the snapshot query).
    """
    return f"""
        SELECT
            corpusid,
            regexp_replace(title, {_EDGE_SPACE}, '', 'g') AS title,
            COALESCE(list_transform(authors, lambda a: struct_pack(id := a.authorId, name := a.name)), CAST([] AS {_AUTHOR}[])) AS authors,
            {_clean("venue")} AS venue,
            {_clean("journal.name")} AS journal,
            {_clean("publicationvenueid")} AS publicationvenueid,
            year,
            publicationdate,
            {_clean("externalids.ArXiv")} AS arxiv_id,
            {_clean("externalids.DOI")} AS doi
        FROM {_scan(files, PAPERS_RAW)}
    """


def citations_sql(files: Sequence[Path]) -> str:
    """Normalised citation rows: citationid (NULL in the legacy format), citing, cited (may be NULL)."""
    return f"SELECT citationid, citingcorpusid AS citing, citedcorpusid AS cited FROM {_scan(files, CITATIONS_RAW)}"


def venues_sql(files: Sequence[Path]) -> str:
    """Normalised publication venues: id, name ('' → NULL)."""
    return f"SELECT {_clean('id')} AS id, {_clean('name')} AS name FROM {_scan(files, VENUES_RAW)}"


def delete_keys_sql(dataset: str, files: Sequence[Path]) -> str:
    """Primary keys listed in delete files, in the normalised column names."""
    if dataset == PAPERS:
        return f"SELECT corpusid FROM {_scan(files, KEY_COLUMNS[PAPERS])}"
    if dataset == CITATIONS:
        return citations_sql(files)
    if dataset == VENUES:
        return f"SELECT {_clean('id')} AS id FROM {_scan(files, KEY_COLUMNS[VENUES])}"
    raise ValueError(f"no delete keys for dataset {dataset!r}")


NORMALISE_SQL = {PAPERS: papers_sql, CITATIONS: citations_sql, VENUES: venues_sql}

# Which of several rows with one primary key is kept: the first in this content order. Ordering
# by content (not by file order) makes the choice independent of shard names and read order, so
# the full ingest and the store choose the same row. (Real duplicates are normally identical.)
PAPER_ROW_ORDER = "title, publicationdate, year, venue, journal, publicationvenueid, arxiv_id, doi, authors"
CITATION_PARTITION = "citationid, CASE WHEN citationid IS NULL THEN citing END, CASE WHEN citationid IS NULL THEN cited END"
CITATION_ROW_ORDER = "citing, cited"


def dedup_sql(dataset: str, rel: str) -> str:
    """``rel`` with one row per primary key (the rule above); used by the store for loads and updates."""
    if dataset == PAPERS:
        part, order = "corpusid", PAPER_ROW_ORDER
    elif dataset == CITATIONS:
        part, order = CITATION_PARTITION, CITATION_ROW_ORDER
    elif dataset == VENUES:
        part, order = "id", "name"
    else:
        raise ValueError(dataset)
    return f"SELECT * FROM ({rel}) QUALIFY row_number() OVER (PARTITION BY {part} ORDER BY {order}) = 1"


# --------------------------------------------------------------------------------------------
# Running reads with verification
# --------------------------------------------------------------------------------------------

_FILE_IN_ERROR = re.compile(r'file "([^"]+)"')
# DuckDB errors that bad input files cause (anything else is a bug and propagates unchanged).
_READ_ERRORS = (duckdb.IOException, duckdb.InvalidInputException, duckdb.ConversionException, duckdb.InterruptException)


class VerifiedRead:
    """Run DuckDB statements over ``sources`` while a thread verifies the same files.

    Use as a context manager around the statements. On success ``inputs`` holds the manifest
    records (sizes and sha256). If a file is damaged, the verifier interrupts DuckDB and the
    ``with`` block raises a ``GraphNIAHError`` naming the file and byte offset; if DuckDB fails
    on sound gzip files, the failing record is located and reported by file and line.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, sources: Sequence[Source]) -> None:
        self._con = con
        self._sources = tuple(sources)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._running = False
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[tuple[InputFile, ...]] | None = None
        self.inputs: tuple[InputFile, ...] = ()

    def _verify_all(self) -> tuple[InputFile, ...]:
        out = []
        for s in self._sources:
            size, digest = verify_gzip(s.path, self._stop)
            out.append(InputFile(s.dataset, s.role, s.relpath, size, digest))
        return tuple(out)

    def _on_done(self, fut: Future[tuple[InputFile, ...]]) -> None:
        if fut.exception() is not None:
            with self._lock:
                if self._running:
                    self._con.interrupt()

    def __enter__(self) -> VerifiedRead:
        self._running = True
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="gzip-verify")
        self._future = self._pool.submit(self._verify_all)
        self._future.add_done_callback(self._on_done)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> bool:
        with self._lock:
            self._running = False
        assert self._future is not None and self._pool is not None
        try:
            if exc is not None and not isinstance(exc, _READ_ERRORS):
                self._stop.set()
                return False
            try:
                self.inputs = self._future.result()
            except _Cancelled:  # pragma: no cover - only when stopped above
                return False
            if exc is None:
                return False
            # The gzip streams are sound, so DuckDB failed on a record: find and name it.
            raise GraphNIAHError(self._diagnose(exc)) from None
        finally:
            self._pool.shutdown(wait=True)

    def _diagnose(self, exc: BaseException) -> str:
        msg = str(exc)
        named = _FILE_IN_ERROR.search(msg)
        ordered = sorted(self._sources, key=lambda s: 0 if named and Path(named.group(1)) == s.path else 1)
        for s in ordered:
            found = find_bad_record(s.path, s.dataset)
            if found:
                return found
        files = ", ".join(str(s.path) for s in self._sources[:5]) + (" …" if len(self._sources) > 5 else "")
        return f"could not read S2AG files ({files}): {msg.splitlines()[0] if msg else type(exc).__name__}"


# --------------------------------------------------------------------------------------------
# Loading a whole release into tables
# --------------------------------------------------------------------------------------------

# Table names of the normalised datasets, in the store and in the direct ingest's scratch database.
TABLES = {PAPERS: "papers", CITATIONS: "citations", VENUES: "venues"}


def load_release_tables(con: duckdb.DuckDBPyConnection, release_dir: Path, *, dedup: bool) -> tuple[ReleaseInfo, tuple[InputFile, ...]]:
    """Create (or replace) the ``papers``/``citations``/``venues`` tables from a release folder.

    ``dedup`` keeps one row per primary key (the store); without it every record is kept so the
    snapshot query can count duplicates (the direct ingest). Raises ``GraphNIAHError`` for a
    missing descriptor or dataset folder, damaged files, bad records, or a release without papers.
    """
    release_dir = Path(release_dir)
    info = read_release_info(release_dir)
    sources = release_sources(release_dir)
    with VerifiedRead(con, [s for ds in READ_DATASETS for s in sources[ds]]) as vr:
        for ds in READ_DATASETS:
            sql = NORMALISE_SQL[ds]([s.path for s in sources[ds]])
            if dedup:
                sql = dedup_sql(ds, sql)
            con.execute(f"CREATE OR REPLACE TABLE {TABLES[ds]} AS {sql}")
    row = fetch_one(con, f"SELECT count(*) FROM {TABLES[PAPERS]}")
    if not row or row[0] == 0:
        raise GraphNIAHError(f"release {release_dir} is empty: its {PAPERS}/ shards hold no records")
    return info, vr.inputs
